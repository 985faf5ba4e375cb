from django.utils import translation
from django.utils.cache import patch_vary_headers

from apps.common.i18n import pick_language
from apps.tenants.middleware import is_public


class SiteLocaleMiddleware:
    """Activates the language for this request from the site's languages."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        site = getattr(request, "site", None)
        if site is None or is_public(request):
            language = pick_language(request, ["en"], None)
        else:
            language = pick_language(request, list(site.languages), site.domain_language or None)
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        patch_vary_headers(response, ("Accept-Language", "Cookie"))
        response.headers.setdefault("Content-Language", language)
        return response
