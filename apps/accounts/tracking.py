"""Tracking parameters (spec §7): kept on arrival, removed from the address, stored with
the account at signup.

They are kept in a signed cookie of their own, never in a session: a visitor from an ad
gets no login session and no database row before they sign up. Without the visitor's
consent to non-essential cookies the cookie lasts only until the browser closes: enough
for the signup the visitor came to make (and for the site's rule that signups need a
traffic source, spec §5), nothing more. With consent ("all", chosen on the cookie banner
or /pages/cookies) it lasts TRACKING_DAYS, so a signup on a later visit is attributed
too. docs/decisions.md says why.

The same cookie keeps the lander the visitor saw last and its campaign label (the
lander's {slug}, apps.landers): `lander_visit_keep`, stored with the account as
SignupTracking.lander / .campaign (`signup_tracking_from_request`).

`?lb=<lander key>` ("landing back": a link from a lander or a partner's pre-lander back
to any page of the site) counts as a visit of that lander: kept like one, and removed from
the address like the tracking parameters. Any other value is dropped (docs/decisions.md)."""

import json
from urllib.parse import urlencode

from django.conf import settings
from django.core import signing
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from apps.accounts.models import SignupTracking
from apps.accounts.signals import tracking_arrived
from apps.common import page_cache
from apps.landers import keys as landers

PARAMS = SignupTracking.TRACKING_FIELDS
LANDER_KEYS = SignupTracking.LANDER_FIELDS
_KEYS = (*PARAMS, *LANDER_KEYS)
COOKIE = f"{settings.COOKIE_PREFIX}tracking"
SALT = "apps.accounts.tracking"
TRACKING_DAYS = 30
VALUE_MAX_LENGTH = 100
# What SignupTracking can store of each key.
_MAX_LENGTHS = {key: SignupTracking._meta.get_field(key).max_length for key in _KEYS}

LANDING_BACK = "lb"
ARRIVAL_KEYS = (*PARAMS, LANDING_BACK)

CONSENT_COOKIE = f"{settings.COOKIE_PREFIX}consent"
CONSENT_ALL, CONSENT_NECESSARY = "all", "necessary"
CONSENT_DAYS = 180


def consent(request: HttpRequest) -> str | None:
    """The visitor's cookie choice: "all", "necessary", or None when not made yet."""
    value = request.COOKIES.get(CONSENT_COOKIE)
    return value if value in (CONSENT_ALL, CONSENT_NECESSARY) else None


def _cookie_data(request: HttpRequest, keys=_KEYS) -> dict[str, str]:
    """What the cookie keeps of `keys` (by default all: the tracking parameters and the
    lander's keys)."""
    try:
        raw = request.get_signed_cookie(COOKIE, default=None, salt=SALT)
        data = json.loads(raw) if raw else {}
    except (signing.BadSignature, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {key: str(value)[: _MAX_LENGTHS[key]] for key, value in data.items() if key in keys and value}


def page_variant(request: HttpRequest) -> str:
    """What of the visitor's cookie choice and tracking cookie changes a visitor's page, as
    a few letters for the key of a cached page (apps.common.page_cache): the choice (the
    cookie banner), a network kept (signup offered, spec §5) and any tracking parameter
    kept (the banner's wording). The signature is only checked when the cookie is there."""
    data = _cookie_data(request) if request.COOKIES.get(COOKIE) else {}
    network = "n" if data.get("network") else "-"
    params = "t" if any(key in data for key in PARAMS) else "-"
    return f"{consent(request) or '-'}{network}{params}"


def tracking_from_request(request: HttpRequest) -> dict[str, str]:
    """The tracking parameters of spec §7 the visitor arrived with."""
    return _cookie_data(request, PARAMS)


def signup_tracking_from_request(request: HttpRequest) -> dict[str, str]:
    """What the account keeps (SignupTracking's fields): the tracking parameters and the
    lander the visitor saw last with its campaign label (any of them may be missing)."""
    return _cookie_data(request)


def _with_lander(data: dict[str, str], lander: str, campaign: str = "") -> dict[str, str]:
    kept = {key: value for key, value in data.items() if key not in LANDER_KEYS}
    kept["lander"] = lander
    if campaign:
        kept["campaign"] = campaign
    return kept


def lander_visit_keep(response: HttpResponse, request: HttpRequest, *, lander: str, campaign: str = "") -> None:
    """Remember the lander (its route name) and campaign label on `response`; the last
    lander seen wins. No Set-Cookie when the cookie holds them already."""
    data = _cookie_data(request)
    kept = _with_lander(data, lander, campaign)
    if kept != data:
        tracking_cookie_set(response, request, kept)


def has_tracking_network(request: HttpRequest) -> bool:
    return bool(tracking_from_request(request).get("network"))


def tracking_cookie_set(response: HttpResponse, request: HttpRequest, data: dict[str, str]) -> None:
    """Writes the tracking cookie: until the browser closes, or TRACKING_DAYS with consent."""
    lasting = consent(request) == CONSENT_ALL
    page_cache.signed_cookie_set(
        response,
        COOKIE,
        json.dumps(data, separators=(",", ":")),
        salt=SALT,
        max_age=TRACKING_DAYS * 24 * 3600 if lasting else None,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def consent_set(response: HttpResponse, request: HttpRequest, choice: str) -> None:
    """Stores the cookie choice; the tracking cookie follows it at once."""
    response.set_cookie(
        CONSENT_COOKIE,
        choice,
        max_age=CONSENT_DAYS * 24 * 3600,
        secure=settings.SESSION_COOKIE_SECURE,
        samesite="Lax",
    )
    data = _cookie_data(request)
    if data:
        request.COOKIES[CONSENT_COOKIE] = choice
        tracking_cookie_set(response, request, data)


# Query parameters that no page of the site reads (spec §7: `t`, the seconds of an ad's
# timer; the analytics tags of the ad networks): a visitor's cached page with them is the
# page without them (apps.common.page_cache.passing_params), so a paid arrival's page,
# `/?t=30` after the redirect below, is a cache hit like a plain visit.
PASSING_PARAMS = ("t", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "gclid", "fbclid")


def arrival_redirect(request: HttpRequest, path: str, query) -> HttpResponseRedirect:
    """The answer to an arrival with tracking parameters or `?lb=` (`query`, a QueryDict,
    or the page cache's dict of each parameter's last value): back to `path` without
    them, the tracking cookie keeping them. `request` is the
    request or the page cache's Visitor (apps.common.page_cache, which answers it for
    visitors of a cached page with this function); only its cookies are read."""
    found = {key: query[key][:VALUE_MAX_LENGTH] for key in PARAMS if query.get(key)}
    rest = [(key, value) for key, value in query.items() if key not in ARRIVAL_KEYS]
    response = HttpResponseRedirect(path + (f"?{urlencode(rest)}" if rest else ""))
    kept = _cookie_data(request)
    data = {**kept, **found}
    if query.get(LANDING_BACK) in landers.LANDER_KEYS:
        data = _with_lander(data, query[LANDING_BACK])
    if data != kept:
        tracking_cookie_set(response, request, data)
    return response


def arrival_data(request: HttpRequest, query) -> dict[str, str]:
    """The tracking of an arrival (`query`, as for `arrival_redirect`): what the
    visitor's cookie kept with the query's tracking parameters over it, each cut to
    VALUE_MAX_LENGTH. `request` is the request or the page cache's Visitor."""
    found = {key: query[key][:VALUE_MAX_LENGTH] for key in PARAMS if query.get(key)}
    return {**_cookie_data(request), **found}


def is_arrival(query) -> bool:
    return any(key in query for key in ARRIVAL_KEYS)


class TrackingMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        site = getattr(request, "site", None)
        # No query string, no arrival: the query is not parsed for it.
        arrival = request.method == "GET" and site is not None and request.META.get("QUERY_STRING")
        if arrival and is_arrival(request.GET):
            response = arrival_redirect(request, request.path, request.GET)
            # Other visitors of this page arriving so get the redirect from the cache,
            # each with their own tracking cookie.
            page_cache.offer_arrival(request)
            tracking_arrived.send(sender=TrackingMiddleware, request=request, data=arrival_data(request, request.GET))
            return response
        return self.get_response(request)
