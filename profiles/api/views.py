from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.functional import SimpleLazyObject
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import token_prefetched
from profiles import manifest_services, selectors, services, upgrade_services
from profiles.filters import ProfileFilter
from profiles.models import Profile, Team
from validation.api.http import (
    PreconditionFailed,
    StrictFields,
    check_if_match,
    conditional,
    etag_of,
    if_match_given,
    if_match_precondition,
)
from validation.selectors import fleet_release, reference_stamp_columns

from ..models import VerdictChange, Waiver
from ..services import waivers as waiver_services
from .serializers import (
    FindingsDocumentSerializer,
    FixPreviewSerializer,
    FixRequestSerializer,
    ImportSerializer,
    ManifestImportErrorSerializer,
    ManifestImportResultSerializer,
    ManifestImportSerializer,
    ProfileListSerializer,
    ProfileSerializer,
    ProfileWriteSerializer,
    TeamMemberSerializer,
    TeamNodeTypeSerializer,
    TeamSerializer,
    TeamSsoGroupsSerializer,
    ValidateAnswerSerializer,
    ValidateRequestSerializer,
    VerdictChangeSerializer,
)


def _upgrade_target(request) -> str:
    return (request.query_params.get("to") or "").strip() or upgrade_services.newest_release()


EXAMPLE_COMMAND = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --tensor-parallel-size 2"


def example(name: str, value: dict) -> OpenApiExample:
    """A request body that works as given (against a team ``ml-platform``): shown by the docs page and sent
    by schemathesis's example phase."""
    return OpenApiExample(name, value=value, request_only=True)


PROFILE_EXAMPLE = example(
    "A serving profile from a command line",
    {"team": "ml-platform", "name": "llama-8b", "kind": "serving", "command": EXAMPLE_COMMAND},
)


class WaiverSerializer(StrictFields, serializers.ModelSerializer):
    requested_by = serializers.CharField(source="requested_by.username", read_only=True, allow_null=True)
    granted_by = serializers.CharField(
        source="granted_by.username", read_only=True, allow_null=True, help_text="null while pending"
    )
    pending = serializers.BooleanField(
        read_only=True, help_text="requested, not yet approved by a second person"
    )
    active = serializers.SerializerMethodField()

    class Meta:
        model = Waiver
        fields = [
            "id",
            "rule_id",
            "reason",
            "requested_by",
            "granted_by",
            "granted_at",
            "expires_at",
            "created_at",
            "revoked_at",
            "pending",
            "active",
        ]
        read_only_fields = ["id", "granted_at", "created_at", "revoked_at"]

    def get_active(self, obj) -> bool:
        return obj.granted_by_id is not None and obj.revoked_at is None and obj.expires_at > timezone.now()


class ProfileViewSet(viewsets.ModelViewSet):
    """Profiles. Create and update validate first: error findings give 400 and nothing is saved."""

    filterset_class = ProfileFilter
    ordering_fields = ["name", "updated_at", "created_at", "kind"]
    ordering = ["team__slug", "name"]
    # config.schema documents ETag / If-None-Match / If-Match on these.
    conditional_actions = ("retrieve", "update", "partial_update", "destroy", "waivers")
    conditional_actions += ("approve_waiver", "revoke_waiver")

    @property
    def token_prefetch(self):
        """A create reads the reference stamp (releases, fleet, rule set) with the API token, in one round
        trip, as a validation does (``ApiTokenAuthentication``)."""
        return reference_stamp_columns if self.action in ("create", "import_") else None

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Profile.objects.none()
        if self.action == "list":
            # The same profiles, with the member's teams as literal ids: as a subquery, PostgreSQL tested
            # every profile of the fleet against it (profiles_listed_for).
            return selectors.profiles_listed_for(self.request.user)
        return selectors.profiles_visible_to(self.request.user)

    def get_serializer_class(self):
        if self.action in ("create", "update", "partial_update"):
            return ProfileWriteSerializer
        if self.action == "list":
            return ProfileListSerializer
        return ProfileSerializer

    def get_serializer_context(self):
        context = super().get_serializer_context()
        # Read when a profile that follows the fleet is shown (not for one pinned to a release).
        context["fleet_release"] = SimpleLazyObject(fleet_release)
        return context

    def _data(self, profile) -> dict:
        profile = self.get_queryset().get(pk=profile.pk)
        return ProfileSerializer(profile, context=self.get_serializer_context()).data

    def _output(self, profile, code=status.HTTP_200_OK):
        data = self._data(profile)
        return Response(data, status=code, headers={"ETag": etag_of(data)})

    def _created(self, profile):
        """201 with the profile just created, shown from the objects its save wrote, which hold what a later
        GET reads (the save read its JSON fields and findings back as stored): the same body and ETag."""
        data = ProfileSerializer(profile, context=self.get_serializer_context()).data
        return Response(data, status=status.HTTP_201_CREATED, headers={"ETag": etag_of(data)})

    def retrieve(self, request, *args, **kwargs):
        return conditional(request, self._data(self.get_object()))

    @extend_schema(
        request=ProfileWriteSerializer,
        responses={201: ProfileSerializer, 400: FindingsDocumentSerializer},
        examples=[PROFILE_EXAMPLE],
    )
    def create(self, request, *args, **kwargs):
        serializer = ProfileWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        team_slug = data.pop("team", None)
        if not team_slug:
            return Response({"team": ["a profile needs a team (its slug)"]}, status=400)
        data.pop("revision", None)
        created = services.profile_create_by_slug(
            actor=request.user,
            team_slug=team_slug,
            data=services.ProfileInput.from_mapping(data),
            stamp=token_prefetched(request),
        )
        if created is None:
            return Response({"team": [f"no team with slug {team_slug!r}"]}, status=400)
        return self._created(created[0])

    @extend_schema(
        request=ProfileWriteSerializer,
        responses={200: ProfileSerializer, 400: FindingsDocumentSerializer},
        examples=[example("Change the arguments", {"kind": "serving", "command": EXAMPLE_COMMAND})],
    )
    def update(self, request, *args, **kwargs):
        profile = self.get_object()
        partial = kwargs.get("partial", False)
        serializer = ProfileWriteSerializer(data=request.data, partial=partial)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        conditional_write = if_match_given(request)
        if conditional_write:
            check_if_match(request, self._data(profile), what=f"profile {profile.pk}")
            # The service's own revision check makes the ETag check atomic with the write.
            data.setdefault("revision", profile.revision)
        try:
            profile, _ = services.profile_edit(
                actor=request.user, profile=profile, data=data, partial=partial
            )
        except services.EditConflict as exc:
            if conditional_write:
                raise PreconditionFailed(exc.message) from exc
            raise
        return self._output(profile)

    @extend_schema(
        request=ProfileWriteSerializer,
        responses={200: ProfileSerializer, 400: FindingsDocumentSerializer},
        examples=[example("Change one argument", {"engine_args": {"max_model_len": 4096}})],
    )
    def partial_update(self, request, *args, **kwargs):
        return super().partial_update(request, *args, **kwargs)

    def destroy(self, request, *args, **kwargs):
        profile = self.get_object()
        check_if_match(request, self._data(profile), what=f"profile {profile.pk}")
        services.profile_delete(actor=request.user, profile=profile)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(responses=VerdictChangeSerializer(many=True))
    @action(detail=True, methods=["get"])
    def history(self, request, pk=None):
        profile = self.get_object()
        changes = VerdictChange.objects.filter(profile=profile).select_related("ruleset", "release", "actor")
        page = self.paginate_queryset(changes)
        serializer = VerdictChangeSerializer(page if page is not None else changes, many=True)
        return self.get_paginated_response(serializer.data) if page is not None else Response(serializer.data)

    @extend_schema(
        parameters=[OpenApiParameter("to", description="the target release (default: the newest catalog)")],
        responses={200: dict},
    )
    @action(detail=True, methods=["get"], url_path="upgrade-path")
    def upgrade_path(self, request, pk=None):
        """Release by release from the profile's release to ``to``: every argument it sets that vLLM removes,
        renames, retypes or deprecates (with the replacement), the first release that refuses it, and a
        proposed revision for the target."""
        profile = self.get_object()
        return Response(upgrade_services.profile_upgrade_path(profile, target=_upgrade_target(request)))

    @extend_schema(
        operation_id="v1_profiles_fleet_upgrade_path",
        parameters=[OpenApiParameter("to", description="the target release (default: the newest catalog)")],
        responses={200: dict},
    )
    @action(detail=False, methods=["get"], url_path="upgrade-path")
    def fleet_upgrade_path(self, request):
        """The same for every profile listed (filters apply) as a table: profiles x releases, each cell
        ``ok``, ``deprecated``, ``changed`` or ``refused``; profiles on ``to`` or newer are left out."""
        profiles = self.filter_queryset(self.get_queryset()).select_related("vllm_release", "team")
        return Response(upgrade_services.fleet_upgrade_table(profiles, target=_upgrade_target(request)))

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "format",
                enum=["command", "yaml", "json", *manifest_services.EXPORT_FORMATS],
                default="command",
            )
        ],
        responses={(200, "text/plain"): str},
    )
    @action(detail=True, methods=["get"], url_path="export")
    def export(self, request, pk=None):
        profile = self.get_object()
        fmt = request.query_params.get("format", "command")
        if fmt in manifest_services.EXPORT_FORMATS:
            text = manifest_services.profile_render_manifest(profile, fmt=fmt)
        else:
            text = services.profile_render(profile, fmt=fmt)
        content_type = {"json": "application/json", "yaml": "application/yaml"}.get(fmt, "text/plain")
        if fmt in manifest_services.EXPORT_FORMATS:
            content_type = "application/yaml"
        return HttpResponse(text, content_type=f"{content_type}; charset=utf-8")

    @extend_schema(
        request=ImportSerializer,
        responses={201: ProfileSerializer, 400: FindingsDocumentSerializer},
        examples=[
            example(
                "A vLLM config file",
                {
                    "team": "ml-platform",
                    "name": "llama-config",
                    "kind": "serving",
                    "config": "model: meta-llama/Llama-3.1-8B-Instruct\nmax_model_len: 8192\n",
                },
            )
        ],
    )
    @action(detail=False, methods=["post"], url_path="import")
    def import_(self, request):
        serializer = ImportSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        team = get_object_or_404(Team, slug=data.pop("team"))
        profile, _ = services.profile_create(
            actor=request.user,
            team=team,
            data=services.ProfileInput.from_mapping(data),
            stamp=token_prefetched(request),
        )
        return self._created(profile)

    @extend_schema(
        request=ManifestImportSerializer,
        responses={201: ManifestImportResultSerializer, 400: ManifestImportErrorSerializer},
        examples=[
            example(
                "A Deployment",
                {
                    "team": "ml-platform",
                    "manifest": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: llama}\nspec:\n"
                    "  template:\n    spec:\n      containers:\n      - name: vllm\n"
                    "        image: vllm/vllm-openai\n"
                    "        args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, '8192']\n",
                },
            )
        ],
    )
    @action(detail=False, methods=["post"], url_path="import-manifest")
    def import_manifest(self, request):
        """Kubernetes manifests or production-stack values in: one profile per vLLM container or modelSpec.

        All or nothing: when any would be refused, nothing is stored; the 400 lists every profile's findings.
        """
        serializer = ManifestImportSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        team = get_object_or_404(Team, slug=data["team"])
        try:
            result = manifest_services.profiles_import_manifest(
                actor=request.user,
                team=team,
                text=data["manifest"],
                filename=data.get("filename", ""),
                kind=data.get("kind") or None,
            )
        except manifest_services.ManifestInvalid as exc:
            body = {
                "detail": exc.message,
                "profiles": [
                    {
                        "name": w.name,
                        "source": w.source,
                        "error": w.error,
                        "findings": w.verdict.as_dict() if w.verdict else None,
                    }
                    for w in exc.workloads
                ],
            }
            return Response(body, status=status.HTTP_400_BAD_REQUEST)
        profiles = self.get_queryset().filter(pk__in=[p.pk for p, _ in result.created])
        context = self.get_serializer_context()
        return Response(
            {
                "profiles": ProfileSerializer(profiles, many=True, context=context).data,
                "skipped": result.skipped,
            },
            status=status.HTTP_201_CREATED,
        )

    def _waivers(self, profile) -> list:
        """The profile's waivers as a whole: their ETag validates every page of the list."""
        return WaiverSerializer(
            profile.waivers.select_related("granted_by", "requested_by").order_by("pk"), many=True
        ).data

    def _waivers_unchanged(self, request, profile):
        """The If-Match check again, by the waiver service under the profile's row lock (atomic)."""
        return if_match_precondition(
            request, lambda: self._waivers(profile), what=f"the waivers of profile {profile.pk}"
        )

    @extend_schema(methods=["GET"], responses=WaiverSerializer(many=True))
    @extend_schema(
        methods=["POST"],
        request=WaiverSerializer,
        responses={201: WaiverSerializer},
        examples=[
            example(
                "Waive one rule for a month",
                {"rule_id": "policy-x", "reason": "accepted risk", "expires_at": "2030-01-31T00:00:00Z"},
            )
        ],
    )
    @action(detail=True, methods=["get", "post"])
    def waivers(self, request, pk=None):
        """A waiver exempts this profile from one rule until it expires; waived findings stay visible.

        POST requests one (an editor of the team); it waives nothing until a team admin or staff who is not
        the requester approves it (``POST .../waivers/{id}/approve/``).
        The list's ETag changes with any of the profile's waivers; send it as If-Match to change them."""
        profile = self.get_object()
        tag = etag_of(self._waivers(profile))
        if request.method == "GET":
            if tag in (request.headers.get("If-None-Match") or ""):
                return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": tag})
            waivers = profile.waivers.select_related("granted_by", "requested_by").order_by("pk")
            page = self.paginate_queryset(waivers)
            response = self.get_paginated_response(WaiverSerializer(page, many=True).data)
            response["ETag"] = tag
            return response
        check_if_match(request, self._waivers(profile), what=f"the waivers of profile {profile.pk}")
        serializer = WaiverSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        waiver = waiver_services.waiver_request(
            actor=request.user,
            profile=profile,
            precondition=self._waivers_unchanged(request, profile),
            **serializer.validated_data,
        )
        return Response(
            WaiverSerializer(waiver).data,
            status=status.HTTP_201_CREATED,
            headers={"ETag": etag_of(self._waivers(profile))},
        )

    @extend_schema(request=None, responses={200: WaiverSerializer})
    @action(detail=True, methods=["post"], url_path=r"waivers/(?P<waiver_id>[0-9]+)/approve")
    def approve_waiver(self, request, pk=None, waiver_id=None):
        """Approve a pending waiver: a team admin or staff, never its requester. The profile is re-checked."""
        profile = self.get_object()
        waiver = get_object_or_404(Waiver, pk=waiver_id, profile=profile)
        check_if_match(request, self._waivers(profile), what=f"the waivers of profile {profile.pk}")
        waiver = waiver_services.waiver_approve(
            actor=request.user, waiver=waiver, precondition=self._waivers_unchanged(request, profile)
        )
        return Response(WaiverSerializer(waiver).data, headers={"ETag": etag_of(self._waivers(profile))})

    @extend_schema(request=None, responses={200: ProfileSerializer})
    @action(detail=True, methods=["post"], url_path="refresh-model")
    def refresh_model(self, request, pk=None):
        """Fetch the model's and draft model's config.json again; re-check the profiles that read them."""
        profile = self.get_object()
        services.profile_model_refresh(actor=request.user, profile=profile)
        return self._output(profile)

    @extend_schema(
        methods=["GET"],
        parameters=[
            OpenApiParameter("rule", str, required=True, description="The rule id of the finding."),
            OpenApiParameter("solution", int, description="The solution to preview (default: the first)."),
        ],
        responses=FixPreviewSerializer,
    )
    @extend_schema(
        methods=["POST"],
        request=FixRequestSerializer,
        responses={200: ProfileSerializer},
        examples=[
            example(
                "Apply the first listed solution of a finding",
                {"rule": "policy-collection-no-speculative", "solution": 0},
            )
        ],
    )
    @action(detail=True, methods=["get", "post"])
    def fix(self, request, pk=None):
        """A finding's listed solutions, each with the change that applies it (null: done by hand); GET
        previews one (``solution``: its index) with the state after it, POST saves it as the next revision."""
        profile = self.get_object()
        if request.method == "GET":
            query = FixRequestSerializer(data=request.query_params.dict())
            query.is_valid(raise_exception=True)
            preview = services.profile_fix_preview(
                profile=profile,
                rule_id=query.validated_data["rule"],
                solution=query.validated_data.get("solution"),
            )
            return Response(FixPreviewSerializer(preview).data)
        body = FixRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        profile, _ = services.profile_apply_fix(
            actor=request.user,
            profile=profile,
            rule_id=body.validated_data["rule"],
            solution=body.validated_data.get("solution"),
            expected_revision=body.validated_data.get("revision"),
        )
        return self._output(profile)

    @extend_schema(request=None, responses={200: WaiverSerializer})
    @action(detail=True, methods=["post"], url_path=r"waivers/(?P<waiver_id>[0-9]+)/revoke")
    def revoke_waiver(self, request, pk=None, waiver_id=None):
        profile = self.get_object()
        waiver = get_object_or_404(Waiver, pk=waiver_id, profile=profile)
        check_if_match(request, self._waivers(profile), what=f"the waivers of profile {profile.pk}")
        waiver = waiver_services.waiver_revoke(
            actor=request.user, waiver=waiver, precondition=self._waivers_unchanged(request, profile)
        )
        return Response(WaiverSerializer(waiver).data, headers={"ETag": etag_of(self._waivers(profile))})


class ValidateView(APIView):
    """Dry run: the findings document for a profile, valid or not. Nothing is stored."""

    token_read_only_ok = True  # a read-only API token may ask (nothing is written)
    # The reference stamp (releases, fleet, rule set) is read with the API token: one round trip, not two.
    token_prefetch = staticmethod(reference_stamp_columns)

    @extend_schema(
        request=ValidateRequestSerializer,
        responses={200: ValidateAnswerSerializer},
        examples=[example("A command line", {"kind": "serving", "command": EXAMPLE_COMMAND})],
    )
    def post(self, request):
        serializer = ValidateRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = services.ProfileInput.from_mapping(serializer.validated_data)
        verdict, found = services.profile_dry_run_found(data=data, stamp=token_prefetched(request))
        return Response({**verdict.as_dict(), "found": found})


@extend_schema_view(
    create=extend_schema(examples=[example("A team", {"slug": "research", "name": "Research"})])
)
class TeamViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet
):
    """Teams. Staff create them; the creator becomes the team's admin."""

    serializer_class = TeamSerializer
    lookup_field = "slug"
    conditional_actions = ("retrieve", "members", "default_node_type", "sso_groups")

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Team.objects.none()
        return selectors.teams_visible_to(self.request.user).prefetch_related("memberships__user")

    def retrieve(self, request, *args, **kwargs):
        return conditional(request, TeamSerializer(self.get_object()).data)

    def _unchanged(self, request, team):
        """The If-Match check again, by the team service under the team's row lock (atomic)."""
        return if_match_precondition(
            request, lambda: TeamSerializer(Team.objects.get(pk=team.pk)).data, what=f"team {team.slug}"
        )

    def _changed(self, team) -> Response:
        data = TeamSerializer(Team.objects.get(pk=team.pk)).data
        return Response(data, headers={"ETag": etag_of(data)})

    def perform_create(self, serializer):
        serializer.instance = services.team_create(
            actor=self.request.user,
            slug=serializer.validated_data["slug"],
            name=serializer.validated_data.get("name", ""),
        )

    @extend_schema(
        request=TeamMemberSerializer,
        responses=TeamSerializer,
        examples=[example("Add a viewer", {"username": "ada", "role": "viewer", "watch": True})],
    )
    @action(detail=True, methods=["post"])
    def members(self, request, slug=None):
        team = self.get_object()
        check_if_match(request, TeamSerializer(team).data, what=f"team {team.slug}")
        serializer = TeamMemberSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.team_add_member(
            actor=request.user,
            team=team,
            user=serializer.validated_data["username"],
            role=serializer.validated_data["role"],
            watch=serializer.validated_data["watch"],
            precondition=self._unchanged(request, team),
        )
        return self._changed(team)

    @extend_schema(
        request=TeamNodeTypeSerializer,
        responses=TeamSerializer,
        examples=[example("No default node type", {"node_type": ""})],
    )
    @action(detail=True, methods=["put"], url_path="default-node-type")
    def default_node_type(self, request, slug=None):
        """The node type of the team's profiles that choose none ("" for none); they are re-checked."""
        team = self.get_object()
        check_if_match(request, TeamSerializer(team).data, what=f"team {team.slug}")
        serializer = TeamNodeTypeSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.team_set_default_node_type(
            actor=request.user,
            team=team,
            name=serializer.validated_data["node_type"],
            precondition=self._unchanged(request, team),
        )
        return self._changed(team)

    @extend_schema(
        request=TeamSsoGroupsSerializer,
        responses=TeamSerializer,
        examples=[example("Map two groups", {"groups": {"ml-platform": "editor", "ml-leads": "admin"}})],
    )
    @action(detail=True, methods=["put"], url_path="sso-groups")
    def sso_groups(self, request, slug=None):
        """Single sign-on: the groups that make a user a member, with their roles; applied at each sign-in."""
        team = self.get_object()
        check_if_match(request, TeamSerializer(team).data, what=f"team {team.slug}")
        serializer = TeamSsoGroupsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.team_set_sso_groups(
            actor=request.user,
            team=team,
            groups=serializer.validated_data["groups"],
            precondition=self._unchanged(request, team),
        )
        return self._changed(team)
