from django.urls import path

from . import views

app_name = "validation"

urlpatterns = [
    path("rulesets/", views.ruleset_list, name="ruleset-list"),
    path("rulesets/drafts/", views.ruleset_draft_create, name="ruleset-draft-create"),
    path("rulesets/compare/", views.ruleset_compare, name="ruleset-compare"),
    path("rulesets/<int:number>/", views.ruleset_detail, name="ruleset-detail"),
    path("rulesets/<int:number>/rules/new/", views.rule_edit, name="rule-new"),
    path("rulesets/<int:number>/try/", views.rule_try, name="rule-try"),
    path("rulesets/<int:number>/document/", views.document_reference, name="document-reference"),
    path("rulesets/<int:number>/rules/<str:rule_id>/", views.rule_edit, name="rule-edit"),
    path("rulesets/<int:number>/rules/<str:rule_id>/body/", views.rule_body, name="rule-body"),
    path("rulesets/<int:number>/rules/<str:rule_id>/toggle/", views.rule_toggle, name="rule-toggle"),
    path("rulesets/<int:number>/rules/<str:rule_id>/delete/", views.rule_delete, name="rule-delete"),
    path("rulesets/<int:number>/import/", views.ruleset_import, name="ruleset-import"),
    path("rulesets/<int:number>/impact/", views.ruleset_impact, name="ruleset-impact"),
    path("rulesets/<int:number>/publish/", views.ruleset_publish, name="ruleset-publish"),
    path("rechecks/<int:pk>/", views.recheck_detail, name="recheck-detail"),
    path("rechecks/<int:pk>/progress/", views.recheck_progress, name="recheck-progress"),
    path("releases/", views.release_list, name="release-list"),
    path("releases/chart/", views.release_chart, name="release-chart"),
    path("releases/fleet/", views.fleet_update, name="fleet-update"),
    path("releases/fleet/confirm/", views.fleet_confirm, name="fleet-confirm"),
    path("releases/diff/", views.release_diff, name="release-diff"),
    path("releases/<str:version>/preview/", views.release_preview, name="release-preview"),
    path("releases/<str:version>/coverage/", views.release_coverage, name="release-coverage"),
    path("alerts/", views.alert_list, name="alert-list"),
    path("alerts/preference/", views.alert_preference, name="alert-preference"),
]
