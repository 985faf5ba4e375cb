"""Server-rendered pages: the landing page, content pages and the language choice."""

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from apps.accounts.selectors import signup_allowed
from apps.accounts.services.settings import member_language_set
from apps.common import page_cache
from apps.common.i18n import language_remember
from apps.common.locale import request_country
from apps.landers.copy import niche_copy
from apps.landers.selectors import HOME_MOSAIC, THUMB_SIDE, home_cards
from apps.tenants.selectors import visible_languages

CONTENT_PAGES = {
    "terms": "pages/content/terms.html",
    "privacy": "pages/content/privacy.html",
    "cookies": "pages/content/cookies.html",
    "ban": "pages/content/ban.html",
    "return-policy": "pages/content/return_policy.html",
    "faq": "pages/content/faq.html",
    "service": "pages/content/service.html",
}


@require_http_methods(["GET", "POST"])
def cookies_page(request: HttpRequest, page: str = "cookies") -> HttpResponse:
    """The cookie policy, with the visitor's choice of cookies (spec §2 pages-cookies). A
    POST of `choice` ("all" or "necessary") stores it and returns to `next`."""
    from django.contrib import messages
    from django.utils.translation import gettext as _

    from apps.accounts.tracking import CONSENT_ALL, CONSENT_NECESSARY, consent, consent_set

    if request.method == "POST":
        choice = request.POST.get("choice", "")
        if choice not in (CONSENT_ALL, CONSENT_NECESSARY):
            return render(request, CONTENT_PAGES["cookies"], {"page": page, "consent": consent(request)}, status=400)
        next_url = request.POST.get("next") or request.path
        if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}):
            next_url = request.path
        response = HttpResponseRedirect(next_url)
        consent_set(response, request, choice)
        messages.success(request, _("Your cookie choice has been saved."))
        return response
    return render(request, CONTENT_PAGES["cookies"], {"page": page, "consent": consent(request)})


@page_cache.cacheable
def index(request: HttpRequest) -> HttpResponse:
    """The site's home page: its niche's words, a mosaic of its members' photos and the
    way in (signup for visitors, search, the swipe game and likes for members)."""
    site = request.site
    cards = home_cards(site=site, viewer=request.user)
    context = {
        "copy": niche_copy(site.niche),
        "mosaic": cards[:HOME_MOSAIC],
        "more": cards[HOME_MOSAIC:],
        "any_fictional": any(card["fictional"] for card in cards),
        "thumb_side": THUMB_SIDE,
        "member_links": request.user.is_authenticated,
    }
    if not request.user.is_authenticated:
        context |= {
            "signups_open": signup_allowed(request=request),
            "signup_url": reverse("signup"),
            "login_url": f"{reverse('login')}?{urlencode({'next': '/'})}",
        }
        # The same page for every visitor of this variant (apps.common.page_cache).
        page_cache.offer(request)
    return render(request, "pages/index.html", context)


def content_page(request: HttpRequest, page: str) -> HttpResponse:
    return render(request, CONTENT_PAGES[page], {"page": page})


@require_http_methods(["GET", "POST"])
def lang_config(request: HttpRequest) -> HttpResponse:
    """Lists the visible languages; a POST stores the choice in the language cookie."""
    site = request.site
    languages = visible_languages(site, request_country(request))
    if request.method == "POST":
        language = request.POST.get("language", "")
        next_url = request.POST.get("next") or "/"
        if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}):
            next_url = "/"
        if language not in site.languages:
            return render(request, "pages/lang_config.html", {"languages": languages, "error": True}, status=400)
        if request.user.is_authenticated:
            member_language_set(user=request.user, language=language, languages=site.languages)
        language_remember(request, language)
        return HttpResponseRedirect(next_url)
    return render(request, "pages/lang_config.html", {"languages": languages})
