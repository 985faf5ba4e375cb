"""The operators' admin as Django's `admin.site`: a password and a second factor (TOTP)
under one lockout (apps.accounts.admin_login), and staff roles as groups
(apps.accounts.staff).

Listed in INSTALLED_APPS instead of "django.contrib.admin": same app label, templates and
migrations; only the default site class changes (loaded lazily, once the models are ready)."""

from django.contrib.admin.apps import AdminConfig
from django.db.models.signals import post_migrate


class OperatorAdminConfig(AdminConfig):
    default_site = "apps.accounts.admin_login.OperatorAdminSite"

    def ready(self) -> None:
        super().ready()  # autodiscovers every app's admin module
        from django.contrib import admin
        from django_otp.plugins.otp_totp.models import TOTPDevice

        from apps.accounts import staff  # noqa: F401 - registers the roles' system check
        from apps.accounts.staff import roles_on_post_migrate
        from apps.accounts.user_relations import user_relations_per_schema

        # django-otp's device admin shows a device's secret as a QR code; staff enrol and
        # reset their second factor through the login and the staff admin instead.
        if admin.site.is_registered(TOTPDevice):
            admin.site.unregister(TOTPDevice)
        post_migrate.connect(roles_on_post_migrate, sender=self, dispatch_uid="staff-roles")
        user_relations_per_schema()
