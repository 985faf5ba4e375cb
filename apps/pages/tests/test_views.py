import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db


def test_each_site_shows_its_own_name_and_niche(two_sites, client_for):
    general, gay = two_sites
    first = client_for(general).get("/").content.decode()
    second = client_for(gay).get("/").content.decode()
    assert "Heartline" in first and "Manline" not in first
    assert "Manline" in second and "Heartline" not in second
    assert 'data-niche="1"' in first and 'data-niche="7"' in second


def test_an_unknown_host_gets_the_404_page_and_no_site_content(client):
    response = client.get("/", HTTP_HOST="unknown.localhost")
    body = response.content.decode()
    assert response.status_code == 404
    assert "This page could not be found" in body
    assert "Heartline" not in body and "Manline" not in body


def test_an_unknown_path_gets_the_404_page_with_a_link_home(site, client_for):
    response = client_for(site).get("/no-such-page")
    body = response.content.decode()
    assert response.status_code == 404
    assert "This page could not be found" in body
    assert "Back to the home page" in body


@pytest.mark.parametrize("page", ["terms", "privacy", "cookies", "ban", "return-policy", "faq", "service"])
def test_content_pages_show_the_company_info(site, client_for, page):
    response = client_for(site).get(f"/pages/{page}")
    body = response.content.decode()
    assert response.status_code == 200
    assert "Demo Dating B.V." in body and "Herengracht 100" in body and "12345678" in body


def test_terms_show_the_version_date(site, client_for):
    from datetime import UTC, datetime

    company = site.company
    company.added = datetime(2020, 5, 1, tzinfo=UTC)
    company.save()
    body = client_for(site).get("/pages/terms").content.decode()
    assert "Version of Dec. 1, 2023, noon (UTC)" in body
    company.added = datetime(2025, 2, 3, 14, 30, tzinfo=UTC)
    company.save()
    site.refresh_from_db()
    body = client_for(site).get("/pages/terms").content.decode()
    assert "Version of Feb. 3, 2025, 2:30 p.m. (UTC)" in body


def test_return_policy_names_the_refund_days(site, client_for):
    site.refund_days = 21
    site.save()
    assert "21 days" in client_for(site).get("/pages/return-policy").content.decode()


def test_footer_has_the_content_links_and_us_footer_in_english(site, client_for):
    body = client_for(site).get("/").content.decode()
    for path in (
        "/pages/terms",
        "/pages/privacy",
        "/pages/cookies",
        "/pages/ban",
        "/pages/return-policy",
        "/pages/faq",
        "/pages/service",
    ):
        assert f'href="{path}"' in body
    assert 'data-testid="us-footer"' in body
    assert 'data-testid="disclaimer"' in body


def test_no_us_footer_in_french(site, client_for):
    client = client_for(site)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    body = client.get("/").content.decode()
    assert 'data-testid="us-footer"' not in body
    assert '<html lang="fr">' in body


def test_language_dropdown_only_with_more_than_one_visible_language(two_sites, client_for):
    general, gay = two_sites
    assert 'data-testid="language-dropdown"' in client_for(general).get("/").content.decode()
    # A visitor from Great Britain sees only English on the gay site (en/nl/de).
    body = client_for(gay).get("/", HTTP_CF_IPCOUNTRY="GB").content.decode()
    assert 'data-testid="language-dropdown"' not in body
    body = client_for(gay).get("/", HTTP_CF_IPCOUNTRY="BE").content.decode()
    assert 'data-testid="language-dropdown"' in body


def _menu(body: str) -> tuple[str, list[str]]:
    """The language menu's toggle text and its choices."""
    import re

    menu = body[body.index('data-testid="language-dropdown"') : body.index("</ul>", body.index("language-dropdown"))]
    toggle = re.search(r'data-testid="language-toggle">(?:<span[^>]*>[^<]*</span>)?([^<]*)</button>', menu)
    return toggle.group(1).strip(), re.findall(r'data-testid="language-([a-z]{2})"', menu)


class TestLanguageMenu:
    def test_a_belgian_visitor_on_a_page_in_english_gets_a_toggle_and_dutch_and_german(self, gay_site, client_for):
        body = client_for(gay_site).get("/", HTTP_CF_IPCOUNTRY="BE", HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert '<html lang="en">' in body
        assert _menu(body) == ("en", ["nl", "de"])

    def test_a_french_visitor_on_a_page_in_english_is_offered_french(self, site, client_for):
        body = client_for(site).get("/", HTTP_CF_IPCOUNTRY="FR", HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert '<html lang="en">' in body
        assert _menu(body) == ("en", ["fr"])

    def test_no_menu_when_the_only_visible_language_is_the_page_s(self, site, client_for):
        client = client_for(site)
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
        body = client.get("/", HTTP_CF_IPCOUNTRY="FR").content.decode()
        assert '<html lang="fr">' in body and 'data-testid="language-dropdown"' not in body

    def test_the_current_language_is_marked(self, site, client_for):
        client = client_for(site)
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
        body = client.get("/").content.decode()
        assert _menu(body) == ("fr", ["en", "fr"])
        assert 'aria-current="true" data-testid="language-fr"' in body
        assert 'aria-current="true" data-testid="language-en"' not in body

    def test_language_menu_rules(self):
        from apps.tenants.context_processors import language_menu

        assert language_menu([], "en") is None
        assert language_menu(["en"], "en") is None
        only_fr = language_menu(["fr"], "en")
        assert only_fr["current"] == "en" and [c["code"] for c in only_fr["choices"]] == ["fr"]
        both = language_menu(["nl", "de"], "en")
        assert [c["current"] for c in both["choices"]] == [False, False]


class TestLanguage:
    def test_cookie_wins(self, site, client_for):
        client = client_for(site)
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
        assert client.get("/", HTTP_ACCEPT_LANGUAGE="en").headers["Content-Language"] == "fr"

    def test_domain_language_before_the_browser_when_there_is_no_cookie(self, site, client_for):
        site.domain_language = "fr"
        site.save()
        assert client_for(site).get("/", HTTP_ACCEPT_LANGUAGE="en").headers["Content-Language"] == "fr"

    def test_browser_language_when_the_site_offers_it(self, site, client_for):
        site.domain_language = ""
        site.save()
        response = client_for(site).get("/", HTTP_ACCEPT_LANGUAGE="fr-CA,fr;q=0.9")
        assert response.headers["Content-Language"] == "fr"

    def test_english_otherwise(self, site, client_for):
        site.domain_language = ""
        site.save()
        assert client_for(site).get("/", HTTP_ACCEPT_LANGUAGE="pl").headers["Content-Language"] == "en"

    def test_an_unoffered_cookie_language_is_ignored(self, site, client_for):
        client = client_for(site)
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = "pl"
        assert client.get("/").headers["Content-Language"] == "en"

    def test_lang_config_sets_the_cookie_for_a_year(self, site, client_for):
        response = client_for(site).post("/lang-config", {"language": "fr", "next": "/pages/faq"})
        assert response.status_code == 302 and response.headers["Location"] == "/pages/faq"
        cookie = response.cookies[settings.LANGUAGE_COOKIE_NAME]
        assert cookie.value == "fr" and int(cookie["max-age"]) == 365 * 24 * 60 * 60

    def test_lang_config_rejects_a_language_the_site_does_not_offer(self, site, client_for):
        response = client_for(site).post("/lang-config", {"language": "pl"})
        assert response.status_code == 400
        assert settings.LANGUAGE_COOKIE_NAME not in response.cookies

    def test_lang_config_never_redirects_off_site(self, site, client_for):
        response = client_for(site).post("/lang-config", {"language": "fr", "next": "https://evil.example/"})
        assert response.headers["Location"] == "/"


class TestEntryWarning:
    def test_shown_to_visitors_on_the_default_layout(self, site, client_for):
        assert 'data-island="EntryWarning"' in client_for(site).get("/").content.decode()

    def test_not_after_dismissal(self, site, client_for):
        client = client_for(site)
        client.cookies[settings.ENTRY_WARNING_COOKIE_NAME] = "1"
        assert 'data-island="EntryWarning"' not in client.get("/").content.decode()

    def test_not_when_the_setting_is_no(self, site, client_for):
        site.enable_site_entry_popup = "no"
        site.save()
        assert 'data-island="EntryWarning"' not in client_for(site).get("/").content.decode()

    def test_not_when_logged_in(self, site, client_for, in_site, django_user_model):
        member = django_user_model.objects.create_user("member", "m@example.com", "pw-123456789")
        client = client_for(site)
        client.force_login(member)
        assert 'data-island="EntryWarning"' not in client.get("/").content.decode()

    def test_only_for_listed_countries_when_a_list_is_set(self, site, client_for):
        site.entry_popup_countries = ["DE", "NL"]
        site.save()
        assert 'data-island="EntryWarning"' in client_for(site).get("/", HTTP_CF_IPCOUNTRY="DE").content.decode()
        assert 'data-island="EntryWarning"' not in client_for(site).get("/", HTTP_CF_IPCOUNTRY="FR").content.decode()

    def test_the_props_carry_translated_strings_and_the_minimum_age(self, site, client_for):
        site.min_age = 21
        site.save()
        body = client_for(site).get("/").content.decode()
        assert "I am 21 or older, enter" in body


def test_entry_warning_rules_for_chat_and_lander_layouts(site, rf):
    from django.contrib.auth.models import AnonymousUser

    from apps.pages.selectors import entry_warning_visible

    def request(country: str | None):
        req = rf.get("/", **({"HTTP_CF_IPCOUNTRY": country} if country else {}))
        req.site = site
        req.user = AnonymousUser()
        return req

    for layout in ("chat", "lander"):
        assert entry_warning_visible(request=request("NL"), layout=layout)
        assert entry_warning_visible(request=request("DE"), layout=layout)
        assert not entry_warning_visible(request=request("FR"), layout=layout)
        assert not entry_warning_visible(request=request(None), layout=layout)
    assert not entry_warning_visible(request=request("NL"), layout="empty")
    assert entry_warning_visible(request=request(None), layout="default")


def test_healthz_reports_postgresql_and_redis(site, client_for):
    response = client_for(site).get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "postgresql": "ok", "redis": "ok"}


def test_healthz_reports_a_redis_failure(site, client_for, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    response = client_for(site).get("/healthz")
    assert response.status_code == 503
    assert response.json()["redis"].startswith("error")


def test_the_error_page_falls_back_when_it_cannot_render(site, rf, monkeypatch):
    from apps.common import views

    def broken(*args, **kwargs):
        raise RuntimeError("template broken")

    monkeypatch.setattr(views, "render", broken)
    request = rf.get("/")
    request.site = site
    response = views.server_error(request)
    assert response.status_code == 500
    assert "An error occurred while showing the error page" in response.content.decode()
    assert "Go back to home" in response.content.decode()


def test_server_error_page_says_error(site, rf):
    from django.contrib.auth.models import AnonymousUser

    from apps.common import views

    request = rf.get("/", HTTP_HOST="localhost")
    request.site = site
    request.tenant = site
    request.user = AnonymousUser()
    response = views.server_error(request)
    assert response.status_code == 500
    assert "<title>Error</title>" in response.content.decode()


def test_members_get_a_search_call_to_action_instead_of_signup(site, client_for, in_site, django_user_model):
    member = django_user_model.objects.create_user("cta", "cta@example.com", "pw-123456789")
    client = client_for(site)
    client.force_login(member)
    body = client.get("/").content.decode()
    assert 'data-testid="search-cta"' in body and 'data-testid="signup-cta"' not in body
    assert 'data-testid="signup-cta"' in client_for(site).get("/").content.decode()
