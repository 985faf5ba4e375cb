"""Reads for the server-rendered pages."""

from django.conf import settings
from django.http import HttpRequest

from apps.common.locale import request_country
from apps.tenants.constants import ENTRY_WARNING_STRICT_COUNTRIES

# Spec §2: the entry warning is hidden on these routes.
ENTRY_WARNING_HIDDEN_ROUTES = frozenset({"complete-signup", "reset-password", "reset-password-do"})


def entry_warning_visible(*, request: HttpRequest, layout: str) -> bool:
    """The server's half of the site-entry warning rules (spec §2, §9). The island
    itself skips standalone mode and a dismissal stored in the browser."""
    site = getattr(request, "site", None)
    if site is None or site.enable_site_entry_popup != "yes" or layout == "empty":
        return False
    if request.user.is_authenticated:
        return False
    if request.COOKIES.get(settings.ENTRY_WARNING_COOKIE_NAME):
        return False
    match = getattr(request, "resolver_match", None)
    if match is not None and match.url_name in ENTRY_WARNING_HIDDEN_ROUTES:
        return False
    country = request_country(request)
    if layout in ("chat", "lander") and country not in ENTRY_WARNING_STRICT_COUNTRIES:
        return False
    # With an unknown country the warning is shown: an adult gate fails safe.
    allowed = [c.code for c in site.entry_popup_countries]
    return not (allowed and country and country not in allowed)
