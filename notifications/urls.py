from django.urls import path

from . import api, views

app_name = "notifications"

_targets = api.NotificationTargetViewSet
urlpatterns = [
    path(
        "api/v1/teams/<slug:slug>/notification-targets/",
        _targets.as_view({"get": "list", "post": "create"}),
        name="api-targets",
    ),
    path(
        "api/v1/teams/<slug:slug>/notification-targets/deliveries/",
        _targets.as_view({"get": "deliveries"}),
        name="api-deliveries",
    ),
    path(
        "api/v1/teams/<slug:slug>/notification-targets/<int:pk>/",
        _targets.as_view({"get": "retrieve", "delete": "destroy"}),
        name="api-target",
    ),
    path(
        "api/v1/teams/<slug:slug>/notification-targets/<int:pk>/test/",
        _targets.as_view({"post": "test"}),
        name="api-target-test",
    ),
    path("teams/<slug:slug>/notification-targets/", views.targets_post, name="targets-post"),
]
