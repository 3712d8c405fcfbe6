"""accounts.rows.unsaved builds the unsaved rows a save inserts: the same instance Django's Model(**values)
builds (every column's value, the related objects cached, the defaults fresh per row), only cheaper."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from accounts.models import AuditEvent
from accounts.rows import unsaved
from profiles.models import Profile, ProfileRevision, Team
from validation.models import VerdictChange

pytestmark = pytest.mark.django_db


def _columns(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def test_the_same_rows_as_django_builds():
    user = get_user_model().objects.create_user("ada")
    team = Team.objects.create(slug="ml", name="ML")
    cases = [
        (Profile, {"team": team, "owner": user, "revision": 1}),
        (Profile, {"kind": "serving", "name": "(dry run)", "revision": 0, "team": None}),
        (Profile, {"team_id": team.pk, "engine_args": {"max_model_len": 8192}}),
        (
            ProfileRevision,
            {"profile": Profile(pk=7, team=team), "revision": 3, "data": {"a": 1}, "author": user},
        ),
        (AuditEvent, {"actor": user, "action": "profile.create", "team_id": team.pk, "after": {"x": [1]}}),
        (VerdictChange, {"profile_id": 7, "to_state": "valid", "appeared": [{"rule": "r"}], "actor": None}),
    ]
    for model, values in cases:
        theirs, ours = model(**values), unsaved(model, **values)
        assert _columns(ours) == _columns(theirs), model
        assert ours._state.adding and ours._state.db == theirs._state.db, model
        assert set(vars(ours)) == set(vars(theirs)), model  # the same attributes, none more
        for name, value in values.items():
            if value is not None and not name.endswith("_id"):
                assert getattr(ours, name) is value, (model, name)  # related objects cached, as given


def test_callable_defaults_are_fresh_per_row():
    first, second = unsaved(Profile), unsaved(Profile)
    assert first.engine_args == {} and first.parse_notes == []
    first.engine_args["x"] = 1
    first.parse_notes.append("n")
    assert second.engine_args == {} and second.parse_notes == []


def test_anything_but_a_column_goes_through_django():
    with pytest.raises(TypeError, match="unexpected keyword"):
        unsaved(Profile, colour="red")


def test_a_row_sends_djangos_signals_of_a_new_instance():
    from django.db.models.signals import post_init, pre_init

    seen = []

    def before(sender, args, kwargs, **_):
        seen.append(("pre", sender, len(args), dict(kwargs)))

    def after(sender, instance, **_):
        seen.append(("post", sender, instance.action))

    pre_init.connect(before, sender=AuditEvent)
    post_init.connect(after, sender=AuditEvent)
    try:
        unsaved(AuditEvent, action="profile.create")
        AuditEvent(action="profile.create")
    finally:
        pre_init.disconnect(before, sender=AuditEvent)
        post_init.disconnect(after, sender=AuditEvent)
    columns = len(AuditEvent._meta.concrete_fields)
    ours, theirs = seen[:2], seen[2:]
    assert ours == [("pre", AuditEvent, columns, {}), ("post", AuditEvent, "profile.create")]
    assert theirs == [("pre", AuditEvent, 0, {"action": "profile.create"}), ours[1]]
