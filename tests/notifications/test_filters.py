"""Which targets an event reaches: the filters by transition, severity, profile kind and label (a finding's
category or rule), and collecting the same changes twice creates no second delivery."""

from __future__ import annotations

import pytest

from notifications import services
from notifications.models import Delivery
from profiles.models import VerdictChange
from tests.bulk import bulk_profiles

pytestmark = pytest.mark.django_db

URL = "https://hooks.example.com/x"
ERROR = {"rule": "org-no-enforce-eager", "severity": "error", "category": "policy", "message": "no eager"}


def test_filters_choose_the_targets_and_collecting_twice_changes_nothing(staff, user, team):
    (profile,) = bulk_profiles(team, [user], 1)
    filters = {
        "only-fixed": {"transitions": ["fixed"]},
        "only-warnings": {"severities": ["warning"]},
        "only-collections": {"kinds": ["collection"]},
        "policy-label": {"labels": ["policy"]},
        "vllm-label": {"labels": ["vllm"]},
        "rule-label": {"labels": ["org-no-enforce-eager"]},
        "everything": {},
    }
    for name, chosen in filters.items():
        services.target_create(actor=staff, team=team, name=name, kind="slack", url=URL, **chosen)
    broke = VerdictChange.objects.create(
        profile=profile, from_state="valid", to_state="invalid", cause="ruleset", appeared=[ERROR]
    )
    fixed = VerdictChange.objects.create(
        profile=profile, from_state="invalid", to_state="valid", cause="edit", disappeared=[ERROR]
    )
    VerdictChange.objects.create(profile=profile, from_state="valid", to_state="warning", cause="edit")

    assert services.collect() == 7
    assert services.collect() == 0  # the same changes again: nothing new
    sent = {(d.target.name, d.event_type) for d in Delivery.objects.select_related("target")}
    assert sent == {
        ("policy-label", "newly_invalid"),
        ("rule-label", "newly_invalid"),
        ("everything", "newly_invalid"),
        ("only-fixed", "fixed"),
        ("policy-label", "fixed"),
        ("rule-label", "fixed"),
        ("everything", "fixed"),
    }
    assert (
        Delivery.objects.get(target__name="everything", event_type="fixed").event_key == f"change:{fixed.pk}"
    )
    assert Delivery.objects.get(target__name="everything", event_type="newly_invalid").event_key == (
        f"change:{broke.pk}"
    )
