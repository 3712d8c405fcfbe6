"""POST /api/v1/admission/: a Kubernetes validating admission webhook for objects that run vLLM."""

from __future__ import annotations

import hmac

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import status
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from profiles.admission import AdmissionError, admission_review

EXAMPLE_REVIEW = {
    "apiVersion": "admission.k8s.io/v1",
    "kind": "AdmissionReview",
    "request": {
        "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "name": "teacher",
        "namespace": "ml-platform",
        "operation": "CREATE",
        "userInfo": {"username": "system:serviceaccount:argocd:argocd-application-controller"},
        "object": {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "teacher", "namespace": "ml-platform"},
            "spec": {
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "vllm",
                                "image": "vllm/vllm-openai:v0.31.0",
                                "args": ["meta-llama/Llama-3.1-8B-Instruct", "--max-num-seqs", "64"],
                            }
                        ]
                    }
                }
            },
        },
        "oldObject": None,
        "dryRun": False,
    },
}


class AdmissionView(APIView):
    """Kubernetes calls this for Deployments, StatefulSets, Jobs, Pods, LeaderWorkerSets and KServe objects.

    Every vLLM container is validated against its image tag's release (the fleet's when the tag names none):
    ``allowed: false`` with vLLM's message(s) and rule ids in ``status.message`` when vLLM would refuse to
    start it, warnings in ``warnings``. With ``ADMISSION_WEBHOOK_TOKEN`` set, the API server must send it as
    ``Authorization: Bearer <token>`` (a kubeconfig ``token`` in its admission configuration).
    """

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        token = getattr(settings, "ADMISSION_WEBHOOK_TOKEN", "")
        if token:
            given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
            if not hmac.compare_digest(given.encode(), token.encode()):
                raise AuthenticationFailed("the webhook's bearer token is missing or wrong")

    @extend_schema(
        operation_id="admission_review",
        request=OpenApiTypes.OBJECT,
        responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT},
        examples=[
            OpenApiExample("A Deployment running vLLM 0.31.0", value=EXAMPLE_REVIEW, request_only=True)
        ],
    )
    def post(self, request):
        try:
            return Response(admission_review(request.data))
        except AdmissionError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
