"""Pages of the validation app: rule sets (and their drafts), re-checks, vLLM releases, alerts.

Views only parse input, call one service (writes, ``validation.services``) or selector (reads,
``validation.selectors``) and render. Each form posts plainly and redirects (post/redirect/get), so the pages
work without JavaScript; htmx only polls the re-check progress and swaps small fragments.
"""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import permissions
from profiles import selectors as profile_selectors
from profiles.models import Alert, AlertPreference, Recheck
from profiles.services import alerts, matrix, previews, rule_trials
from validation import selectors
from validation.models import RuleSet
from validation.services import DomainError, fleet, rulesets
from validation.services import releases as release_services

from .forms import (
    AlertPreferenceForm,
    CompareForm,
    DraftForm,
    FleetForm,
    RecordsForm,
    ReleaseDiffForm,
    RuleFilterForm,
    RuleForm,
    RuleTrialForm,
    add_domain_error,
)

FORM_ERROR = 400  # a re-rendered form with errors: the browser shows it, clients can tell it apart


def staff_required(view):
    """Signed in and staff; anyone else gets 403 (a signed-out visitor is sent to the login page)."""

    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not permissions.is_staff(request.user):
            raise PermissionDenied("only staff may change rule sets and the fleet's vLLM release")
        return view(request, *args, **kwargs)

    return wrapper


def _page(request, template, context, status=200):
    return render(request, template, context, status=status)


def _preview_context(preview: dict | None) -> dict:
    """The preview and its outcomes in display order, for templates/validation/_preview.html.

    ``None``: a worker is still evaluating a large fleet; the page says so and polls (htmx, or a refresh).
    """
    if preview is None:
        return {"preview": None, "buckets": [], "preview_pending": True}
    titles = {
        "would_become_invalid": "Would become invalid",
        "would_become_valid": "Would become valid",
        "findings_change": "Findings change",
    }
    buckets = [(preview[key], title, preview["counts"][key]) for key, title in titles.items()]
    return {"preview": preview, "buckets": buckets}


def _ruleset(number: int) -> RuleSet:
    return get_object_or_404(RuleSet, number=number)


def _draft(number: int) -> RuleSet:
    ruleset = _ruleset(number)
    if ruleset.status != RuleSet.Status.DRAFT:
        raise Http404(f"rule set {number} is published; create a draft to change it")
    return ruleset


# ---- rule sets ---------------------------------------------------------------------------------------


@login_required
@require_GET
def ruleset_list(request):
    rulesets_ = list(selectors.rulesets_ordered().annotate(rule_count=Count("rules")))
    current = next((r for r in rulesets_ if r.status == RuleSet.Status.PUBLISHED), None)
    return _page(
        request,
        "validation/ruleset_list.html",
        {
            "rulesets": rulesets_,
            "current": current,
            "draft_form": DraftForm() if permissions.is_staff(request.user) else None,
            "compare_form": CompareForm(
                initial={"old": current.number if current else None, "new": rulesets_[0].number}
                if rulesets_
                else None
            ),
        },
    )


@staff_required
@require_POST
def ruleset_draft_create(request):
    form = DraftForm(request.POST)
    if not form.is_valid():
        messages.error(request, "; ".join(e for errs in form.errors.values() for e in errs))
        return redirect("validation:ruleset-list")
    try:
        draft = rulesets.ruleset_draft_create(
            actor=request.user, based_on=form.cleaned_data["based_on"], notes=form.cleaned_data["notes"]
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("validation:ruleset-list")
    messages.success(request, f"Draft rule set {draft.number} created.")
    return redirect("validation:ruleset-detail", number=draft.number)


@login_required
@require_GET
def ruleset_detail(request, number: int):
    ruleset = get_object_or_404(
        RuleSet.objects.select_related("based_on", "published_by", "created_by"), number=number
    )
    filter_form = RuleFilterForm(
        request.GET or None,
        tags=selectors.ruleset_tags(ruleset),
        releases=selectors.releases_ordered().values_list("version", flat=True),
    )
    filters = filter_form.filters()
    rules = selectors.ruleset_rules(ruleset, **filters)
    total = ruleset.rules.count() if filters else len(rules)
    current = selectors.ruleset_current()
    recheck = (
        Recheck.objects.filter(ruleset=ruleset, cause="ruleset").order_by("-created_at").first()
        if ruleset.status == RuleSet.Status.PUBLISHED
        else None
    )
    return _page(
        request,
        "validation/ruleset_detail.html",
        {
            "ruleset": ruleset,
            "rules": rules,
            "is_current": current.pk == ruleset.pk,
            "editable": permissions.can_manage_rulesets(request.user)
            and ruleset.status == RuleSet.Status.DRAFT,
            "unwritten": list(ruleset.rules.filter(enabled=True, when="").values_list("rule_id", flat=True)),
            "recheck": recheck,
            "filter_form": filter_form,
            "filtered": bool(filters),
            "total": total,
        },
    )


@login_required
@require_GET
def rule_body(request, number: int, rule_id: str):
    """One rule in full: the body of its collapsed row on the rule-set page (htmx), or a page of its own."""
    ruleset = _ruleset(number)
    rule = get_object_or_404(ruleset.rules, rule_id=rule_id)
    context = {
        "ruleset": ruleset,
        "rule": rule,
        "editable": permissions.can_manage_rulesets(request.user) and ruleset.status == RuleSet.Status.DRAFT,
    }
    if request.htmx and not request.htmx.history_restore_request:
        return render(request, "validation/_rule_body.html", context)
    return _page(request, "validation/rule_detail.html", context)


@staff_required
@require_http_methods(["GET", "POST"])
def rule_edit(request, number: int, rule_id: str | None = None):
    """Add a rule to a draft (no ``rule_id``) or change one. Errors of the service land on their field."""
    ruleset = _draft(number)
    rule = get_object_or_404(ruleset.rules, rule_id=rule_id) if rule_id else None
    form = RuleForm(request.POST or None, rule=rule)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                saved = rulesets.rule_save(ruleset=ruleset, data=form.rule_data(), actor=request.user)
            except DomainError as exc:
                add_domain_error(form, exc)
            else:
                if _path_warnings(saved):  # saved, but shown on its field: back to the form
                    messages.warning(request, f"Rule {saved.rule_id} saved, with a warning on its condition.")
                    return redirect("validation:rule-edit", number=number, rule_id=saved.rule_id)
                messages.success(request, f"Rule {saved.rule_id} saved.")
                return redirect(
                    reverse("validation:ruleset-detail", args=[number]) + f"#rule-{saved.rule_id}"
                )
        status = FORM_ERROR
    return _page(
        request,
        "validation/rule_form.html",
        {
            "ruleset": ruleset,
            "rule": rule,
            "form": form,
            "trial_form": RuleTrialForm(profiles=profile_selectors.profiles_to_try()),
            "path_warnings": _path_warnings(rule) if rule and request.method == "GET" else [],
        },
        status=status,
    )


@staff_required
@require_POST
def rule_try(request, number: int):
    """Run the condition typed in the rule editor on a stored profile or a pasted command (nothing is saved):
    the fragment with the outcome (htmx), or, without JavaScript, the editor again with it."""
    ruleset = _ruleset(number)
    trial_form = RuleTrialForm(request.POST, profiles=profile_selectors.profiles_to_try())
    context: dict = {"ruleset": ruleset, "trial_form": trial_form}
    status = 200
    if trial_form.is_valid():
        data = trial_form.cleaned_data
        try:
            context["trial"] = rule_trials.rule_try(
                ruleset=ruleset,
                when=data["when"],
                rule_id=data["id"] or (request.POST.get("editing") or ""),
                message=data["message"],
                message_template=data["message_template"],
                profile_id=data["try_profile"],
                command=data["try_command"],
                kind=data["try_kind"] or "serving",
            )
        except DomainError as exc:
            context["trial_error"] = exc.message
            status = FORM_ERROR
    else:
        context["trial_error"] = "; ".join(e for errs in trial_form.errors.values() for e in errs)
        status = FORM_ERROR
    if request.htmx:
        # 200 either way: htmx swaps only successful answers, and an error is the answer to show here.
        return render(request, "validation/_rule_trial.html", context)
    editing = request.POST.get("editing") or None
    rule = ruleset.rules.filter(rule_id=editing).first() if editing else None
    return _page(
        request,
        "validation/rule_form.html",
        {**context, "rule": rule, "form": RuleForm(request.POST, rule=rule), "path_warnings": []},
        status=status,
    )


@login_required
@require_GET
def document_reference(request, number: int):
    """The profile document a rule's condition reads, walked from what the engine builds (fleet release)."""
    return _page(
        request, "validation/document_reference.html", rule_trials.document_reference(_ruleset(number))
    )


def _path_warnings(rule) -> list[str]:
    """Paths the rule's condition reads that some releases of its range do not know (saved, but flagged)."""
    issues = selectors.rule_path_issues(rule.when, rule.versions)
    return [i.message for i in issues if i.severity == "warning"]


@staff_required
@require_POST
def rule_toggle(request, number: int, rule_id: str):
    """Enable or disable one rule of a draft (a disabled rule is kept but never evaluated)."""
    ruleset = _draft(number)
    rule = get_object_or_404(ruleset.rules, rule_id=rule_id)
    try:
        rulesets.rule_save(
            ruleset=ruleset, data={"id": rule.rule_id, "enabled": not rule.enabled}, actor=request.user
        )
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Rule {rule_id} {'disabled' if rule.enabled else 'enabled'}.")
    return redirect(reverse("validation:ruleset-detail", args=[number]) + f"#rule-{rule_id}")


@staff_required
@require_POST
def rule_delete(request, number: int, rule_id: str):
    ruleset = _draft(number)
    try:
        rulesets.rule_delete(ruleset=ruleset, rule_id=rule_id, actor=request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Rule {rule_id} deleted.")
    return redirect("validation:ruleset-detail", number=number)


@staff_required
@require_http_methods(["GET", "POST"])
def ruleset_import(request, number: int):
    """Error records become disabled draft rules that wait for a person to write their CEL condition."""
    ruleset = _draft(number)
    form = RecordsForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                created = rulesets.ruleset_import_records(
                    ruleset=ruleset, text=form.cleaned_data["records"], actor=request.user
                )
            except DomainError as exc:
                add_domain_error(form, exc)
            else:
                messages.success(
                    request,
                    f"Imported {len(created)} rule(s), disabled until their condition is written: "
                    + ", ".join(r.rule_id for r in created),
                )
                return redirect("validation:ruleset-detail", number=number)
        status = FORM_ERROR
    return _page(request, "validation/ruleset_import.html", {"ruleset": ruleset, "form": form}, status=status)


@login_required
@require_GET
def ruleset_impact(request, number: int):
    """What publishing this rule set would do to every stored profile (a dry run; nothing changes)."""
    ruleset = _ruleset(number)
    return _page(
        request,
        "validation/ruleset_impact.html",
        {"ruleset": ruleset, **_preview_context(previews.preview_or_schedule(ruleset=ruleset))},
    )


@staff_required
@require_http_methods(["GET", "POST"])
def ruleset_publish(request, number: int):
    """GET: the confirmation, stating from the impact preview how many profiles will become invalid."""
    ruleset = _draft(number)
    if request.method == "POST":
        try:
            recheck = rulesets.ruleset_publish(ruleset=ruleset, actor=request.user)
        except DomainError as exc:
            return _page(
                request,
                "validation/ruleset_publish.html",
                {"ruleset": ruleset, "error": exc.message},
                status=FORM_ERROR,
            )
        messages.success(request, f"Rule set {number} is published and current; every profile is re-checked.")
        return redirect("validation:recheck-detail", pk=recheck.pk)
    return _page(
        request,
        "validation/ruleset_publish.html",
        {"ruleset": ruleset, **_preview_context(previews.preview_or_schedule(ruleset=ruleset))},
    )


@login_required
@require_GET
def ruleset_compare(request):
    form = CompareForm(request.GET or None)
    comparison = None
    if form.is_valid():
        comparison = rulesets.ruleset_compare(old=form.cleaned_data["old"], new=form.cleaned_data["new"])
    return _page(
        request,
        "validation/ruleset_compare.html",
        {"form": form, "comparison": comparison},
        status=FORM_ERROR if form.is_bound and not form.is_valid() else 200,
    )


# ---- re-checks ---------------------------------------------------------------------------------------


def _recheck(pk: int) -> Recheck:
    return get_object_or_404(Recheck.objects.select_related("ruleset", "release", "created_by"), pk=pk)


CHANGES_PER_PAGE = 50


@login_required
@require_GET
def recheck_detail(request, pk: int):
    """The re-check's progress, and the profiles it changed, by kind (newly invalid, newly valid, findings
    changed), each named and linked, a page at a time."""
    recheck = _recheck(pk)
    counts = profile_selectors.recheck_change_counts(recheck)
    kind = request.GET.get("kind") or next((k for k, n in counts.items() if n), "invalid")
    try:
        changes = profile_selectors.recheck_changes(recheck, kind)
    except DomainError as exc:
        raise Http404(exc.message) from None
    tabs = [(k, title, counts[k]) for k, title in profile_selectors.RECHECK_CHANGE_KINDS.items()]
    return _page(
        request,
        "validation/recheck_detail.html",
        {
            "recheck": recheck,
            "tabs": tabs,
            "kind": kind,
            "kind_title": profile_selectors.RECHECK_CHANGE_KINDS[kind],
            "page": Paginator(changes, CHANGES_PER_PAGE).get_page(request.GET.get("page")),
        },
    )


@login_required
@require_GET
def recheck_progress(request, pk: int):
    """The progress fragment; it polls itself every second (htmx) until the re-check is done or failed. The
    fragment that says so also tells the page (``HX-Trigger: recheck-finished``), whose list of changed
    profiles then reloads itself."""
    recheck = _recheck(pk)
    response = render(request, "validation/_recheck_progress.html", {"recheck": recheck})
    if request.htmx and recheck.state in (Recheck.State.DONE, Recheck.State.FAILED):
        response["HX-Trigger"] = "recheck-finished"
    return response


# ---- releases ----------------------------------------------------------------------------------------


@login_required
@require_GET
def release_list(request):
    releases = list(selectors.releases_ordered())
    fleet_release = selectors.fleet_release()
    latest = Recheck.objects.filter(cause="release").select_related("release").order_by("-created_at").first()
    return _page(
        request,
        "validation/release_list.html",
        {
            "releases": releases,
            "fleet_release": fleet_release,
            "fleet_form": FleetForm(initial={"release": fleet_release.version})
            if permissions.is_staff(request.user)
            else None,
            "diff_form": ReleaseDiffForm(
                initial={"old": fleet_release.version, "new": releases[0].version if releases else None}
            ),
            "latest_recheck": latest,
            "matrix": matrix.fleet_release_matrix_or_schedule(),
            "throughput": profile_selectors.recheck_throughput(),
        },
    )


@login_required
@require_GET
def release_chart(request):
    """The fleet-on-each-release chart alone: the release page's pending chart polls it (htmx) until a worker
    has computed the matrix, and is then replaced by the chart (no reload)."""
    return render(
        request, "validation/_fleet_chart.html", {"matrix": matrix.fleet_release_matrix_or_schedule()}
    )


@staff_required
@require_GET
def fleet_confirm(request):
    """The confirmation before a fleet-wide release change: the upgrade preview's counts (what the change
    will do, pinned profiles apart), and the button that makes the change."""
    form = FleetForm(request.GET)
    if not form.is_valid():
        messages.error(request, "; ".join(e for errs in form.errors.values() for e in errs))
        return redirect("validation:release-list")
    release = form.cleaned_data["release"]
    current = selectors.fleet_release()
    if release.pk == current.pk:
        messages.info(request, f"The fleet already runs vLLM {release.version}.")
        return redirect("validation:release-list")
    return _page(
        request,
        "validation/fleet_confirm.html",
        {
            "release": release,
            "current": current,
            **_preview_context(previews.preview_or_schedule(release=release)),
        },
    )


@staff_required
@require_POST
def fleet_update(request):
    """Move the fleet to another release; the re-check of the profiles that follow it is shown live."""
    form = FleetForm(request.POST)
    if not form.is_valid():
        messages.error(request, "; ".join(e for errs in form.errors.values() for e in errs))
        return redirect("validation:release-list")
    try:
        recheck = fleet.fleet_set_release(release=form.cleaned_data["release"], actor=request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("validation:release-list")
    if recheck is None:
        messages.info(request, f"The fleet already runs vLLM {form.cleaned_data['release'].version}.")
        return redirect("validation:release-list")
    messages.success(request, f"The fleet now follows vLLM {form.cleaned_data['release'].version}.")
    return redirect("validation:recheck-detail", pk=recheck.pk)


@login_required
@require_GET
def release_preview(request, version: str):
    """Which profiles would break on this release, and why (the error messages that would appear)."""
    try:
        release = selectors.release_get(version)
    except DomainError as exc:
        raise Http404(exc.message) from None
    if not release.catalog_sha256:
        return _page(request, "validation/release_preview.html", {"release": release, "preview": None})
    return _page(
        request,
        "validation/release_preview.html",
        {"release": release, **_preview_context(previews.preview_or_schedule(release=release))},
    )


@login_required
@require_GET
def release_diff(request):
    form = ReleaseDiffForm(request.GET or None)
    diff, error = None, None
    if form.is_valid():
        try:
            diff = release_services.release_diff(
                old=form.cleaned_data["old"].version, new=form.cleaned_data["new"].version
            )
        except DomainError as exc:
            error = exc.message
    return _page(
        request,
        "validation/release_diff.html",
        {"form": form, "diff": diff, "error": error},
        status=FORM_ERROR if (form.is_bound and not form.is_valid()) or error else 200,
    )


@login_required
@require_GET
def release_coverage(request, version: str):
    try:
        release = selectors.release_get(version)
    except DomainError as exc:
        raise Http404(exc.message) from None
    coverage, error = None, None
    try:
        coverage = release_services.release_coverage_current(release=release)
    except DomainError as exc:
        error = exc.message
    return _page(
        request,
        "validation/release_coverage.html",
        {"release": release, "coverage": coverage, "error": error},
    )


# ---- alerts ------------------------------------------------------------------------------------------


@login_required
@require_GET
def alert_list(request):
    queryset = (
        Alert.objects.filter(recipient=request.user)
        .select_related("profile__team", "change__release", "change__ruleset")
        .order_by("-created_at", "-id")
    )
    page = Paginator(queryset, 50).get_page(request.GET.get("page"))
    preference = AlertPreference.objects.filter(user=request.user).first()
    return _page(
        request,
        "validation/alert_list.html",
        {
            "page": page,
            "email_alerts": preference.email_alerts if preference else True,
            "per_week": profile_selectors.alerts_per_week(request.user),
        },
    )


@login_required
@require_POST
def alert_preference(request):
    form = AlertPreferenceForm(request.POST)
    form.is_valid()  # a checkbox: absent means off
    preference = alerts.alert_preference_set(
        user=request.user, email_alerts=form.cleaned_data.get("email_alerts", False)
    )
    if request.htmx:
        return render(request, "validation/_alert_preference.html", {"email_alerts": preference.email_alerts})
    messages.success(request, f"E-mail alerts are {'on' if preference.email_alerts else 'off'}.")
    return redirect("validation:alert-list")
