"""The operators' admin as Django's `admin.site`, with a throttled login.

Listed in INSTALLED_APPS instead of "django.contrib.admin": same app label, templates and
migrations; only the default site class changes (loaded lazily, once the models are ready)."""

from django.contrib.admin.apps import AdminConfig


class OperatorAdminConfig(AdminConfig):
    default_site = "apps.accounts.admin_login.OperatorAdminSite"
