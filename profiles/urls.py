from django.urls import path

from . import views

app_name = "profiles"

urlpatterns = [
    path("", views.profile_list, name="list"),
    path("profiles/new/", views.profile_create, name="create"),
    path("profiles/states/", views.profile_states, name="states"),
    path("teams/", views.team_list, name="team-list"),
    path("teams/<slug:slug>/", views.team_detail, name="team-detail"),
    path("teams/<slug:slug>/members/<int:member_id>/", views.team_member_update, name="team-member"),
    path("teams/<slug:slug>/sso-groups/", views.team_sso_groups, name="team-sso-groups"),
    path("profiles/validate/", views.profile_validate, name="validate"),
    path("profiles/fix-source/", views.profile_source_fix, name="source-fix"),
    path("profiles/name-field/", views.profile_name_field, name="name-field"),
    path("profiles/import/", views.profile_import_manifest, name="import-manifest"),
    path("profiles/<int:pk>/", views.profile_detail, name="detail"),
    path("profiles/<int:pk>/edit/", views.profile_edit, name="edit"),
    path("profiles/<int:pk>/releases/", views.profile_release_matrix, name="release-matrix"),
    path("profiles/<int:pk>/upgrade/", views.profile_upgrade_path, name="upgrade-path"),
    path("profiles/<int:pk>/fix/<slug:rule_id>/", views.profile_fix, name="fix"),
    path("profiles/<int:pk>/split/", views.profile_split, name="split"),
    path("profiles/<int:pk>/refresh-model/", views.profile_refresh_model, name="refresh-model"),
    path("profiles/<int:pk>/waivers/", views.waiver_create, name="waiver-create"),
    path(
        "profiles/<int:pk>/waivers/<int:waiver_id>/<str:decision>/",
        views.waiver_decide,
        name="waiver-decide",
    ),
]
