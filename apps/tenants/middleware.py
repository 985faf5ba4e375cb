"""Finds the site for the request's host and switches the database to its schema.

An unknown host gets the generic 404 page: never another site's content."""

import logging
import os
import secrets
import threading
import time
from collections import OrderedDict

from django.conf import settings
from django.contrib.postgres.aggregates import JSONBAgg
from django.core.exceptions import DisallowedHost
from django.db import connection
from django.db.models import OuterRef, Subquery
from django.db.models.functions import JSONObject
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django_tenants.middleware.main import TenantMainMiddleware
from redis import RedisError

from apps.common.prepared import PreparedQuery
from apps.tenants.models import Domain, MinimumMessageCost, Site

logger = logging.getLogger(__name__)

# Site lookups happen on every request; an in-process cache keeps them off the database.
# A committed change to a site, its domains, its company or its message costs counts up
# the sites' generation in Redis (`sites_changed`, connected in apps.tenants.apps), and a
# thread of each process reads the generation every SITE_CHECK_SECONDS and drops the
# sites it keeps when it moved: operators' edits reach every process within about a
# second, and at once in the process that saved them. So a site is kept up to
# SITE_CACHE_SECONDS, not read again every few seconds (with 1,000 sites that was a
# reload per site and process every 10 s, most of a process's lookups). While the
# generation cannot be read, a site is used at most SITE_UNCHECKED_SECONDS past the last
# reading. Only sites found are kept: a host asked for before its site existed is served
# by every process as soon as the site is saved, and made-up Host headers cannot fill the
# cache (each costs one indexed lookup, as an unknown host always did the first time).
SITE_CACHE_SECONDS = 120.0
SITE_CHECK_SECONDS = 1.0
SITE_UNCHECKED_SECONDS = 10.0
SITE_CACHE_MAX_ENTRIES = 4096
_site_cache: OrderedDict[str, tuple[float, Site]] = OrderedDict()
_site_cache_lock = threading.Lock()
_checker_lock = threading.Lock()


class _Generation:
    """What this process knows of the sites' generation."""

    clears = 0  # counted up by every clear: a lookup that read before one does not keep it
    checked = 0.0  # monotonic time of the last reading
    value: bytes | None = None  # the last value read
    pid = 0  # the process whose checker thread runs
    unannounced = False  # a change committed while Redis did not answer
    failing = False  # the last reading failed (logged once)


_generation = _Generation()


# This process's id, kept up to date by the fork hook below (os.getpid() is a system call
# on every lookup otherwise).
_pid = os.getpid()


def _after_fork() -> None:
    """A child of a fork gets new locks (the parent's checker thread may have held one)
    and starts its own checker on its first lookup."""
    global _site_cache_lock, _checker_lock, _pid
    _site_cache_lock = threading.Lock()
    _checker_lock = threading.Lock()
    _pid = os.getpid()


os.register_at_fork(after_in_child=_after_fork)


def site_cache_clear() -> None:
    with _site_cache_lock:
        _generation.clears += 1
        _site_cache.clear()


def _fresh_until(expires: float) -> float:
    return min(expires, _generation.checked + SITE_UNCHECKED_SECONDS)


def _generation_key() -> str:
    """One per database and key prefix: test runs, the bench and a development site on one
    Redis do not drop each other's sites."""
    default = settings.CACHES["default"]
    return f"{default.get('KEY_PREFIX', '')}:sites-generation:{settings.DATABASES['default']['NAME']}"


def sites_check() -> bool:
    """Read the sites' generation once; drop the kept sites when it moved since the last
    reading. Returns whether it was read. The checker thread calls it every
    SITE_CHECK_SECONDS."""
    try:
        if _generation.unannounced:
            _announce()
        value = _redis_client().get(_generation_key()) or b""
    except (RedisError, OSError) as exc:  # Redis away: the kept sites age out in SITE_UNCHECKED_SECONDS
        if not _generation.failing:
            _generation.failing = True
            logger.warning("the sites' generation could not be read: %s", exc)
        return False
    if value != _generation.value:
        site_cache_clear()
        _generation.value = value
    _generation.checked = time.monotonic()
    _generation.failing = False
    return True


def sites_changed() -> None:
    """Give the sites' generation a new value (after a commit): every process drops its
    kept sites within SITE_CHECK_SECONDS; this one at once. When Redis does not answer,
    the checker thread gives it the new value as soon as it does."""
    site_cache_clear()
    try:
        _announce()
    except (RedisError, OSError):
        _generation.unannounced = True
        logger.warning(
            "a change to a site is not announced yet: other processes keep their sites until it is (%s s at most)",
            SITE_CACHE_SECONDS,
            exc_info=True,
        )


def _announce() -> None:
    """A new random value (not a count, which a Redis restarted empty could bring back to
    a value already read); when the previous value is the one this process read last,
    this change was the only one since, and this process, which has dropped its sites,
    need not drop them again at its next reading."""
    value = secrets.token_hex(8).encode()
    previous = _redis_client().set(_generation_key(), value, get=True) or b""
    _generation.unannounced = False
    if previous == _generation.value:
        _generation.value = value


def _redis_client():
    """The default cache's Redis client (its shared pool and timeouts; redis-py's pool
    makes its connections anew in a forked child)."""
    from django.core.cache import caches

    return caches["default"]._cache.get_client(write=True)


def _checker_ensure() -> None:
    """Start this process's checker thread (again after a fork)."""
    pid = _pid
    if _generation.pid == pid:
        return
    with _checker_lock:
        if _generation.pid == pid:
            return
        _generation.pid = pid
        sites_check()
        threading.Thread(target=_checker_run, args=(pid,), name="sites-generation", daemon=True).start()


def _checker_run(pid: int) -> None:
    while _generation.pid == pid:
        time.sleep(SITE_CHECK_SECONDS)
        try:
            sites_check()
        except Exception:  # never ends the thread
            logger.exception("sites' generation check failed")


def site_cached(hostname: str) -> tuple[Site, float] | None:
    """The site this process keeps for `hostname`, without asking the database, and how
    many seconds it is past its time (negative while fresh); None when none is kept. For
    what answers before this middleware runs (apps.common.page_cache)."""
    _checker_ensure()
    cached = _site_cache.get(hostname)
    if cached is None:
        return None
    expires, site = cached
    return site, time.monotonic() - _fresh_until(expires)


# A site's first request in SITE_CACHE_SECONDS (with many sites, many of a process's
# lookups) reads its domain, site and company, and the site's minimum message costs, which
# every page that prices a message reads, as one JSON array beside them: one statement,
# compiled once per process, not per lookup (docs/bench.md, "landing" at full size).
_COST_FIELDS = ("id", "site_id", "country", "costs", "currency")
_DOMAIN = PreparedQuery(
    lambda hostname: (
        Domain.objects.select_related("tenant", "tenant__company")
        .annotate(
            site_costs=Subquery(
                MinimumMessageCost.objects.filter(site_id=OuterRef("tenant_id"))
                .order_by()
                .values("site_id")
                .annotate(rows=JSONBAgg(JSONObject(**{name: name for name in _COST_FIELDS}), order_by="id"))
                .values("rows")
            )
        )
        .filter(domain=hostname)
        .order_by()[:1]
    )
)


def _costs_prefetched(site: Site, rows: list[dict] | None) -> None:
    """`site.minimum_message_costs.all()` answered without a query, as
    prefetch_related_objects leaves it, from the rows read with the domain."""
    field = MinimumMessageCost._meta.get_field("site")
    costs = []
    for row in rows or ():
        cost = MinimumMessageCost.from_db(connection.alias, _COST_FIELDS, tuple(row[name] for name in _COST_FIELDS))
        field.set_cached_value(cost, site)
        costs.append(cost)
    queryset = site.minimum_message_costs.all()
    queryset._result_cache = costs
    queryset._prefetch_done = True
    site._prefetched_objects_cache = {"minimum_message_costs": queryset}


def site_for_host(hostname: str) -> Site | None:
    _checker_ensure()
    now = time.monotonic()
    cached = _site_cache.get(hostname)
    if cached and _fresh_until(cached[0]) > now:
        return cached[1]
    clears = _generation.clears
    domains = _DOMAIN.objects(hostname=hostname)
    if not domains:
        return None
    site = domains[0].tenant
    _costs_prefetched(site, domains[0].site_costs)
    with _site_cache_lock:
        if clears != _generation.clears:  # read before a change was committed: not kept
            return site
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
        host = self._host(request)
        hostname = host.split(":")[0].lower().rstrip(".") if host else None
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
    def _host(request: HttpRequest) -> str | None:
        """The request's host, None when ALLOWED_HOSTS refuses it."""
        try:
            return request.get_host()
        except DisallowedHost:
            return None
