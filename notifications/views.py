from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.errors import DomainError
from profiles.models import Team

from . import selectors, services


@login_required
@require_POST
def targets_post(request, slug: str):
    """The team page's target forms: add, remove, send a test; back to the team page with a message."""
    try:
        team = selectors.team_for(request.user, slug)
    except Team.DoesNotExist as exc:
        raise Http404 from exc
    action = request.POST.get("action")
    back = redirect(reverse("profiles:team-detail", args=[team.slug]) + "#notification-targets")
    try:
        if action == "create":
            target, secret = services.target_create(
                actor=request.user,
                team=team,
                name=request.POST.get("name", ""),
                kind=request.POST.get("kind", ""),
                url=request.POST.get("url", ""),
                transitions=request.POST.getlist("transitions"),
            )
            text = f"Target {target.name} added."
            if secret:
                text += f" Its signing secret, shown only now: {secret}"
            messages.success(request, text)
            return back
        target = selectors.targets_of(team).filter(pk=request.POST.get("target") or 0).first()
        if target is None:
            raise Http404
        if action == "test":
            services.target_send_test(actor=request.user, target=target)
            messages.success(request, f"A test message is on its way to {target.name}; see Deliveries.")
        elif action == "delete":
            services.target_delete(actor=request.user, target=target)
            messages.success(request, f"Target {target.name} removed.")
        else:
            messages.error(request, "action: not one of create, test, delete")
    except DomainError as exc:
        messages.error(request, exc.message)
    return back
