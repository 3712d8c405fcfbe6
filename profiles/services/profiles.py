"""Profiles written: create, update, edit, delete, refresh their model configs, and the dry run behind
POST /api/v1/validate/ and `manage.py lint`.

Every save validates first: a profile with an error finding is refused with the findings document and
nothing is written; warnings are saved and returned.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F

from accounts import permissions
from accounts.audit import audit_event, audit_record
from hub import services as hub_services
from validation.errors import DomainError, UnknownRelease
from validation.models import VllmRelease
from validation.selectors import catalog_for, fleet_release, reference_pinned, release_get
from vllmcheck.engine import intake as engine_intake
from vllmcheck.engine import parse as engine_parse
from vllmcheck.engine import render as engine_render
from vllmcheck.engine.types import ParseError, Verdict

from .. import selectors
from ..models import Profile, ProfileRevision, Team, VerdictRule
from ..models import Verdict as VerdictRecord
from ..selectors import waived_rule_ids
from .rechecks import recheck_start
from .verdicts import (
    effective_release,
    profile_check,
    profile_document,
    verdict_record,
    verdict_rows_new,
)

EDITOR_ROLES = permissions.EDITOR_ROLES
KINDS = frozenset(Profile.Kind.values)  # the enum's ``values`` builds its list anew at each read


class ProfileInvalid(DomainError):
    """The profile has error findings: the API answers 400 with the findings document."""

    def __init__(self, verdict: Verdict):
        self.verdict = verdict
        errors = [f.message for f in verdict.findings if f.is_active and f.severity == "error"]
        super().__init__("; ".join(errors) or "invalid profile", code="invalid_profile")


class EditConflict(DomainError):
    def __init__(self, current: int, expected: int):
        self.current = current
        super().__init__(
            f"the profile was changed by someone else (revision {current}, you edited revision {expected}); "
            "reload it and apply your change again",
            field="revision",
            code="conflict",
        )


@dataclass
class ProfileInput:
    """What a user gives for a profile, in any of the accepted shapes (arguments, command, or config)."""

    kind: str | None = None
    name: str | None = None
    description: str | None = None
    model: str | None = None
    model_architecture: str | None = None
    model_config: dict[str, Any] | None = None
    vllm_version: str | None = None  # "" = follow the fleet default; None = unchanged
    engine_args: dict[str, Any] | None = None
    env: dict[str, Any] | None = None
    hardware: dict[str, Any] | None = None
    node_type: str | None = None  # a node type's name; "" = the team's default
    command: str | None = None
    config: str | None = None
    provided: set[str] = field(default_factory=set)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ProfileInput:
        known = {f for f in cls.__dataclass_fields__ if f != "provided"}
        values = {k: v for k, v in data.items() if k in known}
        return cls(**values, provided=set(values))


def launch_found(*, command: str | None, config: str | None) -> dict[str, Any] | None:
    """Where the intake step finds the vLLM launch(es) in what was pasted (its "found" record: form, lines,
    image, release, environment, variables, notes; or why nothing was checked), for the form's "What was
    found" panel; None for a vLLM config YAML or JSON, or a text whose launch cannot be split."""
    text = command or (config if config and engine_intake.form_of(config) != "shell" else None)
    if not text:
        return None
    versions = list(VllmRelease.objects.values_list("version", flat=True))
    try:
        return engine_intake.find_launches(text, releases=versions).found()
    except ParseError:
        return None


def parse_arguments(
    *,
    release: VllmRelease,
    command: str | None = None,
    config: str | None = None,
    engine_args: Mapping[str, Any] | None = None,
    env: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """{"model": name | None, "args": {...}, "env": {...}, "notes": [...]} from one of command, config,
    engine_args; notes are what the text says that its arguments cannot (a flag given twice)."""
    given = [n for n, v in (("command", command), ("config", config), ("engine_args", engine_args)) if v]
    if len(given) > 1:
        raise DomainError(f"give only one of command, config or engine_args (got {', '.join(given)})")
    catalog = catalog_for(release)
    field_name = "command" if command else "config"
    found: dict[str, Any] | None = None
    launch_notes: list[str] = []
    gpus: int | None = None
    if config and engine_intake.form_of(config) != "shell":
        command, config, field_name = config, None, "config"  # a compose file or Dockerfile given as config
    try:
        if command:
            intake = engine_intake.find_launches(command)
            found = intake.found()
            if not intake.launches and intake.not_checked:
                raise DomainError(
                    f"not checked: {intake.not_checked[0]}", field=field_name, code="not_checked"
                )
            if intake.launches:
                launch = intake.launches[0]
                launch_notes = list(launch.notes)
                if len(intake.launches) > 1:
                    launch_notes.append(
                        f"{len(intake.launches)} vLLM launches were found; this profile is the first "
                        f"(line {launch.line}); the others are lines "
                        + ", ".join(str(other.line) for other in intake.launches[1:])
                    )
                gpus = launch.gpus
                parsed = engine_parse.parse_command(launch.command, catalog=catalog)
            else:
                parsed = engine_parse.parse_command(command, catalog=catalog)
        elif config:
            if engine_parse.detect_format(config) == "json":
                parsed = engine_parse.parse_json(config, catalog=catalog)
            else:
                parsed = engine_parse.parse_config_yaml(config, catalog=catalog)
        else:
            args = {str(k).lstrip("-").replace("-", "_"): v for k, v in (engine_args or {}).items()}
            model = args.pop("model", None)
            return {"model": model, "args": args, "env": dict(env or {}), "notes": []}
    except ParseError as exc:
        raise DomainError(str(exc), field=field_name, code="parse_error") from exc
    model = (parsed.get("model") or {}).get("name")
    return {
        "model": model,
        "args": dict(parsed.get("args") or {}),
        "env": {**(parsed.get("env") or {}), **(env or {})},
        # What the text says that its arguments cannot (a flag given twice): for the form, never stored.
        "notes": launch_notes + [n["message"] for n in parsed.get("notes") or ()],
        "found": found,  # where the launch was found in the text (intake), None for config and engine_args
        "gpus": gpus,
    }


def profile_render(profile: Profile, *, fmt: str) -> str:
    """The profile as a `vllm serve` command, a vLLM --config YAML file, or JSON."""
    doc = profile_document(profile)
    catalog = catalog_for(effective_release(profile))
    if fmt == "command":
        return engine_render.render_command(doc, catalog=catalog)
    if fmt == "yaml":
        return engine_render.render_yaml(doc, catalog=catalog)
    if fmt == "json":
        return json.dumps(profile_snapshot(profile), indent=2, sort_keys=True)
    raise DomainError(f"unknown format {fmt!r}; use command, yaml or json", field="format")


def profile_snapshot(profile: Profile) -> dict[str, Any]:
    """What a revision records: the team and every field a user edits, by their API names."""
    snapshot: dict[str, Any] = {"team": profile.team.slug}
    for name in Profile.EDITABLE_FIELDS:
        value = getattr(profile, name)
        if name == "vllm_release":
            value = value.version if value else ""  # "": follows the fleet
        elif name == "node_type":
            value = value.name if value else ""  # "": the team's default
        snapshot[Profile.API_NAMES.get(name, name)] = value
    return snapshot


def profile_copy(profile: Profile, **changes) -> Profile:
    """An unsaved copy of ``profile``: its team and every field a user edits, with ``changes`` applied."""
    fields = {name: getattr(profile, name) for name in Profile.EDITABLE_FIELDS}
    # the stored model configs it reads come along: a copy is checked without going to the network
    fields.update(model_source=profile.model_source, draft_source=profile.draft_source)
    return Profile(team=profile.team, **{**fields, **changes})


def _apply_input(profile: Profile, data: ProfileInput, *, fetch_models: bool = True) -> None:
    """Copy the given fields onto an unsaved profile, parsing command/config with the target release."""
    if "kind" in data.provided:
        if data.kind not in KINDS:
            raise DomainError("kind must be 'serving' or 'collection'", field="kind")
        profile.kind = data.kind
    for attr, key in (("name", "name"), ("description", "description")):
        if key in data.provided:
            setattr(profile, attr, (getattr(data, key) or "").strip())
    if "model_architecture" in data.provided:
        profile.model_architecture = (data.model_architecture or "").strip()
    if "model_config" in data.provided:
        if data.model_config is not None and not isinstance(data.model_config, dict):
            raise DomainError(
                "model_config must be a JSON object (the model's config.json)", field="model_config"
            )
        profile.model_config = data.model_config or None
    if "hardware" in data.provided:
        profile.hardware = dict(data.hardware or {})
    if "vllm_version" in data.provided:
        version = (data.vllm_version or "").strip()
        profile.vllm_release = release_get(version) if version else None
    release_note = None
    if data.command and not (data.vllm_version or "").strip():
        release_note = _release_from_image(profile, data.command)
    if data.command or data.config or "engine_args" in data.provided:
        parsed = parse_arguments(
            release=effective_release(profile),
            command=data.command,
            config=data.config,
            engine_args=data.engine_args if not (data.command or data.config) else None,
            env=data.env if "env" in data.provided else None,
        )
        profile.engine_args = parsed["args"]
        profile.parse_notes = ([release_note] if release_note else []) + parsed["notes"]
        profile.intake_found = parsed.get("found")  # not stored: the validate API returns it
        if parsed.get("gpus") and "hardware" not in data.provided and not profile.hardware:
            profile.hardware = {"gpus_per_node": parsed["gpus"]}
        profile.env = {str(k): str(v) for k, v in parsed["env"].items()}
        if parsed["model"]:
            profile.model_name = str(parsed["model"])
    elif "env" in data.provided:
        profile.env = {str(k): str(v) for k, v in (data.env or {}).items()}
    if "model" in data.provided and data.model:
        profile.model_name = data.model.strip()
    if "node_type" in data.provided:
        name = (data.node_type or "").strip()
        profile.node_type = _node_type(name) if name else None
    if not profile.name:
        made = profile_name_from_model(profile.model_name)
        hint = f" ({made!r} would do, made from its model)" if made else ""
        raise DomainError(f"a profile needs a name{hint}", field="name")
    if not profile.model_name:
        raise DomainError("a profile needs a model (the positional model of `vllm serve`)", field="model")
    if not profile.kind:
        raise DomainError("kind must be 'serving' or 'collection'", field="kind")
    model_sources_resolve(profile, fetch=fetch_models, store=False)


def _release_from_image(profile: Profile, command: str) -> str | None:
    """The release an image tag in the command names (``vllm/vllm-openai:v0.9.2``), set on the profile when
    none is given; the nearest release with a catalog when that one has none. The note that says so."""
    try:
        launches = engine_intake.find_launches(command).launches
    except ParseError:
        return None
    tagged = next((launch for launch in launches if launch.release), None)
    if tagged is None:
        return None
    try:
        profile.vllm_release = release_get(tagged.release)
        return f"release {tagged.release} from the image tag {tagged.image}"
    except UnknownRelease:
        versions = list(VllmRelease.objects.values_list("version", flat=True))
        nearest = engine_intake.nearest_release(tagged.release, versions)
        if nearest is None:
            return None
        profile.vllm_release = release_get(nearest)
        return (
            f"release {tagged.release} (image {tagged.image}) has no catalog here: checked against "
            f"{nearest}, the nearest release that has one"
        )


def _node_type(name: str):
    try:
        return hub_services.node_type_get(name)
    except hub_services.HubError as exc:
        raise DomainError(exc.message, field=exc.field) from exc


def model_sources_resolve(
    profile: Profile, *, refresh: bool = False, fetch: bool = True, store: bool = True
) -> None:
    """Point the profile at the config.json of its model and draft model, fetching what is missing (a save
    or a dry run, never a re-check; ``fetch=False``: what is stored only, for the form's live findings).
    With ``store=False`` what is fetched is not stored (a dry run, or a save before it is known to go
    through: :func:`_model_sources_keep` stores it then). A config pasted with the profile still wins."""
    if engine_intake.unknown_reference(profile.model_name):
        profile.model_source = profile.draft_source = None  # `vllm serve $MODEL`: no model to look up
        return
    if refresh:
        hub_services.model_sources_refresh(profile.model_name, profile.engine_args)
    rows = hub_services.model_sources_resolve(
        profile.model_name, profile.engine_args, fetch=fetch, store=store
    )
    profile.model_source, profile.draft_source = rows["model"], rows["draft"]


def _model_sources_keep(profile: Profile) -> None:
    """The save goes through: store the model configs its dry run fetched (kept in the cache until now)."""
    profile.model_source = hub_services.model_config_keep(profile.model_source)
    profile.draft_source = hub_services.model_config_keep(profile.draft_source)


def _active_waivers(profile: Profile) -> list[str]:
    if profile.pk is None:
        return []
    return waived_rule_ids(profile)


def profile_create(
    *,
    actor,
    team: Team,
    data: ProfileInput,
    stamp: tuple | None = None,
    source: dict[str, Any] | None = None,
    cause_detail: str = "",
) -> tuple[Profile, Verdict]:
    """Validate and store a new profile. ``stamp``: the reference stamp as the request read it already
    (with its API token), saving that query. ``source``: where it was imported from (a manifest);
    ``cause_detail``: what its first history entry says it was created from."""
    permissions.require(
        permissions.can_edit_team(actor, team),
        f"you may not create profiles in team {team.slug!r}",
        field="team",
    )
    profile = Profile(team=team, owner=actor, revision=1)
    # One query (or none) for the release, the fleet and the rule set; what the save writes changes none.
    with reference_pinned(stamp):
        _apply_input(profile, data)
        verdict, release = profile_check(profile)
        if not verdict.valid:
            raise ProfileInvalid(verdict)
        if source is not None:
            profile.source = source
        _model_sources_keep(profile)
        try:
            _store_new(profile, actor=actor, verdict=verdict, release=release, cause_detail=cause_detail)
        except IntegrityError as exc:
            raise _name_taken(profile) from exc
    return profile, verdict


def profile_create_by_slug(
    *, actor, team_slug: str, data: ProfileInput, stamp: tuple | None = None
) -> tuple[Profile, Verdict] | None:
    """:func:`profile_create` in the team named ``team_slug`` (None: there is no such team)."""
    team = selectors.team_by_slug(team_slug)
    if team is None:
        return None
    return profile_create(actor=actor, team=team, data=data, stamp=stamp)


JSON_FIELDS = ("model_config", "engine_args", "env", "hardware", "source", "parse_notes")


def _store_new(
    profile: Profile, *, actor, verdict: Verdict, release: VllmRelease, cause_detail: str = ""
) -> None:
    """Save a new profile with its first revision, its audit entry and its verdict (check row, rule index,
    first history entry), in one transaction: the rows :func:`_store` writes for an edit. Afterwards
    ``profile`` holds its JSON fields and ``profile.verdict`` its findings as a later read gives them (the
    database's key order and numbers), so the API answers with the profile without reading it all again."""
    check, record, *rules, change = verdict_rows_new(
        profile=profile,
        verdict=verdict,
        release=release,
        cause="created",
        cause_detail=cause_detail[:200],
        actor=actor,
    )
    with transaction.atomic():
        profile.save(force_insert=True)
        for row in _revision_rows(profile, actor=actor, before=None):
            row.save(force_insert=True)
        record.save(force_insert=True)  # the verdict's key is its profile's
        check.verdict_id = profile.pk
        check.save(force_insert=True)
        for row in [*rules, change]:
            row.profile_id = profile.pk
        VerdictRule.objects.bulk_create(rules)
        change.save(force_insert=True)
    *stored, findings = (
        Profile.objects.filter(pk=profile.pk).values_list(*JSON_FIELDS, "verdict__findings").get()
    )
    for name, value in zip(JSON_FIELDS, stored, strict=True):
        setattr(profile, name, value)
    record.findings = findings


def _revision_rows(profile: Profile, *, actor, before: dict[str, Any] | None) -> tuple[ProfileRevision, Any]:
    """The unsaved revision holding the profile's snapshot, and the audit entry of the change (``before``:
    the snapshot before an edit, None for a new profile, whose key the insert fills in)."""
    after = profile_snapshot(profile)
    # The profile by its key (a new one's is filled in by the insert): nothing reads the revision's profile.
    revision = ProfileRevision(profile_id=profile.pk, revision=profile.revision, data=after, author=actor)
    entry = audit_event(
        actor=actor,
        action="profile.create" if before is None else "profile.update",
        object_type="profile",
        object_id=profile.pk,
        object_repr=f"{profile.team.slug}/{profile.name}",
        team=profile.team,
        before=before,
        after={**after, "revision": profile.revision},
    )
    return revision, entry


def _store(
    profile: Profile,
    *,
    actor,
    verdict: Verdict,
    release: VllmRelease,
    cause: str,
    detail: str = "",
    before: dict[str, Any] | None = None,
):
    """Save a profile with its revision's snapshot, its verdict and its audit entry (``before``: the snapshot
    before an edit, None for a profile synced from Git for the first time), in the caller's transaction;
    returns the history entry, if the verdict changed."""
    profile.save()
    for row in _revision_rows(profile, actor=actor, before=before):
        row.save(force_insert=True)
    return verdict_record(
        profile=profile,
        verdict=verdict,
        release=release,
        ruleset_number=verdict.ruleset,
        cause=cause,
        cause_detail=detail,
        actor=actor,
    )


def _model_sources_store(profile: Profile, *, actor, verdict: Verdict, release: VllmRelease) -> None:
    """A save that changed nothing but found the model's config (a profile older than its resolution): keep
    the config it now reads and its verdict; no new revision."""
    with transaction.atomic():
        Profile.objects.filter(pk=profile.pk).update(
            model_source=profile.model_source, draft_source=profile.draft_source
        )
        verdict_record(
            profile=profile,
            verdict=verdict,
            release=release,
            ruleset_number=verdict.ruleset,
            cause="manual",
            cause_detail="model config resolved",
            actor=actor,
        )


def _name_taken(profile: Profile) -> DomainError:
    return DomainError(
        f"team {profile.team.slug!r} already has a profile named {profile.name!r}",
        field="name",
        code="unique",
    )


def profile_update(
    *, actor, profile: Profile, data: ProfileInput, expected_revision: int | None = None
) -> tuple[Profile, Verdict]:
    permissions.require(
        permissions.can_edit_team(actor, profile.team_id),
        f"you may not edit profiles of team {profile.team.slug!r}",
    )
    origin = profile.source or {}
    if origin.get("type") == "git":
        raise DomainError(
            f"this profile is synced from Git ({origin.get('url')}, {origin.get('path')}): edit it in Git",
            code="read_only",
        )
    if expected_revision is not None and expected_revision != profile.revision:
        raise EditConflict(profile.revision, expected_revision)
    before = profile_snapshot(profile)
    sources = (profile.model_source_id, profile.draft_source_id)
    with reference_pinned():  # the read phase: one query for the release, the fleet and the rule set
        _apply_input(profile, data)
        verdict, release = profile_check(profile, waived=_active_waivers(profile))
    if not verdict.valid:
        raise ProfileInvalid(verdict)
    _model_sources_keep(profile)
    if profile_snapshot(profile) == before:
        if sources != (profile.model_source_id, profile.draft_source_id):
            _model_sources_store(profile, actor=actor, verdict=verdict, release=release)
        return profile, verdict
    try:
        with transaction.atomic():
            # Optimistic lock: only one of two concurrent saves of the same revision wins.
            seen = profile.revision
            updated = Profile.objects.filter(pk=profile.pk, revision=seen).update(revision=F("revision") + 1)
            if not updated:
                current = Profile.objects.values_list("revision", flat=True).get(pk=profile.pk)
                raise EditConflict(current, seen)
            profile.revision = seen + 1
            detail = f"revision {profile.revision}"
            _store(
                profile,
                actor=actor,
                verdict=verdict,
                release=release,
                cause="edit",
                detail=detail,
                before={**before, "revision": seen},
            )
    except IntegrityError as exc:
        raise _name_taken(profile) from exc
    return profile, verdict


# A replacing edit (PUT) empties what it leaves out, where a partial one (PATCH) keeps it.
EMPTY_WHEN_REPLACED = {
    "engine_args": {},
    "env": {},
    "hardware": {},
    "description": "",
    "model_architecture": "",
    "node_type": "",
}


def profile_edit(
    *, actor, profile: Profile, data: Mapping[str, Any], partial: bool
) -> tuple[Profile, Verdict]:
    """An edit as the API takes it: ``partial`` (PATCH) changes the fields it gives; otherwise (PUT) it
    replaces the profile, so the arguments, environment, hardware, description and architecture it
    leaves out are emptied. ``team``, if given, must be the profile's own; ``revision`` is the one edited."""
    values = dict(data)
    team = values.pop("team", None)
    if team is not None and team != profile.team.slug:
        raise DomainError("a profile cannot move to another team", field="team")
    expected = values.pop("revision", None)
    if not partial:
        values = {**EMPTY_WHEN_REPLACED, **values}
        if values.get("command") or values.get("config"):
            values.pop("engine_args")  # the arguments come from the command or the config file
    return profile_update(
        actor=actor, profile=profile, data=ProfileInput.from_mapping(values), expected_revision=expected
    )


def profile_model_refresh(*, actor, profile: Profile):
    """Fetch the profile's model and draft configs again and re-check every profile that reads them (this
    one at once, in this process). Returns the stored configs."""
    permissions.require(
        permissions.can_edit_team(actor, profile.team_id),
        f"you may not edit profiles of team {profile.team.slug!r}",
    )
    before = {row.pk: (row.config, row.error) for row in (profile.model_source, profile.draft_source) if row}
    model_sources_resolve(profile, refresh=True)
    Profile.objects.filter(pk=profile.pk).update(
        model_source=profile.model_source, draft_source=profile.draft_source
    )
    rows = [row for row in (profile.model_source, profile.draft_source) if row is not None]
    with transaction.atomic():
        for row in rows:
            if before.get(row.pk) != (row.config, row.error):
                hub_services.profiles_recheck(row)
        recheck_start(cause="manual", verdicts=VerdictRecord.objects.filter(profile=profile), inline=True)
    return rows


def profile_delete(*, actor, profile: Profile) -> None:
    permissions.require(
        permissions.can_edit_team(actor, profile.team_id),
        f"you may not delete profiles of team {profile.team.slug!r}",
    )
    with transaction.atomic():
        audit_record(
            actor=actor,
            action="profile.delete",
            object_type="profile",
            object_id=profile.pk,
            object_repr=f"{profile.team.slug}/{profile.name}",
            team=profile.team,
            before={**profile_snapshot(profile), "revision": profile.revision},
        )
        profile.delete()


def profile_dry_run(
    *, data: ProfileInput, fetch_models: bool = True, team: Team | None = None, stamp: tuple | None = None
) -> Verdict:
    """Validate a profile without storing it (POST /api/v1/validate/, `manage.py lint`, the form's live
    findings, which pass ``fetch_models=False`` so typing never waits for the Hub). ``stamp``: the
    reference stamp as the request read it already (with its API token), saving that query."""
    return profile_dry_run_found(data=data, fetch_models=fetch_models, team=team, stamp=stamp)[0]


def profile_dry_run_found(
    *, data: ProfileInput, fetch_models: bool = True, team: Team | None = None, stamp: tuple | None = None
) -> tuple[Verdict, dict[str, Any] | None]:
    """``profile_dry_run`` and where the intake step found the launch in a command text (its "found"
    record: form, line, image, release, environment, variables, notes), None for config and engine_args."""
    profile = Profile(kind=data.kind or "serving", name=data.name or "(dry run)", revision=0, team=team)
    if not (data.name or "").strip():
        # A dry run needs no name (the form checks what is typed before a name is): only a save asks for one.
        data = copy.copy(data)
        data.provided = data.provided - {"name"}
    with reference_pinned(stamp):  # one query (or none) for the release, the fleet and the rule set
        _apply_input(profile, data, fetch_models=fetch_models)
        verdict, _ = profile_check(profile)
    return verdict, getattr(profile, "intake_found", None)


def profile_name_from_model(model: str | None) -> str:
    """A profile name made from a model id: its last path part, lower-case, every run of other characters
    than letters and digits made one dash (``meta-llama/Llama-3.1-8B-Instruct`` -> ``llama-3-1-8b-instruct``);
    "" when nothing is left."""
    last = (model or "").strip().rstrip("/").rsplit("/", 1)[-1]
    return re.sub(r"[^a-z0-9]+", "-", last.lower()).strip("-")[:200]


def profile_name_suggest(data: ProfileInput, *, team: Team | None = None) -> str:
    """The name to offer for a profile being typed without one: made from its model (the command's or the
    config's, else the ``model`` field), unique in ``team`` (``-2``, ``-3``... added); "" when no model can
    be read from it."""
    model = (data.model or "").strip()
    if not model and (data.command or data.config):
        version = (data.vllm_version or "").strip()
        try:
            release = release_get(version) if version else fleet_release()
            model = parse_arguments(release=release, command=data.command, config=data.config)["model"] or ""
        except DomainError:
            return ""
    base = profile_name_from_model(str(model))
    if not base or team is None:
        return base
    taken = set(Profile.objects.filter(team=team, name__startswith=base).values_list("name", flat=True))
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    return name


def input_shape(text: str) -> str:
    """'command' for a `vllm serve` line, a script, a Dockerfile or a compose file (what the intake step
    reads), else 'config' (a vLLM --config YAML file, or JSON)."""
    if engine_intake.form_of(text) != "shell":
        return "command"
    return "command" if engine_parse.detect_format(text) == "command" else "config"
