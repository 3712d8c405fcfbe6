"""Pages of the dashboard: parse the request, call a selector or a service, render a template.

Each page works as plain HTML forms and links; htmx (static/vendor) only swaps fragments in place.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, time

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST
from packaging.version import Version

from accounts import permissions
from accounts.permissions import Role
from validation.errors import DomainError
from validation.models import Rule
from validation.selectors import (
    fleet_release,
    reference_pinned,
    release_get,
    releases_ordered,
    ruleset_current,
)
from vllmcheck import edits
from vllmcheck.engine.types import SEVERITIES

from . import manifest_services, selectors, services, upgrade_services
from .filters import ProfileFilter
from .forms import (
    ListOptionsForm,
    ManifestImportForm,
    MemberAddForm,
    MemberForm,
    ProfileForm,
    SsoGroupsForm,
    TeamForm,
    WaiverForm,
)
from .models import Profile, Team, Verdict, Waiver
from .services import matrix as release_matrix
from .services import waivers as waiver_services
from .services.verdicts import profile_hardware, profile_memory

ARG_FIELDS = {"command", "config", "engine_args", "model", "env"}


# --- helpers --------------------------------------------------------------------------------------------


def _is_fragment(request) -> bool:
    """An htmx swap (not a history restore, which needs the whole page)."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not htmx.history_restore_request


def _editable_team_slugs(user) -> list[str]:
    team_ids = permissions.editable_team_ids(user)
    teams = Team.objects.all() if team_ids is None else Team.objects.filter(pk__in=team_ids)
    return list(teams.order_by("slug").values_list("slug", flat=True))


def _grouped(findings) -> list[tuple[str, list[dict]]]:
    """Findings by severity (errors first), as (severity, [finding]) for the templates."""
    dicts = [f if isinstance(f, dict) else f.as_dict() for f in findings]
    return [
        (sev, [f for f in dicts if f["severity"] == sev])
        for sev in SEVERITIES
        if any(f["severity"] == sev for f in dicts)
    ]


def unverifiable(finding: dict) -> bool:
    """An info that a check could not be decided for want of a fact (the findings panel folds these)."""
    return finding.get("severity") == "info" and (
        bool(finding.get("missing")) or str(finding.get("message", "")).startswith("could not verify")
    )


def _arg_rows(args: dict, findings) -> list[dict]:
    """Engine arguments as table rows, each with the active findings that concern it."""
    dicts = [f if isinstance(f, dict) else f.as_dict() for f in findings]
    rows = []
    for name in sorted(args):
        concerns = [
            f
            for f in dicts
            if not f.get("waived")
            and not unverifiable(f)  # shown once, folded, in the findings panel
            and any(field == name or field.startswith(name + ".") for field in f["fields"])
        ]
        worst = min((SEVERITIES.index(f["severity"]) for f in concerns), default=None)
        rows.append(
            {
                "name": name,
                "value": args[name],
                "findings": concerns,
                "severity": SEVERITIES[worst] if worst is not None else "",
            }
        )
    return rows


def _unplaced(findings, args: dict) -> list[dict]:
    """Active findings about fields that are not among the set arguments (e.g. a missing env variable)."""
    dicts = [f if isinstance(f, dict) else f.as_dict() for f in findings]
    return [
        f
        for f in dicts
        if not f.get("waived")
        and f["severity"] != "info"
        and not any(field.split(".")[0] in args for field in f["fields"])
    ]


def _form_error(form, exc: DomainError) -> None:
    field = exc.field if exc.field in form.fields else ("source" if exc.field in ARG_FIELDS else None)
    form.add_error(field, exc.message)


# --- list -------------------------------------------------------------------------------------------------


@login_required
def profile_list(request):
    """The profiles the user may see, filtered (``ProfileFilter``, as the API), counted by state, one page."""
    # One read of the fleet's release and the current rule set for the page, its header included.
    with reference_pinned():
        return _profile_list(request)


def _profile_list(request):
    user = request.user
    teams = list(selectors.teams_visible_to(user).order_by("slug").values_list("id", "slug"))
    filters = ProfileFilter(
        request.GET or None,
        queryset=selectors.profiles_listed_for(user, team_ids=[pk for pk, _ in teams]),
        teams=[slug for _, slug in teams],
        releases=list(releases_ordered().values_list("version", flat=True)),
    )
    ordering, size = ListOptionsForm(request.GET or None).options()
    state = filters.value("state")
    # One GROUP BY for the summary strip, under every filter but the state; it also gives the total, so the
    # pages need no COUNT(*).
    counts = selectors.profile_state_counts(filters.queryset_without("state"))
    total = counts[state] if state else sum(counts.values())
    num_pages = max(1, math.ceil(total / size))
    number = _page_number(request, num_pages)
    rows = selectors.profiles_page(filters.qs, ordering=ordering, number=number, size=size, matches=total)
    params = request.GET.copy()
    params.pop("page", None)
    context = {
        "form": filters.form,
        "options": ListOptionsForm(request.GET or None),
        "rows": rows,
        "fleet_release": fleet_release(),
        **_state_summary(params, counts, state),
        "total": total,
        "rule_ids": list(
            Rule.objects.filter(ruleset=ruleset_current())
            .order_by("rule_id")
            .values_list("rule_id", flat=True)
        ),
        "page": {
            "number": number,
            "num_pages": num_pages,
            "previous": _page_query(params, number - 1) if number > 1 else None,
            "next": _page_query(params, number + 1) if number < num_pages else None,
            "first_index": (number - 1) * size + 1 if rows else 0,
            "last_index": (number - 1) * size + len(rows),
        },
        "can_create": bool(_editable_team_slugs(user)) if not rows else True,
    }
    template = "profiles/_results.html" if _is_fragment(request) else "profiles/list.html"
    return render(request, template, context)


def _page_number(request, num_pages: int) -> int:
    """The requested page, within 1..num_pages (1 if it is not a number)."""
    try:
        return min(max(1, int(request.GET.get("page", 1))), num_pages)
    except ValueError:
        return 1


def _state_summary(params: QueryDict, counts: dict[str, int], state: str | None) -> dict:
    """The summary strip: a link per state with its count, and the link to every state."""
    others = params.copy()
    others.pop("state", None)
    summary = []
    for name in Verdict.State.values:
        link = others.copy()
        link["state"] = name
        summary.append(
            {"state": name, "count": counts[name], "query": link.urlencode(), "active": name == state}
        )
    return {"summary": summary, "all_query": others.urlencode(), "total_all": sum(counts.values())}


def _page_query(params: QueryDict, number: int) -> str:
    query = params.copy()
    query["page"] = str(number)
    return query.urlencode()


# --- detail -------------------------------------------------------------------------------------------------


def _visible_profile(request, pk: int) -> Profile:
    return get_object_or_404(selectors.profiles_visible_to(request.user), pk=pk)


@login_required
def profile_detail(request, pk: int):
    profile = _visible_profile(request, pk)
    verdict = getattr(profile, "verdict", None)
    findings = verdict.findings if verdict else []
    revisions = list(profile.revisions.select_related("author").order_by("-revision")[:21])
    history = [
        {
            "revision": rev,
            "diff": edits.snapshot_diff(older.data, rev.data) if older is not None else None,
        }
        for rev, older in zip(revisions[:20], [*revisions[1:], None], strict=False)
    ]
    can_waive = waiver_services.user_can_request_waiver(request.user, profile)
    waivers = list(profile.waivers.select_related("granted_by", "requested_by"))
    for w in waivers:
        w.can_approve = waiver_services.user_can_approve(request.user, w)
        w.can_revoke = waiver_services.user_can_revoke(request.user, w)
    waivable = sorted({f["rule"] for f in findings if f["severity"] != "info" and not f.get("waived")})
    context = {
        "profile": profile,
        "verdict": verdict,
        "state": verdict.state if verdict else Verdict.State.UNVERIFIED,
        "groups": _grouped(findings),
        "args": _arg_rows(profile.engine_args, findings),
        "memory": profile_memory(profile),
        "command": services.profile_render(profile, fmt="command"),
        "yaml": services.profile_render(profile, fmt="yaml"),
        "changes": list(profile.state_changes.select_related("actor", "release", "ruleset")[:50]),
        "history": history,
        "waivers": waivers,
        "now": timezone.now(),
        "can_edit": permissions.can_edit_team(request.user, profile.team_id),
        "can_waive": can_waive,
        "waiver_form": WaiverForm(rule_ids=waivable) if can_waive and waivable else None,
        "mixed": services.profile_is_mixed(profile),
        "hardware": profile_hardware(profile),
        "model_sources": [
            (role, row)
            for role, row in (("model", profile.model_source), ("draft model", profile.draft_source))
            if row is not None
        ],
    }
    return render(request, "profiles/detail.html", context)


@login_required
def profile_upgrade_path(request, pk: int):
    """What breaks on the way from the profile's release to ``?to=`` (default: the newest), release by
    release, with a proposed revision. A fragment for the profile page (htmx), or a page of its own."""
    profile = _visible_profile(request, pk)
    start = upgrade_services.profile_release_version(profile)
    newer = [v for v in upgrade_services.catalog_versions() if Version(v) > Version(start)]
    target = (request.GET.get("to") or "").strip() or (newer[-1] if newer else "")
    context = {"profile": profile, "start": start, "targets": newer, "target": target, "path": None}
    if target:
        try:
            context["path"] = upgrade_services.profile_upgrade_path(profile, target=target)
        except DomainError as exc:
            context["error"] = exc.message
    if _is_fragment(request):
        return render(request, "profiles/_upgrade_path.html", context)
    return render(request, "profiles/upgrade_path.html", context)


@login_required
def profile_release_matrix(request, pk: int):
    """The profile on every release with a catalog: valid, warning or invalid, with the first finding of
    each. A fragment for the profile page (htmx), or a page of its own."""
    profile = _visible_profile(request, pk)
    context = {"profile": profile, "matrix": release_matrix.profile_release_matrix(profile)}
    if _is_fragment(request):
        return render(request, "profiles/_release_matrix.html", context)
    return render(request, "profiles/release_matrix.html", context)


# --- create, edit, live validation -----------------------------------------------------------------------


_FOUND_FORMS = {
    "command": "a command line",
    "script": "a shell script",
    "docker": "a container run (docker run, podman run)",
    "compose": "a compose service",
    "dockerfile": "a Dockerfile's ENTRYPOINT / CMD",
    "python": "Python code",
}
_SECRET_NAME = ("TOKEN", "KEY", "SECRET", "PASSWORD")


def _line_ranges(numbers: list[int]) -> str:
    ranges: list[str] = []
    for n in numbers:
        if ranges and n == int(ranges[-1].split("–")[-1]) + 1:
            ranges[-1] = f"{ranges[-1].split('–')[0]}–{n}"
        else:
            ranges.append(str(n))
    return ", ".join(ranges)


def _found_panel(found: dict | None, text: str) -> dict | None:
    """The "What was found" panel: for each launch the intake step found in what was pasted, where (lines,
    form, image and release), the environment it kept (secrets' values hidden), the variables it left open
    or filled, its notes; and the lines it did not read as a launch."""
    if not found or (found["form"] == "command" and not found["not_checked"] and not _says_more(found)):
        return None  # a plain `vllm serve ...` line: nothing to say beyond the arguments table
    launches, covered = [], set()
    for launch in found["launches"]:
        covered.update(range(launch["line"], launch["last_line"] + 1))
        launches.append(
            {
                **launch,
                "form_label": _FOUND_FORMS.get(launch["form"], launch["form"]),
                "lines": _line_ranges(list(range(launch["line"], launch["last_line"] + 1))),
                "env": [
                    (k, "(hidden)" if any(s in k.upper() for s in _SECRET_NAME) and v else v or '""')
                    for k, v in launch["environment"].items()
                ],
                "variables": sorted(launch["variables"].items()),
            }
        )
    lines = text.replace("\r\n", "\n").split("\n")
    ignored = [n for n, line in enumerate(lines, start=1) if line.strip() and n not in covered]
    return {
        "launches": launches,
        "not_checked": found["not_checked"],
        "ignored": _line_ranges(ignored) if launches else "",
        "ignored_count": len(ignored),
    }


def _says_more(found: dict) -> bool:
    """Whether a one-line command's record says more than its arguments do (environment, variables, notes)."""
    return any(
        launch["environment"] or launch["variables"] or launch["notes"] or launch["line"] != 1
        for launch in found["launches"]
    )


def _live_context(form: ProfileForm, team: Team | None = None) -> dict:
    """Validate what the form holds right now (nothing is saved) for the findings panel."""
    data = form.profile_input(for_validation=True, hardware=None)
    team = (
        team
        or Team.objects.filter(slug=form.data.get("team") or "").select_related("default_node_type").first()
    )
    if not (data.command or data.config):
        return {"empty": True}
    found = _found_panel(
        services.launch_found(command=data.command, config=data.config), data.command or data.config or ""
    )
    live = _checked_context(data, team)
    if found:
        live["found"] = found
        said = {note for launch in found["launches"] for note in launch["notes"]}
        live["notes"] = [note for note in live.get("notes", ()) if note not in said]  # said in the panel
    return live


def _checked_context(data, team: Team | None) -> dict:
    try:
        version = (data.vllm_version or "").strip()
        release = release_get(version) if version else fleet_release()
        parsed = services.parse_arguments(release=release, command=data.command, config=data.config)
        verdict = services.profile_dry_run(data=data, fetch_models=False, team=team)
    except DomainError as exc:
        if exc.code == "parse_error":
            return {"parse_error": exc.message}
        # Not the text's fault (no model, an unknown release...): said as a problem of that field.
        return {"problem": exc.message, "problem_field": exc.field or ""}
    live = {**_verdict_context(verdict, parsed["args"]), "notes": parsed["notes"]}
    if not (data.name or "").strip():
        live["name_suggestion"] = services.profile_name_suggest(data, team=team)
    return live


def _name_missing(form: ProfileForm, team: Team | None) -> None:
    """A form saved without a name: the error says so on the name field, and a name made from the model is
    filled in (kept or changed by the user, then saved again)."""
    if (form.data.get("name") or "").strip() or not form.data.get("source"):
        return
    suggestion = services.profile_name_suggest(form.profile_input(for_validation=True), team=team)
    if not suggestion:
        return
    form.errors["name"] = form.error_class(
        [
            f"A profile needs a name. {suggestion!r} is filled in, made from its model: "
            "keep it or change it, then save."
        ]
    )
    form.data = form.data.copy()
    form.data["name"] = suggestion


@login_required
@require_POST
def profile_name_field(request):
    """The form's name input filled with the name suggested from its model (the live panel's "Use this
    name"), for htmx to put in place of the empty one; posted with the form, as the live check is."""
    form = ProfileForm(request.POST, **_form_kwargs(request, editing=True))
    team = Team.objects.filter(slug=request.POST.get("team") or "").first()
    suggestion = services.profile_name_suggest(form.profile_input(for_validation=True), team=team)
    filled = ProfileForm(initial={"name": suggestion}, **_form_kwargs(request, editing=True))
    response = HttpResponse(str(filled["name"]))
    response["HX-Trigger-After-Swap"] = "name-filled"  # the live panel checks again, with the name
    return response


def _verdict_context(verdict, args: dict) -> dict:
    return {
        "verdict": verdict,
        "state": verdict.state,
        "groups": _grouped(verdict.findings),
        "args": _arg_rows(args, verdict.findings),
        "unplaced": _unplaced(verdict.findings, args),
    }


def _form_kwargs(request, *, editing: bool, team: Team | None = None) -> dict:
    node = team.default_node_type if team is not None else None
    return {
        "teams": [] if editing else _editable_team_slugs(request.user),
        "fleet_version": fleet_release().version,
        "editing": editing,
        "team_node_type": node.name if node else "",
    }


@login_required
@require_POST
def profile_source_fix(request):
    """Apply a finding's fix to the text being typed in the create or edit form: the before/after of the
    user's own command, for the form's "Use the fixed command" (nothing is saved)."""
    form = ProfileForm(request.POST, **_form_kwargs(request, editing=True))
    data = form.profile_input(for_validation=True, hardware=None)
    team = Team.objects.filter(slug=form.data.get("team") or "").select_related("default_node_type").first()
    try:
        fixed = services.source_apply_fix(data=data, rule_id=request.GET.get("rule", ""), team=team)
    except DomainError as exc:
        return render(request, "profiles/_source_fix.html", {"error": exc.message})
    return render(request, "profiles/_source_fix.html", {"fixed": fixed, "state": fixed.verdict.state})


@login_required
@require_POST
def profile_validate(request):
    """The findings panel for what the form holds now: htmx posts here while the user types."""
    form = ProfileForm(request.POST, **_form_kwargs(request, editing=True))
    return render(request, "profiles/_live.html", _live_context(form))


@login_required
def profile_create(request):
    kwargs = _form_kwargs(request, editing=False)
    if not kwargs["teams"]:
        raise PermissionDenied("you are not an editor of any team")
    form = ProfileForm(
        request.POST or None, request.FILES or None, initial={"team": request.GET.get("team")}, **kwargs
    )
    live = {}
    if request.method == "POST":
        live = _live_context(form)
        if form.is_valid():
            team = Team.objects.get(slug=form.cleaned_data["team"])
            try:
                profile, verdict = services.profile_create(
                    actor=request.user, team=team, data=form.profile_input()
                )
            except services.ProfileInvalid:
                form.add_error(None, "Not saved: the profile has errors (see the findings).")
            except DomainError as exc:
                _form_error(form, exc)
            else:
                messages.success(request, f"Created {profile} ({verdict.state}).")
                return redirect("profiles:detail", pk=profile.pk)
        else:
            _name_missing(form, Team.objects.filter(slug=form.data.get("team") or "").first())
    return render(request, "profiles/form.html", {"form": form, "live": live, "creating": True})


@login_required
def profile_edit(request, pk: int):
    profile = _visible_profile(request, pk)
    if not permissions.can_edit_team(request.user, profile.team_id):
        raise PermissionDenied("you may not edit profiles of this team")
    initial = {
        "name": profile.name,
        "kind": profile.kind,
        "vllm_version": profile.vllm_release.version if profile.vllm_release else "",
        "description": profile.description,
        "source": services.profile_render(profile, fmt="command"),
        "revision": profile.revision,
        "node_type": profile.node_type.name if profile.node_type_id else "",
        "nodes": (profile.hardware or {}).get("nodes"),
        "model_config_text": json.dumps(profile.model_config, indent=2) if profile.model_config else "",
    }
    kwargs = _form_kwargs(request, editing=True, team=profile.team)
    form = ProfileForm(request.POST or None, request.FILES or None, initial=initial, **kwargs)
    live, conflict = {}, None
    if request.method == "POST":
        live = _live_context(form, team=profile.team)
        if form.is_valid():
            expected = form.cleaned_data.get("revision")
            try:
                profile, verdict = services.profile_update(
                    actor=request.user,
                    profile=profile,
                    data=form.profile_input(hardware=profile.hardware),
                    expected_revision=expected,
                )
            except services.EditConflict as exc:
                conflict = _conflict_context(pk, expected, exc)
                form.data = form.data.copy()
                form.data["revision"] = str(exc.current)  # saving again means: over the current revision
            except services.ProfileInvalid:
                form.add_error(None, "Not saved: the profile has errors (see the findings).")
            except DomainError as exc:
                _form_error(form, exc)
            else:
                messages.success(
                    request, f"Saved revision {profile.revision} of {profile} ({verdict.state})."
                )
                return redirect("profiles:detail", pk=profile.pk)
        else:
            _name_missing(form, profile.team)
    else:
        live = _live_context(ProfileForm(initial, **kwargs), team=profile.team)
    context = {"form": form, "live": live, "profile": profile, "conflict": conflict, "creating": False}
    return render(request, "profiles/form.html", context)


@login_required
@require_POST
def profile_refresh_model(request, pk: int):
    """Fetch the profile's model config again (and its draft model's); its profiles are re-checked."""
    profile = _visible_profile(request, pk)
    try:
        rows = services.profile_model_refresh(actor=request.user, profile=profile)
    except DomainError as exc:
        raise PermissionDenied(exc.message) from exc
    for row in rows:
        if row.error:
            messages.error(request, f"Could not fetch the config.json of {row}: {row.error}")
        else:
            messages.success(request, f"Refreshed the config.json of {row} ({row.get_source_display()}).")
    return redirect("profiles:detail", pk=profile.pk)


def _conflict_context(pk: int, expected: int | None, exc) -> dict:
    current = Profile.objects.select_related("team", "vllm_release").get(pk=pk)
    revisions = {
        r.revision: r
        for r in current.revisions.select_related("author").filter(revision__in=[expected or 0, exc.current])
    }
    theirs = revisions.get(exc.current)
    mine = revisions.get(expected or 0)
    return {
        "message": exc.message,
        "current": exc.current,
        "author": theirs.author if theirs else None,
        "at": theirs.created_at if theirs else None,
        "diff": edits.snapshot_diff(mine.data, theirs.data) if mine and theirs else [],
        "command": services.profile_render(current, fmt="command"),
    }


# --- fixes, split, waivers ---------------------------------------------------------------------------------


@login_required
def profile_fix(request, pk: int, rule_id: str):
    """A finding's solutions to choose from (a radio list), what the chosen one changes and the verdict after
    it; POST saves it as the next revision."""
    profile = _visible_profile(request, pk)
    if not permissions.can_edit_team(request.user, profile.team_id):
        raise PermissionDenied("you may not edit profiles of this team")
    error = None
    params = request.POST if request.method == "POST" else request.GET
    try:
        solution = int(params["solution"]) if params.get("solution") not in (None, "") else None
    except ValueError:
        solution, error = None, f"solution must be a number, not {params.get('solution')!r}"
    if request.method == "POST" and error is None:
        try:
            expected = int(request.POST.get("revision", profile.revision))
        except ValueError:
            expected = -1  # no revision matches: the service answers that the profile changed meanwhile
        try:
            profile, verdict = services.profile_apply_fix(
                actor=request.user,
                profile=profile,
                rule_id=rule_id,
                solution=solution,
                expected_revision=expected,
            )
        except DomainError as exc:
            error = exc.message
            profile = _visible_profile(request, pk)
        else:
            messages.success(
                request, f"Applied the fix of {rule_id}: revision {profile.revision} ({verdict.state})."
            )
            return redirect("profiles:detail", pk=profile.pk)
    try:
        preview = services.profile_fix_preview(profile=profile, rule_id=rule_id, solution=solution)
    except DomainError as exc:
        if exc.field != "solution":
            messages.error(request, exc.message)
            return redirect("profiles:detail", pk=profile.pk)
        error = exc.message
        preview = services.profile_fix_preview(profile=profile, rule_id=rule_id)
    context = {
        "profile": profile,
        "preview": preview,
        "error": error,
        **_verdict_context(preview.verdict, preview.engine_args),
    }
    return render(request, "profiles/fix.html", context)


@login_required
def profile_split(request, pk: int):
    profile = _visible_profile(request, pk)
    if not permissions.can_edit_team(request.user, profile.team_id):
        raise PermissionDenied("you may not edit profiles of this team")
    if not services.profile_is_mixed(profile):
        messages.error(request, "Only a profile with sampling masks and speculative decoding can be split.")
        return redirect("profiles:detail", pk=profile.pk)
    error = None
    verdicts = None
    if request.method == "POST":
        try:
            created = services.profile_split(actor=request.user, profile=profile)
        except services.SplitInvalid as exc:
            error, verdicts = exc.message, exc.verdicts
        except DomainError as exc:
            error = exc.message
        else:
            names = " and ".join(str(p) for p, _ in created.values())
            messages.success(request, f"Created {names}.")
            return redirect(f"{reverse('profiles:list')}?q={profile.name}-")
    plan = services.profile_split_plan(profile)
    verdicts = verdicts or services.profile_split_check(profile)
    parts = [
        {
            "kind": kind,
            "name": data.name,
            "args": data.engine_args,
            "diff": edits.mapping_diff(profile.engine_args, data.engine_args),
            **_verdict_context(verdicts[kind], data.engine_args),
        }
        for kind, data in plan.items()
    ]
    return render(request, "profiles/split.html", {"profile": profile, "parts": parts, "error": error})


@login_required
@require_POST
def waiver_create(request, pk: int):
    profile = _visible_profile(request, pk)
    verdict = getattr(profile, "verdict", None)
    findings = verdict.findings if verdict else []
    form = WaiverForm(request.POST, rule_ids=sorted({f["rule"] for f in findings}))
    if not form.is_valid():
        messages.error(
            request,
            "Waiver not requested: "
            + "; ".join(f"{name}: {' '.join(errs)}" for name, errs in form.errors.items()),
        )
        return redirect("profiles:detail", pk=pk)
    expires = timezone.make_aware(datetime.combine(form.cleaned_data["expires_at"], time(23, 59, 59)))
    try:
        waiver_services.waiver_request(
            actor=request.user,
            profile=profile,
            rule_id=form.cleaned_data["rule_id"],
            reason=form.cleaned_data["reason"],
            expires_at=expires,
        )
    except DomainError as exc:
        messages.error(request, f"Waiver not requested: {exc.message}")
    else:
        messages.success(
            request,
            f"Waiver of {form.cleaned_data['rule_id']} until {expires:%Y-%m-%d} requested: "
            "a team admin other than you approves it.",
        )
    return redirect("profiles:detail", pk=pk)


@login_required
@require_POST
def waiver_decide(request, pk: int, waiver_id: int, decision: str):
    """Approve or revoke one waiver of a profile (buttons on the profile's page)."""
    if decision not in ("approve", "revoke"):
        raise Http404("no such decision")
    profile = _visible_profile(request, pk)
    waiver = get_object_or_404(Waiver, pk=waiver_id, profile=profile)
    try:
        if decision == "approve":
            waiver_services.waiver_approve(actor=request.user, waiver=waiver)
            messages.success(request, f"Waiver of {waiver.rule_id} approved; the profile was re-checked.")
        else:
            waiver_services.waiver_revoke(actor=request.user, waiver=waiver)
            messages.success(request, f"Waiver of {waiver.rule_id} revoked.")
    except DomainError as exc:
        if exc.code == "permission":
            raise PermissionDenied(exc.message) from exc
        messages.error(request, f"Waiver not changed: {exc.message}")
    return redirect("profiles:detail", pk=pk)


@login_required
def profile_import_manifest(request):
    """Paste or upload Kubernetes manifests or production-stack values: one profile per vLLM container."""
    teams = _editable_team_slugs(request.user)
    if not teams:
        raise PermissionDenied("you are not an editor of any team")
    form = ManifestImportForm(request.POST or None, request.FILES or None, teams=teams)
    refused = []
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            result = manifest_services.profiles_import_manifest(
                actor=request.user,
                team=Team.objects.get(slug=data["team"]),
                text=data["manifest"],
                filename=data["filename"],
                kind=data.get("kind") or None,
            )
        except manifest_services.ManifestInvalid as exc:
            form.add_error(None, "Nothing was imported: vLLM would refuse these profiles.")
            refused = [
                {
                    "name": w.name,
                    "source": w.source,
                    "error": w.error,
                    "findings": _refused_findings(w.verdict),
                }
                for w in exc.workloads
                if w.error or not w.verdict.valid
            ]
        except DomainError as exc:
            form.add_error("manifest" if exc.field == "manifest" else None, exc.message)
        else:
            ids = ",".join(str(profile.pk) for profile, _ in result.created)
            return redirect(f"{reverse('profiles:import-manifest')}?imported={ids}")
    return render(
        request,
        "profiles/import_manifest.html",
        {"form": form, "refused": refused, "imported": _imported(request, teams)},
    )


def _imported(request, teams) -> list:
    """The profiles the last import created (``?imported=ID,ID``), each to link to with its state, source
    and notes; only those of teams the user edits."""
    if request.method != "GET" or not request.GET.get("imported"):
        return []
    ids = [int(part) for part in request.GET["imported"].split(",")[:500] if part.strip().isdigit()]
    return list(
        Profile.objects.filter(pk__in=ids, team__slug__in=teams)
        .select_related("team", "verdict")
        .order_by("team__slug", "name")
    )


def _refused_findings(verdict) -> list:
    if verdict is None:
        return []
    return [f for f in verdict.findings if f.is_active and f.severity == "error"]


# --- teams ----------------------------------------------------------------------------------------------


def _team(request, slug: str) -> Team:
    team = get_object_or_404(Team.objects.select_related("default_node_type"), slug=slug)
    if not permissions.can_view_team(request.user, team):
        raise PermissionDenied("only the team's members and staff see a team")
    return team


def _form_errors(form) -> str:
    return "; ".join(
        f"{name}: {e}" if name != "__all__" else e for name, errs in form.errors.items() for e in errs
    )


@login_required
def profile_states(request):
    """Profiles by state over time: the profiles the user may see, per day, replayed from their history."""
    try:
        days = min(max(int(request.GET.get("days", 30)), 7), 365)
    except ValueError:
        days = 30
    series = selectors.profile_states_over_time(request.user, days=days)
    return render(
        request,
        "profiles/states.html",
        {"series": series, "days": days, "today": series[-1] if series else None},
    )


@login_required
def team_list(request):
    """The teams the user sees, with members and profiles counted; staff create teams here."""
    form = TeamForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                team = services.team_create(
                    actor=request.user, slug=form.cleaned_data["slug"], name=form.cleaned_data["name"]
                )
            except DomainError as exc:
                form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            else:
                messages.success(request, f"Team {team.slug} created; you are its admin.")
                return redirect("profiles:team-detail", slug=team.slug)
        status = 400
    roles = dict(request.user.memberships.values_list("team_id", "role"))
    teams = list(selectors.teams_overview(request.user))
    for team in teams:
        team.my_role = roles.get(team.pk)
    return render(
        request,
        "profiles/team_list.html",
        {"teams": teams, "form": form if permissions.can_create_team(request.user) else None},
        status=status,
    )


@login_required
def team_detail(request, slug: str):
    """A team: its members and their roles, who watches it (alerts), its profiles; admins manage members."""
    team = _team(request, slug)
    is_admin = permissions.can_admin_team(request.user, team)
    add_form = MemberAddForm(request.POST or None) if is_admin else None
    status = 200
    if request.method == "POST":
        if add_form is None:
            raise PermissionDenied("only the team's admins may add members")
        if add_form.is_valid():
            data = add_form.cleaned_data
            try:
                member = services.team_add_member_by_username(
                    actor=request.user,
                    team=team,
                    username=data["username"],
                    role=data["role"],
                    watch=data["watch"],
                )
            except DomainError as exc:
                add_form.add_error(exc.field if exc.field in add_form.fields else None, exc.message)
            else:
                messages.success(request, f"{member.user.username} is now {member.role} of {team.slug}.")
                return redirect("profiles:team-detail", slug=team.slug)
        status = 400
    profiles = selectors.team_profiles(team)
    sso_form = SsoGroupsForm(initial={"groups": SsoGroupsForm.text(team.sso_groups)}) if is_admin else None
    return render(
        request,
        "profiles/team_detail.html",
        {
            "team": team,
            "members": list(selectors.team_members(team)),
            "is_admin": is_admin,
            "add_form": add_form,
            "sso_form": sso_form,
            "roles": Role.choices,
            "profiles": profiles[:TEAM_PROFILES_SHOWN],
            "profile_count": profiles.count(),
        },
        status=status,
    )


TEAM_PROFILES_SHOWN = 50


@login_required
@require_POST
def team_sso_groups(request, slug: str):
    """Set the team's SSO group mapping (admins, staff); errors come back as a message on the team page."""
    team = _team(request, slug)
    form = SsoGroupsForm(request.POST)
    if not form.is_valid():
        messages.error(request, _form_errors(form))
        return redirect(reverse("profiles:team-detail", args=[slug]) + "#sso-groups")
    try:
        services.team_set_sso_groups(actor=request.user, team=team, groups=form.cleaned_data["groups"])
    except DomainError as exc:
        if exc.code == "permission":
            raise PermissionDenied(exc.message) from None
        messages.error(request, exc.message)
    else:
        messages.success(request, f"SSO groups of {team.slug} saved; applied at each member's next sign-in.")
    return redirect(reverse("profiles:team-detail", args=[slug]) + "#sso-groups")


@login_required
@require_POST
def team_member_update(request, slug: str, member_id: int):
    """Change a member's role or watch flag (admins); errors come back as a message on the team page."""
    team = _team(request, slug)
    membership = get_object_or_404(team.memberships.select_related("user", "team"), pk=member_id)
    form = MemberForm(request.POST)
    if not form.is_valid():
        messages.error(request, _form_errors(form))
        return redirect("profiles:team-detail", slug=slug)
    try:
        services.team_member_update(
            actor=request.user,
            membership=membership,
            role=form.cleaned_data["role"] or None,
            watch=form.cleaned_data["watch"] if "watch" in request.POST else None,
        )
    except DomainError as exc:
        if exc.code == "permission":
            raise PermissionDenied(exc.message) from None
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            f"{membership.user.username}: {membership.role}"
            + (", watches the team" if membership.watch else ", does not watch the team"),
        )
    return redirect(reverse("profiles:team-detail", args=[slug]) + f"#member-{membership.pk}")
