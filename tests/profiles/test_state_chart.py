"""Profiles by state over time: the chart replays the profiles' history day by day, counts only the
profiles the user may see, and draws one stacked column a day."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from profiles.models import Profile, VerdictChange
from profiles.services import ProfileInput, profile_create, team_create
from tests.conftest import SEED_COMMAND

pytestmark = pytest.mark.django_db


def _profile(actor, team, name, version="0.32.0"):
    profile, _ = profile_create(
        actor=actor,
        team=team,
        data=ProfileInput.from_mapping(
            {"name": name, "kind": "serving", "vllm_version": version, "command": SEED_COMMAND}
        ),
    )
    return profile


def _history(profile, *changes):
    """Replace the profile's history by (days ago, state) changes."""
    VerdictChange.objects.filter(profile=profile).delete()
    now = timezone.now()
    previous = ""
    for days_ago, state in changes:
        change = VerdictChange.objects.create(
            profile=profile, from_state=previous, to_state=state, cause="edit"
        )
        VerdictChange.objects.filter(pk=change.pk).update(created_at=now - timedelta(days=days_ago))
        previous = state


def _columns(html: str) -> dict[str, dict[str, int]]:
    found = {}
    for day, valid, warning, invalid, unverified in re.findall(
        r'data-day="([0-9-]+)" data-valid="(\d+)" data-warning="(\d+)" data-invalid="(\d+)" '
        r'data-unverified="(\d+)"',
        html,
    ):
        found[day] = {"valid": int(valid), "warning": int(warning), "invalid": int(invalid)}
        found[day]["unverified"] = int(unverified)
    return found


def test_states_over_time_replay_the_history_of_visible_profiles(staff, team, user):
    a = _profile(staff, team, "a")
    b = _profile(staff, team, "b")
    _history(a, (40, "valid"), (10, "invalid"), (3, "warning"))
    _history(b, (5, "valid"))
    other_team = team_create(actor=staff, slug="elsewhere", name="Elsewhere")
    hidden = _profile(staff, other_team, "hidden")
    _history(hidden, (20, "invalid"))

    browser = Client()
    browser.force_login(user)
    response = browser.get("/profiles/states/?days=30")
    assert response.status_code == 200
    html = response.content.decode()
    columns = _columns(html)
    assert len(columns) == 30
    day = lambda ago: (timezone.localdate() - timedelta(days=ago)).isoformat()  # noqa: E731
    empty = {"valid": 0, "warning": 0, "invalid": 0, "unverified": 0}
    assert columns[day(29)] == {**empty, "valid": 1}  # a, valid since 40 days; b not yet; hidden never
    assert columns[day(7)] == {**empty, "invalid": 1}  # a invalid since 10 days
    assert columns[day(4)] == {**empty, "valid": 1, "invalid": 1}  # b appeared 5 days ago
    assert columns[day(0)] == {**empty, "valid": 1, "warning": 1}
    assert "Today: 1 valid, 1 warning, 0 invalid." in html
    assert 'class="seg-invalid"' in html and "elsewhere" not in html

    # Staff see every team: the hidden profile counts from 20 days ago.
    browser.force_login(staff)
    columns = _columns(browser.get("/profiles/states/?days=30").content.decode())
    assert columns[day(0)] == {**empty, "valid": 1, "warning": 1, "invalid": 1}
    assert columns[day(25)] == {**empty, "valid": 1}


def test_a_deleted_profile_leaves_the_chart_and_the_period_is_bounded(staff, team):
    gone = _profile(staff, team, "gone")
    _history(gone, (2, "valid"))
    Profile.objects.filter(pk=gone.pk).delete()
    browser = Client()
    browser.force_login(staff)
    html = browser.get("/profiles/states/?days=5000").content.decode()
    columns = _columns(html)
    assert len(columns) == 365
    assert all(sum(c.values()) == 0 for c in columns.values())
