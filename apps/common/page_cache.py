"""Visitors' landing pages from a cache: the home page and the landers, answered at the
ASGI level without Django's request cycle when the same page was rendered a moment ago.

A visitor's landing page is the same for every visitor of a site who reads it in the same
language from the same country with the same cookies that matter; only the CSRF token,
the CSP nonce and the cookies differ per response. So:

- `PageCacheApp` wraps the Django ASGI application (config/asgi.py). For a GET without a
  query string (or with passing parameters only, below), without a session or messages
  cookie, on a site this process has in its site cache (apps.tenants.middleware, through
  apps.common.sites), it computes the page's *variant*: the site's settings (a
  fingerprint of its and its company's fields), the built assets (the esbuild manifest's
  mtime), the Host header, https or not, the path, the language the site middleware would
  pick, the visitor's country, whether the entry warning was accepted, the cookie choice,
  and whether the tracking cookie holds a network or any tracking parameter (signup
  offer, cookie banner).
  A stored page of that variant younger than PAGE_SECONDS is sent at once with a fresh
  nonce (body and CSP header), a CSRF token masked from the visitor's CSRF cookie (or a
  new secret, sent as Django sends it), and for landers the tracking cookie the lander's
  view would set. No query, no thread, one Redis HMGET; the entry is decompressed and
  unpickled once per process while its bytes stay the same (`_decoded`).
- Otherwise Django handles the request. A view that may be cached is marked `cacheable`
  and calls `offer()` (the home page and the landers, for visitors only). `offer()`
  computes the variant again from Django's own request (after the site, locale, session
  and auth middleware), and the page is stored only when both agree, the answer is a 200
  with a CSP nonce, and it sets no cookie but the CSRF cookie and a visit cookie of the
  offer (the lander's tracking cookie): a response that starts a session or carries
  messages is never stored. The nonce and every masked form of the response's CSRF secret
  are replaced by markers; the secret itself must not be left in the page.

A paid arrival (`/?t=30&network=…&sub1=…`) is a visit too: the redirect that keeps the
tracking parameters in the tracking cookie and removes them from the address
(apps.accounts.tracking, registered with `arrival`) is stored once per host and language
as Django made it, and answered for every later arrival with that visitor's own Location
and cookie, made by the same function, and told to the `arrival_seen` hooks (the visit
is counted: apps.conversions.visits); the page it leads to (`/?t=30`) has only
parameters no page reads (`passing_params`), so it is the plain visit's page, from the
cache or rendered without them. When that page is stored for the visitor as they come
back with the redirect's cookies, the arrival is answered with the page and those cookies
at once (one response; the page's script takes the parameters out of the address). The
visitor's tracking cookie is checked once and the new one signed once (`Visitor`,
`signed_cookie_set`), and the stored redirect is not decoded when the page answers.

It is infrastructure beside SiteASGIHandler and knows no app above apps.common: the
addresses it looks up are those of the `cacheable` views in the site URLconf
(`cached_paths`), and the app that owns a cookie a page depends on registers what of it
makes another page and how it is set again per visitor (`variant_part`, `visit_cookie`;
apps.accounts.apps for the tracking cookie).

Only a site's own host is cached: a Host header that is not one of its Domain rows as
written (another case, a trailing dot, a port other than the server's own) goes to Django
uncached, so spellings of one host cannot multiply its pages. Entries live in one Redis
hash per site, `<schema>:<KEY_PREFIX>:1:page-cache`, in the evictable cache
(CACHES["volatile"], CACHE_URL: a Redis of its own with maxmemory and allkeys-lru, never
the broker's), laid out as django-tenants lays out the cache's keys so the test and bench
prefixes separate them too. The hash gets its TTL when it is made (STORE_SECONDS, Redis
6.2 and 7 alike), so entries of old variants do not pile up, and what one site can store
is capped: SITE_PAGES pages, ADDRESS_VARIANTS variants of one address, and CAMPAIGNS
campaign labels of one lander (a lander's page names its own address, so every label is
a page of its own). Past a cap a page is rendered and not stored; once a site's store
has said no, its lookups read the hash's counts with the page, and a page the store would
refuse is not made into an entry, compressed and sent (`_refused`). A cache that does not
answer is skipped for a few seconds and logged once (apps.common.cache): the page is
rendered as if nothing were stored. Saving a site, its domains, its company, its lander video or pages, a photo or
deleting a profile drops the site's hash (`site_pages_forget`, connected in apps.pages.apps);
a site's settings are part of the variant anyway, so other processes, whose site cache
lags the change by a second or so (apps.tenants.middleware), never serve a page of the old
settings under the new ones.
docs/decisions.md "Landing pages from a cache" says why.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import hashlib
import logging
import os
import pickle
import re
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import parse_qsl

from django.conf import settings
from django.core import signing
from django.core.signals import setting_changed
from django.http import HttpRequest, HttpResponse
from django.http.cookie import SimpleCookie, parse_cookie
from django.http.request import RAISE_ERROR, split_domain_port, validate_host
from django.middleware.csrf import CSRF_TOKEN_LENGTH, InvalidTokenFormat, _check_token_format, _unmask_cipher_token

from apps.common.cache import (
    CACHE_ERRORS,
    AsyncCommands,
    LuaScript,
    volatile_answered,
    volatile_available,
    volatile_failed,
    volatile_settings,
)
from apps.common.i18n import pick_language
from apps.common.islands import assets_version
from apps.common.locale import request_country
from apps.common.sites import site_cached, site_for_host

logger = logging.getLogger(__name__)

# A stored page is served this long after it was rendered; for up to PAGE_SECONDS more
# while one request of this process renders it again (the others do not wait for it).
PAGE_SECONDS = 30
# A site this long past its time in the site cache is still used while a background
# task reloads it (apps.tenants.middleware.SITE_CACHE_SECONDS).
SITE_STALE_SECONDS = 10
# A site's hash of pages is dropped this long after it was made (every variant is rendered
# again then), which bounds the entries of variants no longer asked for.
STORE_SECONDS = 300
# What one site stores at most, whatever visitors ask for (a Host spelling, a made-up
# campaign label, a country header): pages in all, variants (language, country,
# cookies, https) of one address, and campaign labels ({slug}) of one lander. Past them
# pages are rendered and not stored; the hash's TTL starts them again.
SITE_PAGES = 100
ADDRESS_VARIANTS = 24
CAMPAIGNS = 16
# Markers for the per-response parts; HTML never holds a NUL (BadInputMiddleware).
NONCE_MARK = b"\x00page-cache-nonce\x00"
CSRF_MARK = b"\x00page-cache-csrf\x00"
# Connections of a process to the cache's Redis; more lookups at once wait for one.
REDIS_CONNECTIONS = 64
# Bump when the entry's layout changes.
ENTRY_FORMAT = 4
# A query string longer than this goes to Django unparsed (no site's link is that long).
QUERY_MAX_LENGTH = 2048
# The address under which a site's arrival redirects are counted (ADDRESS_VARIANTS of
# them at most): one redirect is stored per host, https and language, whatever the page.
ARRIVAL_ADDRESS = "?arrival"

_NONCE = re.compile(rb"'nonce-([A-Za-z0-9+/=]+)'")
# A masked CSRF token in a page: a run of exactly 64 letters and digits. Found on the page
# translated to its shape (every letter and digit "a", anything else " "), by bytes.find
# in C: a regular expression tried at every position took milliseconds per page.
_TOKEN_SHAPE = bytes(0x61 if chr(byte).isascii() and chr(byte).isalnum() else 0x20 for byte in range(256))
_TOKEN_RUN = b"a" * 64
_CSP_HEADERS = (b"content-security-policy", b"content-security-policy-report-only")


class _Settings:
    """The settings a cached visit reads, read once per process instead of through
    django.conf.settings on every request (each read of it is a Python call; a hit read
    about fifty). Read again after any setting changes (`setting_changed`: a test's
    override)."""

    __slots__ = (
        "allowed_hosts",
        "charset",
        "country_header",
        "country_meta",
        "csrf_cookie",
        "enabled",
        "entry_warning_cookie",
        "forwarded_host",
        "location",
        "max_fields",
        "messages_cookie",
        "proxy",
        "public_schema",
        "session_cookie",
        "signers",
        "ssl_redirect",
        "store_prefix",
        "timeouts",
        "urlconf",
    )

    def __init__(self) -> None:
        self.enabled = getattr(settings, "PAGE_CACHE", not settings.DEBUG)
        self.urlconf = settings.ROOT_URLCONF
        self.forwarded_host = getattr(settings, "USE_X_FORWARDED_HOST", False)
        allowed = settings.ALLOWED_HOSTS
        if settings.DEBUG and not allowed:
            allowed = [".localhost", "127.0.0.1", "[::1]"]
        self.allowed_hosts = allowed
        self.session_cookie = settings.SESSION_COOKIE_NAME
        self.messages_cookie = getattr(settings, "MESSAGE_COOKIE_NAME", "messages")
        self.public_schema = settings.PUBLIC_SCHEMA_NAME
        proxy = settings.SECURE_PROXY_SSL_HEADER
        self.proxy = (_header_name(proxy[0]), proxy[1]) if proxy else None
        self.ssl_redirect = settings.SECURE_SSL_REDIRECT
        self.country_meta = settings.GEOIP_COUNTRY_HEADER
        self.country_header = _header_name(settings.GEOIP_COUNTRY_HEADER)
        self.entry_warning_cookie = settings.ENTRY_WARNING_COOKIE_NAME
        self.csrf_cookie = settings.CSRF_COOKIE_NAME
        self.charset = settings.DEFAULT_CHARSET
        self.max_fields = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        volatile = volatile_settings()
        self.store_prefix = volatile.get("KEY_PREFIX", "")
        self.location = volatile["LOCATION"]
        options = volatile.get("OPTIONS", {})
        self.timeouts = {
            "socket_timeout": options.get("socket_timeout", 1),
            "socket_connect_timeout": options.get("socket_connect_timeout", 1),
        }
        self.signers: dict[str, signing.Signer] = {}


_settings_kept: _Settings | None = None


def _conf() -> _Settings:
    global _settings_kept
    kept = _settings_kept
    if kept is None:
        kept = _settings_kept = _Settings()
    return kept


def _settings_changed(**kwargs) -> None:
    global _settings_kept, _csrf_cookie_kept
    _settings_kept = None
    _csrf_cookie_kept = None


setting_changed.connect(_settings_changed)


def _header_name(meta_key: str) -> bytes:
    return meta_key.removeprefix("HTTP_").lower().replace("_", "-").encode("latin1")


@dataclass(slots=True)
class Offer:
    variant: str
    site: object
    family: str
    keep: dict | None
    arrival: bool = False


class _Slot:
    """What the view tells the ASGI wrapper about the response being made."""

    __slots__ = ("offer", "site")

    def __init__(self, site) -> None:
        self.site = site
        self.offer: Offer | None = None


_slot: contextvars.ContextVar[_Slot | None] = contextvars.ContextVar("page_cache_slot", default=None)


class Visitor:
    """The parts of a request that apps.common.i18n, apps.common.locale and the
    registered hooks (apps.accounts.tracking) read, for the ASGI side (no HttpRequest is
    built there).

    A signed cookie is checked once per visitor however often it is read (the variant,
    the arrival's redirect, its count), and not at all when this process signed it for
    this visitor a moment ago (`after`, `signed_cookie_set`)."""

    __slots__ = ("COOKIES", "META", "_signed", "headers")

    def __init__(self, cookies: dict, accept_language: str, country: str) -> None:
        self.COOKIES = cookies
        self.headers = {"Accept-Language": accept_language}
        self.META = {_conf().country_meta: country}
        # (cookie, salt) -> (the cookie's value as sent, its value once checked)
        self._signed: dict[tuple[str, str], tuple[str, str]] = {}

    def get_signed_cookie(self, key, default=RAISE_ERROR, salt="", max_age=None):
        """HttpRequest.get_signed_cookie, remembered per cookie value and salt."""
        raw = self.COOKIES.get(key)
        if max_age is not None or raw is None:
            return HttpRequest.get_signed_cookie(self, key, default, salt, max_age)
        known = self._signed.get((key, salt))
        if known is not None and known[0] == raw:
            return known[1]
        try:
            value = _cookie_signer(key + salt).unsign(raw)
        except signing.BadSignature:
            if default is RAISE_ERROR:
                raise
            return default
        self._signed[(key, salt)] = (raw, value)
        return value

    def after(self, response: HttpResponse) -> Visitor:
        """This visitor as they come back after `response`: with the cookies it sets."""
        cookies = dict(self.COOKIES)
        for name, morsel in response.cookies.items():
            cookies[name] = morsel.value
        visitor = Visitor(cookies, "", "")
        visitor.headers, visitor.META = self.headers, self.META
        for (key, salt), (raw, value) in self._signed.items():
            if cookies.get(key) == raw:
                visitor._signed[(key, salt)] = (raw, value)
        for key, (salt, value) in response.__dict__.get(_SIGNED_SET, {}).items():
            morsel = response.cookies.get(key)
            if morsel is not None:
                visitor._signed[(key, salt)] = (morsel.value, value)
        return visitor


_SIGNED_SET = "_page_cache_signed"


def signed_cookie_set(response: HttpResponse, key: str, value: str, *, salt: str, **kwargs) -> None:
    """`response.set_signed_cookie(key, value, salt=salt, **kwargs)`, remembering `value`
    on the response, so that the visitor as they come back with it (`Visitor.after`) does
    not check the signature just made."""
    response.set_cookie(key, _cookie_signer(key + salt).sign(value), **kwargs)  # as set_signed_cookie does
    response.__dict__.setdefault(_SIGNED_SET, {})[key] = (salt, value)


def _cookie_signer(salt: str) -> signing.Signer:
    """signing.get_cookie_signer(salt), made once per salt and keys instead of on every
    cookie read or set (its backend imported, its keys derived)."""
    signers = _conf().signers  # made again when a setting changes: a test's (or a rotation's) key
    signer = signers.get(salt)
    if signer is None:
        signer = signers[salt] = signing.get_cookie_signer(salt=salt)
    return signer


class _Cookies:
    """What a cached page's per-visitor cookies are set on: the cookie methods of a
    response, without building one."""

    __slots__ = ("__dict__", "cookies")

    set_cookie = HttpResponse.set_cookie
    set_signed_cookie = HttpResponse.set_signed_cookie

    def __init__(self) -> None:
        self.cookies = SimpleCookie()


# --- What the apps above tell it ---------------------------------------------------------
#
# Registered once, from the apps' AppConfig.ready(); read on every request, never changed
# while requests run.

_variant_parts: list[Callable[[Visitor], str]] = []
_visit_cookies: dict[bytes, Callable[..., None]] = {}
_arrival: list[tuple[Callable, Callable]] = []
_arrival_seen: list[Callable] = []
_passing: set[str] = set()


def cacheable(view: Callable) -> Callable:
    """Marks a view whose pages visitors may get from the cache: its addresses in the
    site URLconf are the ones looked up (`cached_paths`). The view still offers each page
    it renders (`offer`)."""
    view.page_cacheable = True
    return view


def variant_part(part: Callable[[Visitor], str]) -> None:
    """`part(visitor)` (a request or a Visitor) says in a few letters what else makes a
    page another for this visitor, e.g. a cookie of the registering app; added to every
    variant. Registering it again changes nothing."""
    if part not in _variant_parts:
        _variant_parts.append(part)


def visit_cookie(name: str, keep: Callable[..., None]) -> None:
    """A page offered with `keep` may set the cookie `name`: on every hit
    `keep(response, visitor, **keep)` sets it for that visitor as the view did."""
    _visit_cookies[name.encode("latin1")] = keep


def arrival(is_arrival: Callable, redirect: Callable) -> None:
    """A GET whose query `is_arrival(query)` (each parameter's last value, as a QueryDict
    reads it, in a dict) is answered with
    `redirect(visitor, path, query)`, an HttpResponse whose Location and cookies are the
    visitor's own (apps.accounts.tracking: the tracking parameters kept in a cookie and
    removed from the address). The other headers are those Django gave the first such
    redirect of the site's host and language (`offer_arrival`). One registration."""
    _arrival[:] = [(is_arrival, redirect)]


def arrival_seen(hook: Callable) -> None:
    """`await hook(site, visitor, query)` after an arrival was answered from the cache,
    with its redirect or its page (Django's tracking middleware, which counts the others,
    never saw it): the
    app that counts visits records it, cheaply, since it runs on the event loop of every
    such hit (apps.conversions.visits). Registering it again changes nothing."""
    if hook not in _arrival_seen:
        _arrival_seen.append(hook)


async def _arrival_counted(site, visitor, query) -> None:
    for hook in _arrival_seen:
        try:
            await hook(site, visitor, query)
        except Exception:  # the visitor has the redirect already; a lost count is logged
            logger.warning("page cache arrival hook failed", exc_info=True)


def passing_params(names) -> None:
    """Query parameters no cacheable page reads: a visitor's GET of a cached address
    with only these is answered as the address without them (the query string is left
    out for Django too, so the page rendered is exactly the plain visit's)."""
    _passing.update(names)
    _passing_only.cache_clear()


@lru_cache(maxsize=4)
def _cached_paths(urlconf: str) -> re.Pattern:
    from django.urls import get_resolver

    routes = list(_cacheable_routes(get_resolver(urlconf).url_patterns, ""))
    return re.compile(f"/(?:{'|'.join(routes)})") if routes else re.compile(r"(?!)")


_GROUP_NAME = re.compile(r"\(\?P<\w+>")


def _cacheable_routes(patterns: list, prefix: str):
    """The regular expressions of the `cacheable` views' routes, whole from the root,
    without their groups' names (one alternation may not name a group twice)."""
    from django.urls import URLResolver

    for entry in patterns:
        regex = _GROUP_NAME.sub("(?:", entry.pattern.regex.pattern).removeprefix("^")
        if isinstance(entry, URLResolver):
            yield from _cacheable_routes(entry.url_patterns, prefix + regex)
        elif getattr(entry.callback, "page_cacheable", False):
            yield prefix + regex.removesuffix(r"\Z").removesuffix("$")


def cached_paths() -> re.Pattern:
    """The addresses of the `cacheable` views (the home page, the landers), read from the
    site URLconf once: any other request goes straight on to Django, with no lookup."""
    return _cached_paths(_conf().urlconf)


# --- The variant -----------------------------------------------------------------------


def site_fingerprint(site) -> str:
    """Changes whenever one of the site's or its company's fields does: kept on the site
    object, which the site cache replaces when it reloads the site."""
    cached = site.__dict__.get("_page_cache_fingerprint")
    if cached is not None:
        return cached
    parts = [repr([getattr(site, field.attname) for field in site._meta.concrete_fields])]
    company = site.company if site.company_id else None
    if company is not None:
        parts.append(repr([getattr(company, field.attname) for field in company._meta.concrete_fields]))
    fingerprint = hashlib.blake2b("\n".join(parts).encode(), digest_size=8).hexdigest()
    site.__dict__["_page_cache_fingerprint"] = fingerprint
    return fingerprint


def variant(*, site, host: str, secure: bool, path: str, language: str, visitor, country: str | None) -> str:
    """The page's key within its site; `visitor` is the request or a Visitor."""
    flags = "e" if visitor.COOKIES.get(_conf().entry_warning_cookie) else "-"
    flags += "".join(part(visitor) for part in _variant_parts)
    parts = (site_fingerprint(site), assets_version(), host, "s" if secure else "-", path, language, country or "")
    return "|".join((*parts, flags))


def arrival_variant(*, site, host: str, secure: bool, language: str) -> str:
    """The key of a site's arrival redirect: its headers depend on the host, https and
    the language (Content-Language), not on the page, the country or the cookies (those
    it sets are the visitor's own, `arrival`)."""
    return "|".join((site_fingerprint(site), host, "s" if secure else "-", ARRIVAL_ADDRESS, language))


def store_key(schema_name: str) -> str:
    """The site's hash, laid out as django_tenants.cache.make_key lays out the cache's keys."""
    return f"{schema_name}:{_conf().store_prefix}:1:page-cache"


def canonical_host(host: str, server_port: int | None) -> bool:
    """Whether the Host header is a Domain row as written (the site middleware lowercases
    and strips a trailing dot before it looks the name up), with no port or the one this
    server listens on: one spelling per domain, the one a site's links use."""
    name, port = split_domain_port(host)  # lowercased, without a trailing dot
    return _canonical(host, name, port, server_port)


def _canonical(host: str, name: str, port: str, server_port: int | None) -> bool:
    if not name or name.startswith("[") or host != (f"{name}:{port}" if port else name):
        return False
    return not port or (server_port is not None and port == str(server_port))


# --- The view's side -------------------------------------------------------------------


def offer(request: HttpRequest, *, label: str = "", keep: dict | None = None) -> None:
    """The page being rendered for this request may be stored for other visitors (the
    ASGI wrapper decides when the response is complete). `label`: the free last part of
    the address (a lander's campaign label), of which one address stores CAMPAIGNS at
    most. `keep`: what the page's visit cookie remembers (`visit_cookie`; the lander and
    its label, apps.landers.views._render), set again for every visitor it is sent to."""
    slot = _slot.get()
    if slot is None or getattr(request, "site", None) is not slot.site:
        return
    if request.user.is_authenticated or request.method != "GET" or request.META.get("QUERY_STRING"):
        return
    storage = getattr(request, "_messages", None)
    if storage is not None and len(storage):
        return
    site = request.site
    key = variant(
        site=site,
        host=request.get_host(),
        secure=request.is_secure(),
        path=request.path,
        language=request.LANGUAGE_CODE,
        visitor=Visitor(request.COOKIES, "", ""),
        country=request_country(request),
    )
    # The address without its label: the family whose labels CAMPAIGNS counts.
    family = request.path.removesuffix(label) if label and request.path.endswith(f"/{label}") else ""
    slot.offer = Offer(variant=key, site=site, family=family, keep=keep)


def offer_arrival(request: HttpRequest) -> None:
    """The redirect being made for this arrival (`arrival`) may be stored for other
    visitors arriving at any cached page of the site in the same language."""
    slot = _slot.get()
    if slot is None or getattr(request, "site", None) is not slot.site or request.method != "GET":
        return
    site = request.site
    host, secure = request.get_host(), request.is_secure()
    key = arrival_variant(site=site, host=host, secure=secure, language=request.LANGUAGE_CODE)
    slot.offer = Offer(variant=key, site=site, family="", keep=None, arrival=True)


# --- Entries ---------------------------------------------------------------------------


@dataclass(slots=True)
class Entry:
    created: float
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes
    csrf: bool
    keep: dict | None
    arrival: bool = False


def entry_from_redirect(status: int, headers: list, body: bytes, redirect: HttpResponse) -> Entry | None:
    """An arrival's redirect as a template: Django's headers without the Location and the
    cookies, which `redirect` (what `arrival` makes for the same visitor) must have set
    exactly as Django did; None otherwise."""
    if status != redirect.status_code or body or not _arrival:
        return None
    expected = {cookie.output(header="").strip().split("=", 1)[0] for cookie in redirect.cookies.values()}
    kept, location, cookies = [], None, set()
    for name, value in headers:
        lower = bytes(name).lower()
        if lower == b"location":
            location = bytes(value).decode("latin1")
        elif lower == b"set-cookie":
            cookies.add(bytes(value).decode("latin1").split("=", 1)[0])
        elif lower in _CSP_HEADERS and _NONCE.search(value):
            return None  # a nonce for a redirect: not what this stores
        else:
            kept.append((bytes(name), bytes(value)))
    if location != redirect["Location"] or cookies != expected:
        return None
    return Entry(created=time.time(), status=status, headers=kept, body=b"", csrf=False, keep=None, arrival=True)


def _tokens(body: bytes) -> set[bytes]:
    """Every run of exactly 64 ASCII letters and digits in `body` (the masked CSRF tokens
    among them)."""
    shape = body.translate(_TOKEN_SHAPE)
    found = set()
    start = shape.find(_TOKEN_RUN)
    while start != -1:
        end = start + 64
        stop = shape.find(b" ", end)
        if stop == -1:
            stop = len(shape)
        if stop == end and (start == 0 or shape[start - 1] == 0x20):
            found.add(body[start:end])
        start = shape.find(_TOKEN_RUN, stop)
    return found


def entry_from_response(status: int, headers: list, body: bytes, offered: Offer) -> Entry | None:
    """The response as a template, or None when it must not be stored."""
    if status != 200:
        return None
    csrf_name = settings.CSRF_COOKIE_NAME.encode()
    kept, secret, nonce = [], None, None
    for name, value in headers:
        lower = bytes(name).lower()
        if lower == b"set-cookie":
            cookie, _, rest = bytes(value).partition(b"=")
            if cookie == csrf_name:
                secret = rest.split(b";", 1)[0]
            elif not (offered.keep and cookie in _visit_cookies):
                return None  # a session, messages, a language: not for other visitors
            continue
        if lower in _CSP_HEADERS:
            found = set(_NONCE.findall(value))
            if len(found) > 1:
                return None
            if found:
                nonce = found.pop()
                value = bytes(value).replace(b"'nonce-" + nonce + b"'", b"'nonce-" + NONCE_MARK + b"'")
        kept.append((bytes(name), bytes(value)))
    if not any(name.lower() == b"content-security-policy" for name, _value in kept):
        return None
    if nonce is not None:
        body = body.replace(nonce, NONCE_MARK)
    if secret is not None:
        text = secret.decode("ascii", "replace")
        for token in _tokens(body):
            try:
                if _unmask_cipher_token(token.decode("ascii")) == text:
                    body = body.replace(token, CSRF_MARK)
            except (ValueError, KeyError):
                continue
        if secret in body:
            return None  # the visitor's own secret in the page: never for others
    return Entry(
        created=time.time(),
        status=status,
        headers=kept,
        body=body,
        csrf=secret is not None,
        keep=offered.keep,
    )


# Django's CSRF alphabet (django.middleware.csrf.CSRF_ALLOWED_CHARS, 62 characters):
# random bytes below 248 (4 x 62) map onto it evenly, the others are dropped.
_CSRF_CHARS = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_CSRF_TABLE = bytes(_CSRF_CHARS[index % 62] for index in range(248)) + bytes(8)
_CSRF_DROPPED = bytes(range(248, 256))
_CSRF_INDEX = {char: index for index, char in enumerate(_CSRF_CHARS)}


def _csrf_random(length: int = 32) -> bytes:
    """What django.middleware.csrf._get_new_csrf_string makes (secrets.choice per
    character), from one urandom call instead of one per character."""
    chars = b""
    while len(chars) < length:
        chars += os.urandom(length + 8).translate(_CSRF_TABLE, _CSRF_DROPPED)
    return chars[:length]


def _csrf_mask(secret: str) -> bytes:
    """django.middleware.csrf._mask_cipher_secret: a random mask, then the secret shifted
    by it, character by character."""
    mask = _csrf_random()
    cipher = bytes(
        _CSRF_CHARS[(_CSRF_INDEX[x] + _CSRF_INDEX[y]) % 62] for x, y in zip(secret.encode("ascii"), mask, strict=True)
    )
    return mask + cipher


def _csrf_secret(cookies: dict) -> str:
    """The visitor's CSRF secret as CsrfViewMiddleware reads it, or a new one."""
    value = cookies.get(_conf().csrf_cookie)
    if value is not None:
        try:
            _check_token_format(value)
        except InvalidTokenFormat:
            return _csrf_random().decode("ascii")
        return _unmask_cipher_token(value) if len(value) == CSRF_TOKEN_LENGTH else value
    return _csrf_random().decode("ascii")


def redirect_messages(entry: Entry, redirect: HttpResponse) -> tuple[dict, dict]:
    """The ASGI messages of a stored arrival redirect with the visitor's own Location and
    cookies (`redirect`, from the `arrival` registration)."""
    headers = [(name, value) for name, value in entry.headers if name.lower() != b"content-length"]
    headers.append((b"Content-Length", b"0"))
    headers.append((b"Location", redirect["Location"].encode("latin1")))
    for cookie in redirect.cookies.values():
        headers.append((b"Set-Cookie", cookie.output(header="").encode("ascii").strip()))
    start = {"type": "http.response.start", "status": entry.status, "headers": headers}
    return start, {"type": "http.response.body", "body": b"", "more_body": False}


def response_messages(entry: Entry, visitor: Visitor, *, cookies: HttpResponse | None = None) -> tuple[dict, dict]:
    """The ASGI messages of a stored page for this visitor: a fresh nonce, their CSRF
    token, and the cookies the full stack would set; `cookies`: a response whose cookies
    are sent too (an arrival's, under those the page sets)."""
    nonce = base64.b64encode(os.urandom(16))
    body = entry.body.replace(NONCE_MARK, nonce)
    if cookies is None:
        cookies = _Cookies()
    if entry.keep:
        for keep in _visit_cookies.values():
            keep(cookies, visitor, **entry.keep)
    csrf_cookie = None
    if entry.csrf:
        secret = _csrf_secret(visitor.COOKIES)
        body = body.replace(CSRF_MARK, _csrf_mask(secret))
        csrf_cookie = _csrf_cookie(secret)
    headers = []
    for name, value in entry.headers:
        lower = name.lower()
        if lower in _CSP_HEADERS:
            value = value.replace(NONCE_MARK, nonce)
        elif lower == b"content-length":
            value = str(len(body)).encode("ascii")
        headers.append((name, value))
    for cookie in cookies.cookies.values():
        headers.append((b"Set-Cookie", cookie.output(header="").encode("ascii").strip()))
    if csrf_cookie is not None:
        headers.append((b"Set-Cookie", csrf_cookie))
    start = {"type": "http.response.start", "status": entry.status, "headers": headers}
    return start, {"type": "http.response.body", "body": body, "more_body": False}


# The CSRF cookie's Set-Cookie as Django's set_cookie writes it (CsrfViewMiddleware's
# attributes), made once a second (its expires is the second's plus CSRF_COOKIE_AGE):
# (the second, the header up to the secret, the header after it). A secret is letters
# and digits only, which a cookie's value never quotes, as is the stand-in.
_csrf_cookie_kept: tuple[int, str, str] | None = None
_CSRF_STAND_IN = "0" * 32


def _csrf_cookie(secret: str) -> bytes:
    global _csrf_cookie_kept
    now = int(time.time())
    kept = _csrf_cookie_kept
    if kept is None or kept[0] != now:
        name = _conf().csrf_cookie
        cookies = _Cookies()
        cookies.set_cookie(
            name,
            _CSRF_STAND_IN,
            max_age=settings.CSRF_COOKIE_AGE,
            domain=settings.CSRF_COOKIE_DOMAIN,
            path=settings.CSRF_COOKIE_PATH,
            secure=settings.CSRF_COOKIE_SECURE,
            httponly=settings.CSRF_COOKIE_HTTPONLY,
            samesite=settings.CSRF_COOKIE_SAMESITE,
        )
        line = cookies.cookies[name].output(header="").strip()
        head = f"{name}={_CSRF_STAND_IN}"
        if not line.startswith(head):  # a name the cookie quotes: no template of it
            return line.replace(_CSRF_STAND_IN, secret, 1).encode("ascii")
        kept = _csrf_cookie_kept = (now, f"{name}=", line[len(head) :])
    return f"{kept[1]}{secret}{kept[2]}".encode("ascii")


# --- Redis -----------------------------------------------------------------------------

_sync_clients: dict = {}
_sync_lock = threading.Lock()


def _location() -> str:
    return _conf().location


def _timeouts() -> dict:
    """The evictable cache's timeouts (read once per process, as the other settings)."""
    return _conf().timeouts


def _async_lookups() -> AsyncCommands:
    """The page lookups and stores of the running event loop and the cache's location:
    without redis-py's client and pool around the connections, whose retries, metrics
    hooks and pool lock cost a hit more CPU than the HMGET itself."""
    return AsyncCommands.of_loop(_location(), max_connections=REDIS_CONNECTIONS, **_timeouts())


def _client():
    location = _location()
    client = _sync_clients.get(location)
    if client is None:
        with _sync_lock:
            client = _sync_clients.get(location)
            if client is None:
                import redis

                client = _sync_clients[location] = redis.Redis.from_url(location, **_timeouts())
    return client


async def _load(
    schema: str, *keys: str, counts: tuple[str, ...] = ()
) -> tuple[list[Callable[[], tuple[Entry | None, bool]]], dict[str, int] | None]:
    """The stored pages of these variants of a site, in one round trip: for each, a
    function that decodes it (an arrival answered with its page never reads its
    redirect) and says whether it is fresh (else it may be served while it is rendered
    again). With `counts` ("#n", "#p:<path>", "#f:<family>", `_capped_counts`), the
    hash's counts read with them when the last variant is not stored (else None)."""
    name = store_key(schema)
    raws = await _async_lookups().command("HMGET", name, *keys, *counts)
    loaders = [lambda key=key, raw=raw: _entry(name, key, raw) for key, raw in zip(keys, raws, strict=False)]
    read = None
    if counts and raws[len(keys) - 1] is None:
        read = {count: int(raw or 0) for count, raw in zip(counts, raws[len(keys) :], strict=True)}
    return loaders, read


# Entries this process decoded lately, by hash and variant, with the bytes they came
# from: a hit whose bytes are the same is not decompressed and unpickled again.
DECODED_ENTRIES = 256
_decoded: dict[tuple[str, str], tuple[bytes, Entry | None]] = {}


def _entry(name: str, key: str, raw: bytes | None) -> tuple[Entry | None, bool]:
    if raw is None:
        return None, False
    known = _decoded.get((name, key))
    if known is not None and known[0] == raw:
        entry = known[1]
    else:
        entry = _decode(raw)
        if len(_decoded) >= DECODED_ENTRIES:
            _decoded.pop(next(iter(_decoded)), None)  # the oldest
        _decoded[(name, key)] = (raw, entry)
    if entry is None:
        return None, False
    age = time.time() - entry.created
    if age > 2 * PAGE_SECONDS:
        return None, False
    return entry, age <= PAGE_SECONDS


def _decode(raw: bytes) -> Entry | None:
    try:
        fmt, entry = pickle.loads(zlib.decompress(raw))  # noqa: S301 - written by _save below, in our own key space
    except (zlib.error, pickle.UnpicklingError, ValueError, TypeError, ImportError, AttributeError):
        return None  # an entry of an older layout or of a class since moved: rendered again
    return entry if fmt == ENTRY_FORMAT and isinstance(entry, Entry) else None


# Stores a page unless a cap is reached (module docstring), all in one step. The hash
# holds the pages under their variants (which start with a hex fingerprint) and the
# counts under "#": "#n" the pages, "#p:<path>" the variants of an address, "#f:<family>"
# the campaign labels of a lander. The TTL is set when the hash is made (EXPIRE ... NX
# would need Redis 7). Returns 1 when stored, 0 when a cap said no.
_SAVE_SCRIPT = """
local name, variant, page = KEYS[1], ARGV[1], ARGV[2]
local ttl, path, family = tonumber(ARGV[3]), ARGV[4], ARGV[5]
local site_pages, address_variants, campaigns = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
if redis.call('HEXISTS', name, variant) == 0 then
  if tonumber(redis.call('HGET', name, '#n') or '0') >= site_pages then return 0 end
  local address = '#p:' .. path
  local variants = tonumber(redis.call('HGET', name, address) or '0')
  if variants >= address_variants then return 0 end
  if variants == 0 and family ~= '' then
    local labels = '#f:' .. family
    if tonumber(redis.call('HGET', name, labels) or '0') >= campaigns then return 0 end
    redis.call('HINCRBY', name, labels, 1)
  end
  redis.call('HINCRBY', name, address, 1)
  redis.call('HINCRBY', name, '#n', 1)
end
redis.call('HSET', name, variant, page)
if redis.call('TTL', name) < 0 then redis.call('EXPIRE', name, ttl) end
return 1
"""
_SAVE = LuaScript(_SAVE_SCRIPT)


# Sites whose store said no this process's lifetime, with the lander families (the address
# without its campaign label) it said no under: a lookup on such a site reads the hash's
# counts with the page, and a page the store would refuse (`_refused`) is neither made into
# an entry, compressed nor sent. Past CAPPED_SITES sites the process starts again empty.
CAPPED_SITES = 1024
_capped: dict[str, set[str]] = {}


def _capped_counts(schema: str, path: str) -> tuple[str, ...]:
    """The counts a lookup of `path` on the site reads: none unless the site's store has
    said no before."""
    families = _capped.get(schema)
    if families is None:
        return ()
    return ("#n", f"#p:{path}", *(f"#f:{family}" for family in families if path.startswith(family)))


def _capped_note(schema: str, family: str) -> None:
    families = _capped.get(schema)
    if families is None:
        if len(_capped) >= CAPPED_SITES:
            _capped.clear()
        families = _capped[schema] = set()
    if family:
        families.add(family)


def _refused(read: dict[str, int], path: str, family: str) -> bool:
    """Whether `_SAVE_SCRIPT` would refuse a page of `path` whose variant is not stored, by
    the hash's counts read with the lookup (`_load`): the same caps. The counts only grow
    while the hash lives, so a page they refused then is refused now, unless the hash was
    dropped or expired since (that page is then not stored, as past a cap, and the next
    one's lookup reads the counts again)."""
    if read.get("#n", 0) >= SITE_PAGES:
        return True
    variants = read.get(f"#p:{path}", 0)
    if variants >= ADDRESS_VARIANTS:
        return True
    return bool(family) and variants == 0 and read.get(f"#f:{family}", 0) >= CAMPAIGNS


async def _save(schema: str, key: str, entry: Entry, path: str, family: str) -> bool:
    """Store the page (compressed: a page is mostly repeated markup); False when a cap
    of the site said no. Sent on the lookups' connections."""
    # Level 1: a third of the default's time on a page, for a few more bytes.
    page = zlib.compress(pickle.dumps((ENTRY_FORMAT, entry), protocol=pickle.HIGHEST_PROTOCOL), 1)
    args = (key, page, STORE_SECONDS, path, family, SITE_PAGES, ADDRESS_VARIANTS, CAMPAIGNS)
    return bool(await _async_lookups().script(_SAVE, [store_key(schema)], args))


def site_pages_forget(schema_name: str) -> None:
    """Drop every stored page of the site (its settings, photos or pages changed)."""
    try:
        _client().delete(store_key(schema_name))
    except CACHE_ERRORS as exc:  # the entries still expire after PAGE_SECONDS
        volatile_failed(exc)
        logger.warning("page cache of %s not dropped", schema_name)


# --- The ASGI side ---------------------------------------------------------------------


@dataclass(slots=True)
class Visit:
    site: object
    variant: str
    visitor: Visitor
    host: str = ""
    secure: bool = False
    path: str = ""
    language: str = ""

    def page_variant(self, visitor: Visitor) -> str:
        """The variant of the page at this visit's address for `visitor` (e.g. this
        visitor with the cookies an arrival sets)."""
        return variant(
            site=self.site,
            host=self.host,
            secure=self.secure,
            path=self.path,
            language=self.language,
            visitor=visitor,
            country=request_country(visitor),
        )


def visit_for(scope: dict, *, arrival: bool = False) -> Visit | None:
    """The variant of an ASGI request, or None when it is not a visitor's plain GET of a
    site this process knows; with `arrival`, the variant of the site's arrival redirect
    (`scope` then without its query string, which the caller has read)."""
    conf = _conf()
    if scope["method"] != "GET" or scope.get("query_string") or conf.forwarded_host:
        return None
    if not _cached_paths(conf.urlconf).fullmatch(scope["path"]) or scope.get("root_path"):
        return None
    headers: dict[bytes, bytes] = {}
    for name, value in scope["headers"]:
        headers[name] = headers[name] + b"; " + value if name == b"cookie" and name in headers else value
    raw_host = headers.get(b"host")
    if not raw_host:
        return None
    host = raw_host.decode("latin1")
    domain, port = split_domain_port(host)
    if not domain or not validate_host(domain, conf.allowed_hosts):
        return None
    server = scope.get("server") or (None, None)
    if not _canonical(host, domain, port, server[1]):
        return None  # another spelling of a site's host: rendered, never stored
    cookie = headers.get(b"cookie")
    cookies = parse_cookie(cookie.decode("latin1")) if cookie else {}
    if conf.session_cookie in cookies or conf.messages_cookie in cookies:
        return None
    hostname = domain
    cached = site_cached(hostname)
    if cached is None:
        return None
    site, late = cached
    if late >= 0:
        if late > SITE_STALE_SECONDS:
            return None
        _site_reload(hostname)
    if not site.is_active or site.schema_name == conf.public_schema:
        return None
    proxy = conf.proxy
    if proxy:
        forwarded = headers.get(proxy[0], b"").decode("latin1").split(",", 1)[0].strip()
        secure = forwarded == proxy[1]
    else:
        secure = scope.get("scheme") == "https"
    if conf.ssl_redirect and not secure:
        return None
    visitor = Visitor(
        cookies,
        headers.get(b"accept-language", b"").decode("latin1"),
        headers.get(conf.country_header, b"").decode("latin1"),
    )
    language = pick_language(visitor, list(site.languages), site.domain_language or None)
    visit = Visit(
        site=site, variant="", visitor=visitor, host=host, secure=secure, path=scope["path"], language=language
    )
    if arrival:
        visit.variant = arrival_variant(site=site, host=host, secure=secure, language=language)
    else:
        visit.variant = visit.page_variant(visitor)
    return visit


def enabled() -> bool:
    """On unless DEBUG (a developer's template edit shows at once) or settings.PAGE_CACHE
    says otherwise."""
    return _conf().enabled


_site_reloads: set[str] = set()


def _site_reload(hostname: str) -> None:
    """Reload the site of `hostname` into the site cache in a worker thread, once at a
    time, while the visitors are answered with the one cached."""
    if hostname in _site_reloads:
        return
    _site_reloads.add(hostname)

    def reload() -> None:
        from django.db import connection

        try:
            connection.set_schema_to_public()
            site_for_host(hostname)
        finally:
            connection.close()

    async def run() -> None:
        from asgiref.sync import sync_to_async

        try:
            await sync_to_async(reload, thread_sensitive=False)()
        except Exception:
            logger.warning("site %s not reloaded", hostname, exc_info=True)
        finally:
            _site_reloads.discard(hostname)

    asyncio.get_running_loop().create_task(run())


def _leads_to_page(redirect: HttpResponse, path: str) -> bool:
    """Whether an arrival's redirect leads back to the page at `path` itself, with no
    parameter a page reads (`passing_params`)."""
    if redirect.status_code not in (301, 302):
        return False
    location, _, rest = redirect["Location"].partition("?")
    if location != path:
        return False
    return _passing_only(rest)


@lru_cache(maxsize=256)
def _passing_only(query: str) -> bool:
    # Kept per query string: an arrival's redirect keeps the same few (`?t=30`) again and again.
    return all(name in _passing for name, _value in parse_qsl(query, keep_blank_values=True))


def _query_kind(raw: bytes):
    """(the query, "arrival") for an arrival (`arrival`), (the query, "page") for one of
    passing parameters only (`passing_params`), (None, None) for any other: Django's."""
    if len(raw) > QUERY_MAX_LENGTH or b"%00" in raw or b"\x00" in raw:  # a NUL: BadInputMiddleware's 400
        return None, None
    try:
        # What QueryDict(raw.decode()) reads (as ASGIRequest does), as a dict of each
        # parameter's last value, which is all an arrival or a page reads of it.
        conf = _conf()
        pairs = parse_qsl(raw.decode(), keep_blank_values=True, encoding=conf.charset, max_num_fields=conf.max_fields)
    except (UnicodeDecodeError, ValueError):  # bad bytes, too many fields: Django answers
        return None, None
    query = dict(pairs)
    if _arrival and _arrival[0][0](query):
        return query, "arrival"
    if _passing and all(key in _passing for key in query):
        return query, "page"
    return None, None


# Variants being rendered again in this process: their stale page is served meanwhile.
_rendering: set[tuple[str, str]] = set()


class PageCacheApp:
    """ASGI middleware in front of Django's handler (config/asgi.py): answers visitors'
    landing pages from the cache, and stores the ones Django offers (`offer`)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        conf = _conf()
        if (
            scope["type"] != "http"
            or not conf.enabled
            or scope["method"] != "GET"
            or not _cached_paths(conf.urlconf).fullmatch(scope["path"])
        ):
            return await self.app(scope, receive, send)
        query, kind = None, "page"
        if scope.get("query_string"):
            query, kind = _query_kind(scope["query_string"])
            if kind is None:
                return await self.app(scope, receive, send)
        entry, fresh = None, False
        try:
            visit = visit_for({**scope, "query_string": b""} if query is not None else scope, arrival=kind == "arrival")
        except Exception:  # the full stack answers
            logger.warning("page cache lookup failed", exc_info=True)
            visit = None
        if visit is None or not volatile_available():
            return await self.app(scope, receive, send)
        if kind == "page" and query is not None:
            # Only parameters no page reads: Django renders (and the cache answers) the
            # address without them.
            scope = {**scope, "query_string": b""}
        schema = visit.site.schema_name
        redirect = page = None
        if kind == "arrival":
            # The visitor's own redirect; when it leads to the plain page and that page is
            # stored for the visitor as they come back with its cookies, that page is the
            # answer, with those cookies: one response instead of the redirect and the page.
            redirect = _arrival[0][1](visit.visitor, scope["path"], query)
            if _leads_to_page(redirect, scope["path"]):
                after = visit.visitor.after(redirect)
                page = (visit.page_variant(after), after)
        counts = _capped_counts(schema, scope["path"]) if kind == "page" else ()
        try:
            if page is None:
                loaded, read = await _load(schema, visit.variant, counts=counts)
            else:
                loaded, read = await _load(schema, page[0], visit.variant)
        except CACHE_ERRORS as exc:  # fail open: Django renders it, nothing is stored
            volatile_failed(exc)
            return await self.app(scope, receive, send)
        volatile_answered()
        if page is not None:
            entry, fresh = loaded.pop(0)()
            if entry is not None and not entry.arrival and (fresh or (schema, page[0]) in _rendering):
                start, body = response_messages(entry, page[1], cookies=redirect)
                await send(start)
                await send(body)
                await _arrival_counted(visit.site, visit.visitor, query)
                return None
        entry, fresh = loaded[0]()
        rendering = (schema, visit.variant)
        if entry is not None and entry.arrival != (kind == "arrival"):
            entry = None
        if entry is not None and (fresh or rendering in _rendering):
            if entry.arrival:
                start, body = redirect_messages(entry, redirect)
            else:
                start, body = response_messages(entry, visit.visitor)
            await send(start)
            await send(body)
            if entry.arrival:
                await _arrival_counted(visit.site, visit.visitor, query)
            return None
        _rendering.add(rendering)
        try:
            arrival_query = query if kind == "arrival" else None
            return await self._render_and_store(scope, receive, send, visit, arrival_query, read)
        finally:
            _rendering.discard(rendering)

    async def _render_and_store(self, scope, receive, send, visit: Visit, arrival_query=None, read=None):
        """Django's answer, stored when offered; `read`: the hash's counts read with the
        lookup (`_load`), by which a page the store would refuse is not made into an entry."""
        slot = _Slot(visit.site)
        start: dict = {}
        chunks: list[bytes] = []
        done = False

        async def capture(message):
            nonlocal done
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                done = not message.get("more_body", False)
            await send(message)

        token = _slot.set(slot)
        try:
            await self.app(scope, receive, capture)
        finally:
            _slot.reset(token)
        offered = slot.offer
        if not done or offered is None or offered.variant != visit.variant or offered.site is not visit.site:
            return
        if offered.arrival != (arrival_query is not None):
            return
        try:
            status, headers, body = start["status"], start.get("headers", []), b"".join(chunks)
            if arrival_query is not None:
                redirect = _arrival[0][1](visit.visitor, scope["path"], arrival_query)
                entry, address = entry_from_redirect(status, headers, body, redirect), ARRIVAL_ADDRESS
            else:
                if read is not None and _refused(read, scope["path"], offered.family):
                    return
                entry, address = entry_from_response(status, headers, body, offered), scope["path"]
            if entry is not None and volatile_available():
                schema = visit.site.schema_name
                if not await _save(schema, visit.variant, entry, address, offered.family) and arrival_query is None:
                    _capped_note(schema, offered.family)
        except CACHE_ERRORS as exc:
            volatile_failed(exc)
        except Exception:
            logger.warning("page cache store failed", exc_info=True)


def site_pages_forget_on_commit(schema_names: list[str]) -> None:
    """`site_pages_forget` once the change is committed (a render that read the old rows
    before then stores a page that lives PAGE_SECONDS at most)."""
    from django.db import transaction

    for schema_name in schema_names:
        if schema_name and schema_name != settings.PUBLIC_SCHEMA_NAME:
            transaction.on_commit(lambda name=schema_name: site_pages_forget(name))


def current_site_pages_forget() -> None:
    """For a change to a site's own rows (its schema is the connection's), e.g. a photo."""
    from django.db import connection

    site_pages_forget_on_commit([getattr(connection, "schema_name", None)])
