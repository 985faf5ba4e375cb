"""HTTPS for every site's domain the moment it is saved: the proxy in front of the web
processes (deploy/Caddyfile, Caddy's on-demand TLS) asks `/tls/ask?domain=<name>` on the
operators' host before it gets a certificate for a name it has not seen, and may only for
a domain of an active site or the operators' own host. A made-up name pointed at our
address gets no certificate, so nobody can spend the certificate authority's rate limits
(docs/deploy.md) or fill the proxy's storage with names of their choosing.

Each domain keeps two times for the site admin: when the proxy last asked for it
(`certificate_requested`) and when a request last came in over HTTPS (`last_seen_https`,
which proves the certificate was issued and is served). Both are written at most once
per MARK_INTERVAL per domain: the request path pays a dictionary lookup, not a write."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db import DatabaseError
from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.common.exceptions import ApplicationError
from apps.tenants.middleware import site_for_host
from apps.tenants.models import Domain
from apps.tenants.validators import hostname as hostname_validator

# A host name has at most 253 characters; anything much longer is refused before it is
# decoded (an IDN's Unicode form is shorter than its punycode).
MAX_ASKED_LENGTH = 253
MARK_INTERVAL = timedelta(minutes=10)
# The names whose times this process wrote lately. Only names of sites get here (the ask
# and the site middleware answer other names before), and the bound keeps it small even
# with thousands of domains: a forgotten entry costs one more conditional UPDATE.
MARKS_MAX_ENTRIES = 4096
MARK_FIELDS = ("certificate_requested", "last_seen_https")
_marked: OrderedDict[tuple[str, str], float] = OrderedDict()
_marked_lock = threading.Lock()

logger = logging.getLogger(__name__)


def marks_clear() -> None:
    with _marked_lock:
        _marked.clear()


def asked_hostname(raw: str | None) -> str:
    """The host name in an ask, as the domains are stored: lower case, no trailing dot,
    an internationalised name in its punycode (ASCII) form. A missing, overlong or
    malformed name (a port, a scheme, a path, control characters) is refused with 400."""
    if not raw:
        raise ApplicationError("invalid_domain", _("Give the domain to check as ?domain=<name>."))
    name = raw.strip().rstrip(".").lower()
    if len(name) > MAX_ASKED_LENGTH * 2:
        raise ApplicationError("invalid_domain", _("This is not a host name."))
    if not name.isascii():
        try:
            name = name.encode("idna").decode("ascii")
        except UnicodeError as error:
            raise ApplicationError("invalid_domain", _("This is not a host name.")) from error
    try:
        hostname_validator(name)
    except ValidationError as error:
        raise ApplicationError("invalid_domain", _("This is not a host name.")) from error
    return name


def certificate_allowed(name: str) -> bool:
    """Whether the proxy may get a certificate for `name`: a domain of an active site, or
    of the operators' host (the public schema's row). One lookup in the site cache of
    the request path (apps.tenants.middleware): names of sites are kept there, an
    unknown name costs one indexed query."""
    site = site_for_host(name)
    if site is None:
        return False
    return site.is_active or site.schema_name == "public"


def domain_mark(name: str, field: str) -> bool:
    """Set the domain's `field` (one of MARK_FIELDS) to now, unless this process did so
    within MARK_INTERVAL. The UPDATE itself only changes a row whose time is older than
    MARK_INTERVAL, so many processes together still write it at most about once per
    interval. Returns whether a row was written."""
    if field not in MARK_FIELDS:
        raise ValueError(field)
    key, now = (field, name), time.monotonic()
    with _marked_lock:
        due = _marked.get(key)
        if due is not None and due > now:
            return False
        _marked[key] = now + MARK_INTERVAL.total_seconds()
        _marked.move_to_end(key)
        while len(_marked) > MARKS_MAX_ENTRIES:
            _marked.popitem(last=False)
    moment = timezone.now()
    stale = Q(**{f"{field}__isnull": True}) | Q(**{f"{field}__lt": moment - MARK_INTERVAL})
    return bool(Domain.objects.filter(stale, domain=name).update(**{field: moment}))


class HttpsSeenMiddleware:
    """Records that a site's domain answered over HTTPS (the proxy's X-Forwarded-Proto,
    trusted as SECURE_PROXY_SSL_HEADER and by uvicorn's --proxy-headers): the site
    admin's "last seen over HTTPS". Placed after SiteMiddleware, so only a site's own
    host names arrive here."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        if getattr(request, "site", None) is not None and request.is_secure():
            name = request.get_host().split(":")[0].lower().rstrip(".")
            try:
                domain_mark(name, "last_seen_https")
            except DatabaseError:
                # A note for the admin is not worth the page: the request goes on and
                # meets the database's trouble, if any, where it is answered properly.
                logger.warning("last seen over HTTPS not recorded for %s", name, exc_info=True)
        return self.get_response(request)


def https_state(domain: Domain) -> str:
    """A domain's HTTPS state as the site admin says it."""
    if domain.pk is None:
        return ""
    if domain.last_seen_https is not None:
        return _("Certificate issued; last seen over HTTPS %(when)s") % {"when": _moment(domain.last_seen_https)}
    if domain.certificate_requested is not None:
        return _("Certificate requested %(when)s; not seen over HTTPS yet") % {
            "when": _moment(domain.certificate_requested)
        }
    return _("No certificate yet: the first HTTPS request to this domain gets one")


def https_summary(domains) -> str:
    """The site list's column: every domain seen over HTTPS, or which are not yet."""
    waiting = [domain.domain for domain in domains if domain.last_seen_https is None]
    if not waiting:
        return _("Certificates issued for every domain")
    return _("Not seen over HTTPS yet: %(domains)s") % {"domains": ", ".join(sorted(waiting))}


def _moment(value) -> str:
    from django.utils.formats import date_format

    return date_format(timezone.localtime(value), "DATETIME_FORMAT")
