"""The operators' admin as Django's `admin.site`: a password and a second factor (TOTP)
under one lockout (apps.accounts.admin_login). Staff roles are groups
(apps.accounts.staff, set up by apps.accounts.apps).

Listed in INSTALLED_APPS instead of "django.contrib.admin": same app label, templates and
migrations; only the default site class changes (loaded lazily, once the models are ready)."""

from django.apps import apps
from django.conf import settings
from django.contrib.admin.apps import AdminConfig
from django.utils.translation import gettext_lazy as _


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
        # The product's name on every page, not "Django administration".
        admin.site.site_header = admin.site.site_title = settings.PRODUCT_NAME
        admin.site.index_title = _("Operators' admin")
        # allauth's e-mail addresses are named "Accounts" as the staff's section was: in
        # this schema they are the staff's own addresses (members' live in their sites).
        apps.get_app_config("account").verbose_name = _("Staff e-mail addresses")
