"""Verdicts, history, waivers, re-checks and alerts moved from validation to profiles (profiles 0012,
validation 0009) by state alone: on a filled database, every row is still there after the move, read through
the new models, and the content types (what permissions point at) kept their ids."""

from datetime import timedelta

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from profiles import models as moved
from profiles.services import ProfileInput, profile_create

BEFORE = [("profiles", "0011_team_sso_groups"), ("validation", "0008_fk_indexes_covered")]
MODELS = (
    "Verdict",
    "VerdictCheck",
    "VerdictRule",
    "VerdictChange",
    "Waiver",
    "Recheck",
    "Alert",
    "AlertPreference",
)


def _migrate(targets) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor


def _rows(get_model) -> dict[str, list[dict]]:
    return {name: list(get_model(name).objects.order_by("pk").values()) for name in MODELS}


@pytest.mark.django_db(transaction=True)
def test_the_move_keeps_every_row_and_the_content_types(staff, user, team):
    profile, _ = profile_create(
        actor=user,
        team=team,
        data=ProfileInput.from_mapping({"name": "seed", "kind": "serving", "command": "vllm serve m -tp 3"}),
    )
    verdict_type = ContentType.objects.get(app_label="profiles", model="verdict").pk
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        executor = _migrate(BEFORE)
        old = executor.loader.project_state(BEFORE).apps
        assert old.get_model("validation", "Verdict")._meta.db_table == "validation_verdict"
        assert ContentType.objects.get(pk=verdict_type).app_label == "validation"
        # Rows written through the models as they were before the move.
        recheck = old.get_model("validation", "Recheck").objects.create(
            cause="manual", created_by_id=staff.pk
        )
        change = old.get_model("validation", "VerdictChange").objects.create(
            profile_id=profile.pk, to_state="invalid", cause="manual", recheck_id=recheck.pk
        )
        old.get_model("validation", "Waiver").objects.create(
            profile_id=profile.pk,
            rule_id="some-rule",
            reason="known",
            requested_by_id=user.pk,
            granted_by_id=staff.pk,
            expires_at=timezone.now() + timedelta(days=3),
        )
        old.get_model("validation", "Alert").objects.create(
            recipient_id=user.pk, profile_id=profile.pk, change_id=change.pk, recheck_id=recheck.pk
        )
        old.get_model("validation", "VerdictRule").objects.get_or_create(
            profile_id=profile.pk, rule_id="some-rule"
        )
        old.get_model("validation", "AlertPreference").objects.create(user_id=user.pk, email_alerts=False)
        before = _rows(lambda name: old.get_model("validation", name))
    finally:
        _migrate(leaves)
    after = _rows(lambda name: getattr(moved, name))
    assert after == before
    assert all(before[name] for name in MODELS)  # every table had rows to keep
    assert moved.Verdict.objects.get(profile=profile).checked.pending_recheck is None
    assert moved.Alert.objects.get().change.recheck.created_by == staff
    assert ContentType.objects.get(pk=verdict_type).app_label == "profiles"
