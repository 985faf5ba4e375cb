from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LandersConfig(AppConfig):
    """The landers (spec §2 landers-*, members-id-landing*), the site pages of the
    {token} route and the landers' video. Models in the public schema (a shared app)."""

    name = "apps.landers"
    label = "landers"
    verbose_name = _("Landers and site pages")
