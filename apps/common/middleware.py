import secrets
from functools import partial

from csp.constants import HEADER as CSP_HEADER
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.messages.storage import default_storage
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.functional import SimpleLazyObject, empty

from apps.common import locale
from apps.common.i18n import language_cookie_set, pick_language
from apps.common.sites import is_public
from apps.common.storage import cdn_origin


class SiteLocaleMiddleware:
    """Activates the language for this request from the site's languages."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        site = getattr(request, "site", None)
        if site is None or is_public(request):
            allowed, domain_language = ["en"], None
        else:
            allowed, domain_language = list(site.languages), site.domain_language or None
        language = pick_language(request, allowed, domain_language)
        translation.activate(language)
        request.LANGUAGE_CODE = language
        # Dates and money while the request is handled follow the member's locale
        # (apps.common.locale: this language and their country).
        locale.bind(request)
        try:
            response = self.get_response(request)
        finally:
            locale.unbind()
        patch_vary_headers(response, ("Accept-Language", "Cookie"))
        response.headers.setdefault("Content-Language", language)
        language_cookie_set(request, response, allowed)
        return response


class ApiCsrfTokenMiddleware:
    """Logging in rotates Django's CSRF token (and the islands keep the old one in
    the page): API responses carry the current token whenever it changed, and the
    islands' API client puts it back into the page (static_src/lib/api.ts)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.path.startswith("/api/") and request.META.get("CSRF_COOKIE_NEEDS_UPDATE"):
            from django.middleware.csrf import get_token

            response["X-CSRF-Token"] = get_token(request)
        return response


class RequestSizeLimitMiddleware:
    """Refuses request bodies larger than MAX_REQUEST_BYTES before Django reads them
    (Django would spool any upload to disk first). The proxy should cap them too."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.conf import settings
        from django.http import JsonResponse
        from django.utils.translation import gettext as _

        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > settings.MAX_REQUEST_BYTES:
            message = _("This file is too large.")
            return JsonResponse({"error": {"code": "too_large", "message": message}}, status=413)
        return self.get_response(request)


class BadInputMiddleware:
    """Refuses a NUL byte in the address, its query or a form body with 400, before any
    view hands it to PostgreSQL (which cannot store one in text and failed with a 500).
    API calls and the providers' webhooks get the JSON error shape; pages get the site's
    400 page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if _has_nul(request):
            from django.core.exceptions import BadRequest
            from django.http import JsonResponse
            from django.utils.translation import gettext as _

            from apps.common.exceptions import error_body

            message = _("This request contains characters that are not allowed.")
            # The providers' webhooks (/hooks/) are machine callers too: JSON for them.
            if request.path.startswith(("/api/", "/tls/", "/hooks/")):
                return JsonResponse(error_body("invalid", message), status=400)
            raise BadRequest(message)
        return self.get_response(request)


def _has_nul(request) -> bool:
    if (
        "\x00" in request.path
        or "%00" in request.META.get("QUERY_STRING", "")
        or "\x00" in request.META.get("QUERY_STRING", "")
    ):
        return True
    if request.content_type == "application/x-www-form-urlencoded" and request.method in ("POST", "PUT", "PATCH"):
        from django.core.exceptions import RequestDataTooBig

        try:
            body = request.body
        except RequestDataTooBig:
            return False  # Django answers 400 for it when the form is read
        return b"%00" in body or b"\x00" in body
    return False


class SiteMessageMiddleware(MessageMiddleware):
    """Django's messages, the storage made when a message is added or read, not for
    every request: most requests (API calls, visitors' pages) never touch it, and making
    it (the cookie's and the session's storages, a signer) was 5% of a request's stack.
    An untouched storage has nothing to save, as Django's `update` finds too."""

    def process_request(self, request):
        request._messages = SimpleLazyObject(partial(default_storage, request))

    def process_response(self, request, response):
        storage = request.__dict__.get("_messages")
        if isinstance(storage, SimpleLazyObject) and storage._wrapped is empty:
            return response
        return super().process_response(request, response)


# What a response may carry for django-csp to build its policy from (its decorators); none
# of the site's views sets one, but a response that does gets django-csp's own building.
_CSP_RESPONSE_PARTS = (
    "_csp_config",
    "_csp_update",
    "_csp_replace",
    "_csp_config_ro",
    "_csp_update_ro",
    "_csp_replace_ro",
)
# Stands for the request's nonce in a kept policy; a fresh random one per process.
_NONCE_MARK = f"nonce-mark-{secrets.token_hex(16)}"
_CSP_KEPT_MAX = 4096
_csp_kept: dict[tuple, str] = {}


@receiver(setting_changed)
def _csp_forget(setting, **kwargs) -> None:
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _csp_kept.clear()


class SiteCspMiddleware(CSPMiddleware):
    """django-csp's middleware with the site's own sources in the policy. connect-src
    allows the live connection (/ws/) to this host only, not to any host (`ws: wss:`); a
    site with a CDN (settings cdn_prefix) may load scripts, styles, pictures, fonts and
    video from that origin, and only that site.

    The policy of a host is the same for every response but for the nonce: it is built
    once per scheme, host, CDN prefix and whether the page used a nonce (django-csp's
    build_policy, the same text), and kept; a response gets it with its own nonce put in
    (as the page cache does for a stored page). django-csp built it afresh for every
    response, a tenth of a request's CPU through the whole stack (docs/bench.md, "search").
    A response that carries django-csp's per-view parts (`_csp_update`...) is built as
    django-csp builds it."""

    def process_response(self, request, response):
        site = getattr(request, "site", None)
        if site is None:
            return super().process_response(request, response)
        scheme = "wss" if request.is_secure() else "ws"
        host = request.get_host()
        if any(getattr(response, name, None) is not None for name in _CSP_RESPONSE_PARTS) or getattr(
            settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", None
        ):
            update = getattr(response, "_csp_update", None)
            response._csp_update = _site_sources(update, f"{scheme}://{host}", cdn_origin(site.cdn_prefix))
            return super().process_response(request, response)
        if response.status_code in (500, 404) and settings.DEBUG:  # as django-csp: Django's debug pages
            return response
        nonce = getattr(request, "_csp_nonce", None)
        key = (scheme, host, site.cdn_prefix, nonce is not None)
        policy = _csp_kept.get(key)
        if policy is None:
            update = _site_sources(None, f"{scheme}://{host}", cdn_origin(site.cdn_prefix))
            policy = build_policy(update=update, nonce=_NONCE_MARK if nonce is not None else None)
            if len(_csp_kept) >= _CSP_KEPT_MAX:
                _csp_kept.clear()
            _csp_kept[key] = policy
        if policy and getattr(response, "_csp_exempt", False) is False and CSP_HEADER not in response:
            prefixes = (getattr(settings, "CONTENT_SECURITY_POLICY", None) or {}).get("EXCLUDE_URL_PREFIXES") or ()
            if not request.path_info.startswith(tuple(prefixes)):
                response[CSP_HEADER] = policy.replace(_NONCE_MARK, nonce) if nonce is not None else policy
        # As django-csp: a nonce asked for after the header was written is an error.
        if nonce is None:
            request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response


def _site_sources(update: dict | None, live: str, cdn: str) -> dict:
    """django-csp's `update` with the site's sources added: `live`, the live connection's
    origin (ws://host), and the CDN origin `cdn` when there is one."""
    update = dict(update or {})
    update["connect-src"] = [*update.get("connect-src", []), live]
    if cdn:
        for directive in ("script-src", "style-src", "img-src"):
            update[directive] = [*update.get(directive, []), cdn]
        # Not in the base policy (default-src 'self' covers them): 'self' stays.
        for directive in ("font-src", "media-src"):
            update[directive] = [*update.get(directive, ["'self'"]), cdn]
    return update
