from django.utils import translation
from django.utils.cache import patch_vary_headers

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


class SiteCspMiddleware:
    """The site's own sources in the CSP. connect-src allows the live connection (/ws/) to
    this host only, not to any host (`ws: wss:`); a site with a CDN (settings cdn_prefix)
    may load scripts, styles, pictures, fonts and video from that origin, and only that
    site. Listed after django-csp's middleware so that it runs first on the way out."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        site = getattr(request, "site", None)
        if site is not None:
            scheme = "wss" if request.is_secure() else "ws"
            update = dict(getattr(response, "_csp_update", None) or {})
            update["connect-src"] = [*update.get("connect-src", []), f"{scheme}://{request.get_host()}"]
            cdn = cdn_origin(site.cdn_prefix)
            if cdn:
                for directive in ("script-src", "style-src", "img-src"):
                    update[directive] = [*update.get(directive, []), cdn]
                # Not in the base policy (default-src 'self' covers them): 'self' stays.
                for directive in ("font-src", "media-src"):
                    update[directive] = [*update.get(directive, ["'self'"]), cdn]
            response._csp_update = update
        return response
