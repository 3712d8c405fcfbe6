from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from accounts.api import ApiTokenViewSet, AuditEventViewSet
from accounts.views import LoginView
from config import health
from config.metrics import metrics_view
from fleet.api.alerts import AlertPreferenceView, AlertViewSet
from fleet.api.fleet import FleetView, RecheckViewSet, ReleasePreviewView
from fleet.api.rulesets import RuleSetViewSet
from fleet.api.views import ReleaseViewSet
from hub.api import ModelConfigViewSet, NodeTypeViewSet
from profiles.api.admission import AdmissionView
from profiles.api.views import ProfileViewSet, TeamViewSet, ValidateView
from sources.api.views import GitCredentialViewSet, GitSourceViewSet

router = DefaultRouter()
router.register("profiles", ProfileViewSet, basename="profile")
router.register("me/tokens", ApiTokenViewSet, basename="token")
router.register("audit", AuditEventViewSet, basename="audit")
router.register("teams", TeamViewSet, basename="team")
router.register("releases", ReleaseViewSet, basename="release")
router.register("rulesets", RuleSetViewSet, basename="ruleset")
router.register("rechecks", RecheckViewSet, basename="recheck")
router.register("sources", GitSourceViewSet, basename="source")
router.register("git-credentials", GitCredentialViewSet, basename="git-credential")
router.register("alerts", AlertViewSet, basename="alert")
router.register("model-configs", ModelConfigViewSet, basename="model-config")
router.register("node-types", NodeTypeViewSet, basename="node-type")

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/login/", LoginView.as_view(), name="login"),  # SSO and LOCAL_LOGIN aware
    path("accounts/", include("django.contrib.auth.urls")),
    path("oidc/", include("mozilla_django_oidc.urls")),  # single sign-on: 404 unless configured
    path("api/v1/validate/", ValidateView.as_view(), name="api-validate"),
    path("api/v1/admission/", AdmissionView.as_view(), name="api-admission"),
    path("api/v1/fleet/", FleetView.as_view(), name="api-fleet"),
    path("api/v1/me/alert-preferences/", AlertPreferenceView.as_view(), name="api-alert-preferences"),
    path("api/v1/releases/<str:version>/preview/", ReleasePreviewView.as_view(), name="api-release-preview"),
    path("metrics", metrics_view, name="metrics"),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("", include("notifications.urls")),  # /api/v1/teams/{slug}/notification-targets/, before the router
    path("api/v1/", include(router.urls)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its start-up script as a file: the CSP allows no inline script.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("", include("accounts.urls")),
    path("", include("hub.urls")),
    path("", include("fleet.urls")),
    path("", include("profiles.urls")),
]
