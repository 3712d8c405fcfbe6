"""Seed the fault tests' template database: a staff user, an editor, five owners in one team, and
``FAULTS_PROFILES`` stored valid profiles, every 21st of which runs with ``--enforce-eager`` (so that publishing
``tests.examples.EAGER_RULE`` makes those invalid). Prints the API keys as JSON on its last line.

Run as ``python -m tests.faults.seed`` with the environment of the server processes (a migrated database).
"""

from __future__ import annotations

import json
import os

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402

from accounts.services import token_create  # noqa: E402
from profiles.models import TeamMembership  # noqa: E402
from profiles.services import team_add_member, team_create  # noqa: E402
from tests.bulk import bulk_profiles  # noqa: E402
from validation.selectors import fleet_release  # noqa: E402

EAGER_EVERY = 21  # coprime with the 5 owners, so every owner has broken profiles


def main() -> dict:
    count = int(os.environ.get("FAULTS_PROFILES", "1000"))
    User = get_user_model()
    staff = User.objects.create_user("sam", "sam@example.com", is_staff=True)
    editor = User.objects.create_user("ada", "ada@example.com")
    team = team_create(actor=staff, slug="ml", name="ML platform")
    team_add_member(actor=staff, team=team, user=editor, role=TeamMembership.Role.EDITOR)
    owners = [User.objects.create_user(f"o{i}", f"o{i}@example.com") for i in range(5)]
    for owner in owners:
        team_add_member(actor=staff, team=team, user=owner)
    TeamMembership.objects.filter(team=team).update(watch=False)  # alerts go to the profiles' owners only

    bulk_profiles(team, owners, count, eager_every=EAGER_EVERY)
    release = fleet_release()
    _, staff_key = token_create(actor=None, user=staff, name="faults")
    _, editor_key = token_create(actor=None, user=editor, name="faults")
    return {
        "staff_key": staff_key,
        "editor_key": editor_key,
        "profiles": count,
        "broken": len(range(0, count, EAGER_EVERY)),
        "broken_by_owner": {
            o.email: sum(1 for i in range(0, count, EAGER_EVERY) if i % len(owners) == n)
            for n, o in enumerate(owners)
        },
        "broken_names": [f"svc-{i:05d}" for i in range(0, count, EAGER_EVERY)],
        "release": release.version,
    }


if __name__ == "__main__":
    print(json.dumps(main()))
