from django.urls import path

from . import views

app_name = "hub"

urlpatterns = [
    path("models/", views.model_config_list, name="model-configs"),
    path("models/<int:pk>/", views.model_config_detail, name="model-config"),
    path("models/<int:pk>/refresh/", views.model_config_refresh, name="model-config-refresh"),
]
