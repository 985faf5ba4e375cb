"""Finds the site for the request's host and switches the database to its schema.

An unknown host gets the generic 404 page: never another site's content."""

import threading
import time
from collections import OrderedDict

from django.db import connection
from django.db.models import prefetch_related_objects
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django_tenants.middleware.main import TenantMainMiddleware

from apps.common.prepared import PreparedQuery
from apps.tenants.models import Domain, Site

# Site lookups happen on every request; a short in-process cache keeps them off the
# database. Operators' edits reach every process within SITE_CACHE_SECONDS, and at
# once in the process that saved them (see apps.tenants.signals). Only sites found are
# kept: a host asked for before its site existed is served by every process as soon as
# the site is saved, and made-up Host headers cannot fill the cache (each costs one
# indexed lookup, as an unknown host always did the first time).
SITE_CACHE_SECONDS = 10.0
SITE_CACHE_MAX_ENTRIES = 4096
_site_cache: OrderedDict[str, tuple[float, Site]] = OrderedDict()
_site_cache_lock = threading.Lock()


def site_cache_clear() -> None:
    with _site_cache_lock:
        _site_cache.clear()


def site_cached(hostname: str) -> tuple[Site, float] | None:
    """The site this process keeps for `hostname`, without asking the database, and how
    many seconds it is past its time (negative while fresh); None when none is kept. For
    what answers before this middleware runs (apps.common.page_cache)."""
    cached = _site_cache.get(hostname)
    if cached is None:
        return None
    expires, site = cached
    return site, time.monotonic() - expires


# A site's first request after SITE_CACHE_SECONDS (with many sites, most of a process's
# lookups) reads its domain, site and company: compiled once per process, not per lookup
# (docs/bench.md, "landing" at full size).
_DOMAIN = PreparedQuery(
    lambda hostname: Domain.objects.select_related("tenant", "tenant__company").filter(domain=hostname).order_by()[:1]
)


def site_for_host(hostname: str) -> Site | None:
    now = time.monotonic()
    cached = _site_cache.get(hostname)
    if cached and cached[0] > now:
        return cached[1]
    domains = _DOMAIN.objects(hostname=hostname)
    site = domains[0].tenant if domains else None
    if site is None:
        return None
    prefetch_related_objects([site], "minimum_message_costs")
    with _site_cache_lock:
        _site_cache[hostname] = (now + SITE_CACHE_SECONDS, site)
        _site_cache.move_to_end(hostname)
        while len(_site_cache) > SITE_CACHE_MAX_ENTRIES:
            _site_cache.popitem(last=False)
    return site


# The unknown host's page needs its stylesheet and nothing else: no script, no frame.
NO_SITE_CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)


def not_found_response(request: HttpRequest) -> HttpResponse:
    """The generic 404 of an unknown host. It is answered before the security middleware
    further down the stack run, so it carries their headers itself."""
    from django.utils.translation import gettext

    context = {"request": request, "status": 404, "message": gettext("This page could not be found")}
    html = render_to_string("errors/error_no_site.html", context)
    response = HttpResponse(html, status=404)
    response["Content-Security-Policy"] = NO_SITE_CSP
    response["X-Frame-Options"] = "DENY"
    response["Cache-Control"] = "no-store"
    return response


def unavailable_response(request: HttpRequest, site: Site) -> HttpResponse:
    """A site its operators switched off: 503 "site unavailable" (its members' data is
    kept; switching it on again brings everything back), in the site's default language,
    JSON under /api/. Answered before the rest of the stack, with its own headers."""
    from django.http import JsonResponse
    from django.utils import translation
    from django.utils.translation import gettext

    from apps.common.exceptions import error_body

    with translation.override(site.domain_language or site.default_language):
        message = gettext("%(site)s is not available at the moment.") % {"site": site.name}
        if request.path.startswith("/api/"):
            response = JsonResponse(error_body("site_unavailable", message), status=503)
        else:
            context = {"request": request, "site": site, "message": message}
            response = HttpResponse(render_to_string("errors/site_unavailable.html", context), status=503)
    response["Content-Security-Policy"] = NO_SITE_CSP
    response["X-Frame-Options"] = "DENY"
    response["Cache-Control"] = "no-store"
    response["Retry-After"] = "3600"
    return response


class SiteMiddleware(TenantMainMiddleware):
    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        connection.set_schema_to_public()
        hostname = request.get_host().split(":")[0].lower().rstrip(".") if self._host_ok(request) else None
        site = site_for_host(hostname) if hostname else None
        if site is None:
            return not_found_response(request)
        if not site.is_active:
            return unavailable_response(request, site)
        site.domain_url = hostname
        request.tenant = site
        request.site = site
        # The thread whose connection is in the site's schema (apps.common.views).
        request.site_thread = threading.get_ident()
        connection.set_tenant(site)
        self.setup_url_routing(request)
        return None

    @staticmethod
    def _host_ok(request: HttpRequest) -> bool:
        from django.core.exceptions import DisallowedHost

        try:
            request.get_host()
        except DisallowedHost:
            return False
        return True
