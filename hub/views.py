"""Pages: stored model configs (refresh, upload for private models) and node types."""

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from accounts import permissions

from . import selectors, services
from .forms import ModelConfigUploadForm
from .models import ModelConfig


@login_required
def model_config_list(request):
    form = ModelConfigUploadForm()
    can_change = permissions.can_change_model_configs(request.user)
    if request.method == "POST":
        if not can_change:
            raise PermissionDenied("only editors of a team and staff upload model configs")
        form = ModelConfigUploadForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                row = services.model_config_upload(
                    actor=request.user,
                    repo=form.cleaned_data["repo"],
                    revision=form.cleaned_data["revision"],
                    config=form.config_source(),
                    index=form.index_source(),
                )
            except services.HubError as exc:
                field = "index_file" if exc.field == "safetensors_index" else exc.field
                form.add_error(field if field in form.fields else None, exc.message)
                if exc.field == "config":
                    form.add_error("config_text", exc.message)
            else:
                messages.success(
                    request, f"Stored the config.json of {row}; its profiles are being re-checked."
                )
                return redirect("hub:model-configs")
    context = {
        "configs": selectors.model_configs(),
        "node_types": selectors.node_types(),
        "form": form,
        "can_change": can_change,
    }
    return render(request, "hub/model_config_list.html", context, status=400 if form.errors else 200)


@login_required
def model_config_detail(request, pk: int):
    row = get_object_or_404(ModelConfig, pk=pk)
    config_json = json.dumps(row.config, indent=2, sort_keys=True) if row.config is not None else ""
    context = {
        "row": row,
        "config_json": config_json,
        "can_change": permissions.can_change_model_configs(request.user),
    }
    return render(request, "hub/model_config_detail.html", context)


@login_required
@require_POST
def model_config_refresh(request, pk: int):
    if not permissions.can_change_model_configs(request.user):
        raise PermissionDenied("only editors of a team and staff refresh model configs")
    row = services.model_config_refresh(actor=request.user, config=get_object_or_404(ModelConfig, pk=pk))
    if row.config is not None and not row.error:
        messages.success(request, f"Refreshed the config.json of {row} ({row.get_source_display()}).")
    else:
        messages.error(request, f"Could not fetch the config.json of {row}: {row.error}")
    target = request.POST.get("next") or ""
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = "hub:model-configs"
    return redirect(target)
