"""Rule sets: read every version; drafts are edited, previewed (impact) and published."""

from __future__ import annotations

from django.db.models import Count
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import BasePermission
from rest_framework.response import Response

from accounts import permissions
from accounts.authentication import TokenScope
from profiles.services import previews
from validation import selectors
from validation.api.http import StrictFields, check_if_match, conditional, etag_of, if_match_precondition
from validation.models import RuleSet
from validation.services import rulesets

from .fleet import preview_response
from .serializers import (
    PreviewPendingSerializer,
    RecheckSerializer,
    RuleSerializer,
    RuleSetDetailSerializer,
    RuleSetSerializer,
)


class StaffWritesRules(BasePermission):
    """Everyone signed in reads rule sets; staff draft, edit and publish them."""

    def has_permission(self, request, view):
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return bool(request.user and request.user.is_authenticated)
        return permissions.can_manage_rulesets(request.user)


class DraftRequestSerializer(StrictFields, serializers.Serializer):
    based_on = serializers.IntegerField(
        required=False, help_text="Rule-set number to copy (default: current)"
    )
    notes = serializers.CharField(required=False, allow_blank=True)


class RecordsSerializer(StrictFields, serializers.Serializer):
    records = serializers.CharField(help_text="Error records, one JSON object a line", trim_whitespace=False)


class RuleSetViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    permission_classes = [StaffWritesRules, TokenScope]
    conditional_actions = ("retrieve", "save_rule", "delete_rule", "publish", "import_records")

    def get_queryset(self):
        queryset = selectors.rulesets_ordered()
        if self.action == "list":
            return queryset.annotate(rule_count=Count("rules"))
        return queryset.prefetch_related("rules")

    def get_serializer_class(self):
        if self.action == "create":
            return DraftRequestSerializer
        return RuleSetDetailSerializer if self.action == "retrieve" else RuleSetSerializer

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "current_ruleset": selectors.ruleset_current()}

    def _data(self, ruleset) -> dict:
        ruleset = RuleSet.objects.prefetch_related("rules").get(pk=ruleset.pk)
        return RuleSetDetailSerializer(ruleset, context=self.get_serializer_context()).data

    def _detail(self, ruleset, code=status.HTTP_200_OK):
        data = self._data(ruleset)
        return Response(data, status=code, headers={"ETag": etag_of(data)})

    def _draft(self, request):
        """The rule set of the URL, after ``If-Match`` (when sent) is checked against it."""
        ruleset = self.get_object()
        check_if_match(request, self._data(ruleset), what=f"rule set {ruleset.number}")
        return ruleset

    def _unchanged(self, request, ruleset):
        """The If-Match check again, by the rule-set service under the rule set's row lock (atomic)."""
        return if_match_precondition(request, lambda: self._data(ruleset), what=f"rule set {ruleset.number}")

    def _etag(self, ruleset) -> dict:
        return {"ETag": etag_of(self._data(ruleset))}

    def retrieve(self, request, *args, **kwargs):
        return conditional(request, self._data(self.get_object()))

    @extend_schema(
        request=DraftRequestSerializer,
        responses={201: RuleSetDetailSerializer},
        examples=[
            OpenApiExample(
                "A draft of the current rule set", {"notes": "stricter policies"}, request_only=True
            )
        ],
    )
    def create(self, request, *args, **kwargs):
        """A new draft: a copy of the current rule set (or of ``based_on``)."""
        serializer = DraftRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        based_on = serializer.validated_data.get("based_on")
        source = get_object_or_404(RuleSet, number=based_on) if based_on else None
        draft = rulesets.ruleset_draft_create(
            actor=request.user, based_on=source, notes=serializer.validated_data.get("notes", "")
        )
        return self._detail(draft, status.HTTP_201_CREATED)

    @extend_schema(
        request=RuleSerializer,
        responses={200: RuleSerializer},
        examples=[
            OpenApiExample(
                "A policy rule",
                {
                    "id": "org-no-enforce-eager",
                    "category": "policy",
                    "severity": "error",
                    "message": "production profiles must not disable CUDA graphs (--enforce-eager)",
                    "when": "has(args.enforce_eager) && args.enforce_eager == true",
                    "kinds": ["serving"],
                    "fields": ["enforce_eager"],
                },
                request_only=True,
            )
        ],
    )
    @action(detail=True, methods=["post"], url_path="rules")
    def save_rule(self, request, pk=None):
        """Add a rule to a draft, or change one (by id); its CEL (condition and message template) is compiled
        before it is saved."""
        ruleset = self._draft(request)
        serializer = RuleSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        rule = rulesets.rule_save(
            ruleset=ruleset,
            data=serializer.rule_data(),
            actor=request.user,
            precondition=self._unchanged(request, ruleset),
        )
        return Response(RuleSerializer(rule).data, headers=self._etag(ruleset))

    @extend_schema(request=None, responses={204: None})
    @action(detail=True, methods=["delete"], url_path=r"rules/(?P<rule_id>[-a-zA-Z0-9_.]+)")
    def delete_rule(self, request, pk=None, rule_id=None):
        ruleset = self._draft(request)
        rulesets.rule_delete(
            ruleset=ruleset,
            rule_id=rule_id,
            actor=request.user,
            precondition=self._unchanged(request, ruleset),
        )
        return Response(status=status.HTTP_204_NO_CONTENT, headers=self._etag(ruleset))

    @extend_schema(
        request=RecordsSerializer,
        responses={201: RuleSerializer(many=True)},
        examples=[
            OpenApiExample(
                "One record",
                {
                    "records": '{"slug": "example-refusal", "errorMessage": "example refusal", '
                    '"filePath": "vllm/config/vllm.py", "lineNumber": 1}\n'
                },
                request_only=True,
            )
        ],
    )
    @action(detail=True, methods=["post"], url_path="import-records", pagination_class=None)
    def import_records(self, request, pk=None):
        """Error records (docs/error-records.md) become disabled draft rules awaiting a CEL condition."""
        ruleset = self._draft(request)
        serializer = RecordsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        created = rulesets.ruleset_import_records(
            ruleset=ruleset,
            text=serializer.validated_data["records"],
            actor=request.user,
            precondition=self._unchanged(request, ruleset),
        )
        return Response(
            RuleSerializer(created, many=True).data,
            status=status.HTTP_201_CREATED,
            headers=self._etag(ruleset),
        )

    @extend_schema(
        request=None,
        responses={
            202: inline_serializer(
                "Published", {"recheck": serializers.IntegerField(), "ruleset": serializers.IntegerField()}
            )
        },
    )
    @action(detail=True, methods=["post"])
    def publish(self, request, pk=None):
        """Make the draft current and immutable; every profile is re-checked in the background."""
        ruleset = self._draft(request)
        recheck = rulesets.ruleset_publish(
            ruleset=ruleset, actor=request.user, precondition=self._unchanged(request, ruleset)
        )
        return Response(
            {"recheck": recheck.pk, "ruleset": recheck.ruleset.number}, status=status.HTTP_202_ACCEPTED
        )

    @extend_schema(responses={200: dict, 202: PreviewPendingSerializer})
    @action(detail=True, methods=["get"])
    def impact(self, request, pk=None):
        """Dry run of this rule set over every stored profile: who would become invalid, valid, or change.
        Above ``PREVIEW_INLINE_PROFILES`` profiles a worker computes it and this answers 202 until the result
        is ready (poll the same URL)."""
        outcome = previews.preview_or_schedule(ruleset=self.get_object())
        return preview_response(request, outcome, previews.preview_profiles())

    @extend_schema(
        parameters=[OpenApiParameter("other", int, OpenApiParameter.PATH, description="rule-set number")],
        responses={200: dict},
    )
    @action(detail=True, methods=["get"], url_path=r"compare/(?P<other>[0-9]+)")
    def compare(self, request, pk=None, other=None):
        """Rules added, removed and changed from rule set ``other`` (a number) to this one."""
        return Response(
            rulesets.ruleset_compare(old=get_object_or_404(RuleSet, number=other), new=self.get_object())
        )


__all__ = ["RecheckSerializer", "RuleSetViewSet"]
