from django.urls import path

from . import views

app_name = "accounts"

urlpatterns = [
    path("me/tokens/", views.token_list, name="tokens"),
    path("me/tokens/<int:pk>/revoke/", views.token_revoke, name="token-revoke"),
    path("audit/", views.audit_list, name="audit"),
]
