from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from profiles.api.views import ProfileViewSet, TeamViewSet
from validation.api.views import FleetView, ReleaseViewSet, RuleSetViewSet, ValidateView

router = DefaultRouter()
router.register("profiles", ProfileViewSet, basename="profile")
router.register("teams", TeamViewSet, basename="team")
router.register("releases", ReleaseViewSet, basename="release")
router.register("rulesets", RuleSetViewSet, basename="ruleset")

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/v1/validate/", ValidateView.as_view(), name="api-validate"),
    path("api/v1/fleet/", FleetView.as_view(), name="api-fleet"),
    path("api/v1/", include(router.urls)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("", include("profiles.urls")),
]
