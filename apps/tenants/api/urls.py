from django.urls import path

from apps.tenants.api.views import SettingsApi

urlpatterns = [
    path("settings.php", SettingsApi.as_view(), name="api-settings"),
]
