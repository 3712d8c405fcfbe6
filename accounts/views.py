"""Pages of accounts: the user's API tokens and the audit log."""

from __future__ import annotations

from datetime import datetime, time

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from . import permissions, selectors, services
from .errors import DomainError
from .forms import AuditFilterForm, TokenForm
from .oidc import local_login_allowed, sso_configured


class LoginView(auth_views.LoginView):
    """The log-in page: "Sign in with <provider>" while SSO is configured, and the user name and password
    form unless ``LOCAL_LOGIN`` is off, when it answers 403 to everyone but the break-glass accounts."""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(
            sso_name=settings.OIDC_PROVIDER_NAME if sso_configured() else "",
            sso_failed=self.request.GET.get("sso") == "failed",
            local_login=settings.LOCAL_LOGIN,
            break_glass=bool(settings.LOCAL_LOGIN_BREAK_GLASS_USERS),
        )
        return context

    def post(self, request, *args, **kwargs):
        if not local_login_allowed(request.POST.get("username", "")):
            context = self.get_context_data(form=self.get_form_class()(request))
            context["refused"] = True
            return self.render_to_response(context, status=403)
        return super().post(request, *args, **kwargs)


@login_required
def token_list(request):
    """Your API tokens; a new one's key is shown on this page once."""
    form = TokenForm()
    created_key = None
    if request.method == "POST":
        form = TokenForm(request.POST)
        if form.is_valid():
            day = form.cleaned_data["expires_at"]
            expires = timezone.make_aware(datetime.combine(day, time(23, 59, 59))) if day else None
            try:
                token, created_key = services.token_create(
                    actor=request.user,
                    user=request.user,
                    name=form.cleaned_data["name"],
                    read_only=form.cleaned_data["read_only"],
                    expires_at=expires,
                )
            except DomainError as exc:
                form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            else:
                form = TokenForm()
    status = 400 if form.errors else 200
    context = {
        "tokens": list(selectors.tokens_of(request.user)),
        "form": form,
        "created_key": created_key,
        "now": timezone.now(),
    }
    response = render(request, "accounts/tokens.html", context, status=status)
    if created_key:
        response["Cache-Control"] = "no-store"  # the key is in this page, once
    return response


@login_required
@require_POST
def token_revoke(request, pk: int):
    token = get_object_or_404(selectors.tokens_of(request.user), pk=pk)
    services.token_revoke(actor=request.user, token=token)
    messages.success(request, f"Token {token.name} revoked: its key no longer works.")
    return redirect("accounts:tokens")


@login_required
def audit_list(request):
    """Staff read the whole audit log; a team's admins their team's entries."""
    if not permissions.can_view_audit(request.user):
        raise PermissionDenied("the audit log is for staff and team admins")
    events = selectors.audit_events_visible_to(request.user)
    form = AuditFilterForm(request.GET or None)
    if form.is_valid():
        data = form.cleaned_data
        if data["actor"]:
            events = events.filter(actor_name=data["actor"])
        if data["team"]:
            events = events.filter(team_slug=data["team"])
        if data["action"]:
            events = events.filter(action__startswith=data["action"])
        if data["object_type"]:
            events = events.filter(object_type=data["object_type"])
        if data["via"]:
            events = events.filter(via=data["via"])
        if data["since"]:
            events = events.filter(at__date__gte=data["since"])
        if data["until"]:
            events = events.filter(at__date__lte=data["until"])
    page = Paginator(events.order_by("-at", "-id"), 50).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "accounts/audit.html", {"page": page, "form": form, "query": query.urlencode()})
