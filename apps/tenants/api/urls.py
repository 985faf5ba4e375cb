from django.urls import path

from apps.common.api.views import page_hidden
from apps.tenants.api.views import SettingsApi

urlpatterns = [
    path("settings.php", SettingsApi.as_view(), name="api-settings"),
    path("page-hidden.php", page_hidden, name="api-page-hidden"),
]
