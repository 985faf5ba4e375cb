"""The operators' admin as Django's `admin.site`: a password and a second factor (TOTP)
under one lockout (apps.accounts.admin_login). Staff roles are groups
(apps.accounts.staff, set up by apps.accounts.apps).

Listed in INSTALLED_APPS instead of "django.contrib.admin": same app label, templates and
migrations; only the default site class changes (loaded lazily, once the models are ready)."""

from django.contrib.admin.apps import AdminConfig


class OperatorAdminConfig(AdminConfig):
    default_site = "apps.accounts.admin_login.OperatorAdminSite"

    def ready(self) -> None:
        super().ready()  # autodiscovers every app's admin module
        from django.contrib import admin
        from django_otp.plugins.otp_totp.models import TOTPDevice

        # django-otp's device admin shows a device's secret as a QR code; staff enrol and
        # reset their second factor through the login and the staff admin instead.
        if admin.site.is_registered(TOTPDevice):
            admin.site.unregister(TOTPDevice)
