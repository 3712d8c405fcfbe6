"""A mixed profile (serving and training arguments together) split into one profile of each kind."""

from __future__ import annotations

from django.db import transaction

from validation.errors import DomainError
from vllmcheck.engine.types import Verdict

from ..models import Profile
from .profiles import ProfileInput, profile_create, profile_dry_run, profile_snapshot


class SplitInvalid(DomainError):
    """One of the two profiles of a split has errors: nothing was saved; both verdicts are given."""

    def __init__(self, verdicts: dict[str, Verdict]):
        self.verdicts = verdicts
        bad = [kind for kind, verdict in verdicts.items() if not verdict.valid]
        message = f"the {' and '.join(bad)} profile would be invalid; nothing was saved"
        super().__init__(message, code="invalid")


def profile_is_mixed(profile: Profile) -> bool:
    """Serving and collection in one: sampling masks together with speculative decoding."""
    args = profile.engine_args or {}
    return bool(args.get("return_sampling_mask")) and bool(args.get("speculative_config"))


def profile_split_plan(profile: Profile) -> dict[str, ProfileInput]:
    """The two profiles that replace a mixed one, as the vLLM error record recommends: a serving profile that
    keeps speculative decoding without masks, and a collection profile that keeps the masks with
    logprobs_mode=processed_logprobs and no speculative decoding."""
    args = dict(profile.engine_args or {})
    serving_args = {k: v for k, v in args.items() if k != "return_sampling_mask"}
    collection_args = {k: v for k, v in args.items() if k != "speculative_config"}
    collection_args.update(return_sampling_mask=True, logprobs_mode="processed_logprobs")
    common = {**profile_snapshot(profile), "description": f"Split from {profile.team.slug}/{profile.name}."}
    return {
        kind: ProfileInput.from_mapping(
            {**common, "kind": kind, "name": f"{profile.name}-{kind}", "engine_args": kind_args}
        )
        for kind, kind_args in (("serving", serving_args), ("collection", collection_args))
    }


def profile_split_check(profile: Profile) -> dict[str, Verdict]:
    return {kind: profile_dry_run(data=data) for kind, data in profile_split_plan(profile).items()}


def profile_split(*, actor, profile: Profile) -> dict[str, tuple[Profile, Verdict]]:
    """Create the serving and the collection profile of a mixed one, both or neither (one transaction)."""
    if not profile_is_mixed(profile):
        raise DomainError("only a profile with both return_sampling_mask and speculative_config can be split")
    verdicts = profile_split_check(profile)
    if not all(verdict.valid for verdict in verdicts.values()):
        raise SplitInvalid(verdicts)
    plan = profile_split_plan(profile)
    with transaction.atomic():
        return {
            kind: profile_create(actor=actor, team=profile.team, data=data) for kind, data in plan.items()
        }
