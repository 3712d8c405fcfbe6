"""Many stored, valid profiles at once (one evaluation, bulk inserts), as an organisation would have them: the
pipeline tests and the fault tests' template database both start from such a fleet."""

from __future__ import annotations

from profiles.models import Profile, ProfileRevision, Verdict, VerdictCheck
from profiles.services.verdicts import document_validate, findings_digest, profile_document
from validation.selectors import fleet_release, ruleset_current


def bulk_profiles(team, owners, count, *, eager_every=0, start=0):
    """Many valid profiles at once (one evaluation, bulk inserts), as an organisation would have stored."""
    profiles = []
    for i in range(start, start + count):
        eager = bool(eager_every) and i % eager_every == 0
        args = {"max_model_len": 4096 + i}
        if eager:
            args["enforce_eager"] = True
        profiles.append(
            Profile(
                team=team,
                name=f"svc-{i:05d}",
                kind="serving",
                owner=owners[i % len(owners)],
                model_name="org/model",
                engine_args=args,
            )
        )
    release = fleet_release()
    ruleset = ruleset_current()
    plain = next((p for p in profiles if not p.engine_args.get("enforce_eager")), profiles[0])
    sample = document_validate(profile_document(plain, release=release), release=release)
    assert sample.valid
    for profile in profiles:
        profile.state = sample.state  # the list summary verdict_record keeps on the profile
    Profile.objects.bulk_create(profiles, batch_size=2000)
    Verdict.objects.bulk_create(
        [
            Verdict(
                profile=p,
                state=sample.state,
                findings=[f.as_dict() for f in sample.findings],
                findings_sha256=findings_digest([f.as_dict() for f in sample.findings]),
                profile_revision=1,
            )
            for p in profiles
        ],
        batch_size=2000,
    )
    VerdictCheck.objects.bulk_create(
        [
            VerdictCheck(
                verdict_id=p.pk,
                ruleset=ruleset,
                release=release,
                release_catalog_sha256=release.catalog_sha256,
            )
            for p in profiles
        ],
        batch_size=2000,
    )
    ProfileRevision.objects.bulk_create(
        [ProfileRevision(profile=p, revision=1, data={}) for p in profiles], batch_size=2000
    )
    return profiles
