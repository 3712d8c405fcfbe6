"""Kubernetes admission: is every vLLM container of an object one its vLLM release would start?

``admission_review`` answers an ``admission.k8s.io/v1`` AdmissionReview: the object's vLLM containers (found
by ``vllmcheck.engine.manifests``) are validated like ``POST /api/v1/validate/`` against the release of their
image tag, or the fleet's release when the tag names none. It stores nothing (the webhook is declared
``sideEffects: None``, so dry-run requests are answered like any other).
"""

from __future__ import annotations

from typing import Any

from validation.errors import DomainError, UnknownRelease
from validation.selectors import fleet_release, reference_pinned
from vllmcheck.engine import manifests
from vllmcheck.engine.types import ParseError

from . import services
from .manifest_services import workload_input

WARNING_LIMIT = 256  # the API server may truncate longer warnings
UNCHECKED_OPERATIONS = frozenset({"DELETE", "CONNECT"})


class AdmissionError(ValueError):
    """The request is not an AdmissionReview this webhook can answer (a 400, not a decision)."""


def admission_review(review: Any) -> dict[str, Any]:
    request = _request(review)
    response: dict[str, Any] = {"uid": request["uid"], "allowed": True}
    obj = request.get("object")
    if request.get("operation") in UNCHECKED_OPERATIONS or not isinstance(obj, dict):
        return _review(response)
    with reference_pinned():  # every container of the object is checked against one reference, one query
        denials, warnings = _check_object(obj)
    if denials:
        response["allowed"] = False
        response["status"] = {"code": 403, "reason": "Forbidden", "message": "; ".join(denials)}
    if warnings:
        response["warnings"] = [
            w if len(w) <= WARNING_LIMIT else w[: WARNING_LIMIT - 1] + "…" for w in warnings
        ]
    return _review(response)


def _review(response: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response}


def _request(review: Any) -> dict[str, Any]:
    if not isinstance(review, dict):
        raise AdmissionError("the body must be an AdmissionReview object")
    if review.get("apiVersion") != "admission.k8s.io/v1" or review.get("kind") != "AdmissionReview":
        raise AdmissionError(
            "expected apiVersion admission.k8s.io/v1 and kind AdmissionReview "
            f"(got {review.get('apiVersion')!r}, {review.get('kind')!r})"
        )
    request = review.get("request")
    if not isinstance(request, dict) or not isinstance(request.get("uid"), str) or not request["uid"]:
        raise AdmissionError("request.uid is missing: the API server always sends one")
    return request


def _check_object(obj: dict[str, Any]) -> tuple[list[str], list[str]]:
    denials: list[str] = []
    warnings: list[str] = []
    try:
        workloads = manifests.extract_object(obj)
    except ParseError as exc:
        raise AdmissionError(str(exc)) from exc
    for workload in workloads:
        where = workload.container  # the object itself is the request's
        for note in workload.notes:
            if note.severity != "info":
                warnings.append(f"{where}: {note.message}")
        if not workload.command:
            continue
        version = workload.vllm_version or fleet_release().version
        data = workload_input(
            workload, name=workload.source, kind=workload.kind or "serving", vllm_version=version
        )
        try:
            verdict = services.profile_dry_run(data=data)
        except UnknownRelease:
            warnings.append(f"{where}: vLLM {version} is not a release vLLM Profiles knows; not checked")
            continue
        except DomainError as exc:
            denials.append(f"{where}: vLLM {version} cannot parse this command line: {exc.message}")
            continue
        for finding in verdict.findings:
            if not finding.is_active:
                continue
            text = f"{where}: vLLM {version}: {finding.message} [{finding.rule}]"
            if finding.severity == "error":
                denials.append(text)
            elif finding.severity == "warning":
                warnings.append(text)
    return denials, warnings
