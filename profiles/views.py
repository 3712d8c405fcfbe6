from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render

from validation import services as validation_services

from . import selectors, services


@login_required
def profile_list(request):
    profiles = selectors.profiles_visible_to(request.user).order_by("team__slug", "name")
    page = Paginator(profiles, 50).get_page(request.GET.get("page"))
    return render(
        request,
        "profiles/list.html",
        {"page": page, "fleet_release": validation_services.fleet_release()},
    )


@login_required
def profile_detail(request, pk: int):
    profile = get_object_or_404(selectors.profiles_visible_to(request.user), pk=pk)
    verdict = getattr(profile, "verdict", None)
    return render(
        request,
        "profiles/detail.html",
        {
            "profile": profile,
            "verdict": verdict,
            "command": services.profile_render(profile, fmt="command"),
            "fleet_release": validation_services.fleet_release(),
        },
    )
