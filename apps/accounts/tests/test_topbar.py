"""The logged-in top bar (spec §2), the islands' initial state (#app-state) and the
activation reminder (spec §4)."""

import json
import re

import pytest
from django.conf import settings
from django.test import RequestFactory
from django.urls import NoReverseMatch, ResolverMatch, reverse

from apps.accounts.models import User, UserStatus
from apps.accounts.selectors import (
    activation_reminder,
    badge_label,
    credits_badge,
    member_totals,
    member_totals_register,
    member_totals_unregister,
)
from apps.accounts.tests.helpers_login import PASSWORD, login, member_create
from apps.profiles.models import ProfileStatus
from conftest import on_site

pytestmark = pytest.mark.django_db


def url_or(name: str, fallback: str) -> str:
    try:
        return reverse(name)
    except NoReverseMatch:
        return fallback


def app_state(body: str) -> dict:
    return json.loads(re.search(r'<script id="app-state" type="application/json">(.*?)</script>', body, re.S).group(1))


def badge(body: str, name: str) -> str:
    """The markup of one badge element."""
    return re.search(rf'<span [^>]*data-badge="{name}"[^>]*>[^<]*</span>', body).group(0)


def badge_text(body: str, name: str) -> str:
    return re.search(r">([^<]*)</span>$", badge(body, name)).group(1)


@pytest.fixture
def member(site):
    return member_create(site)


@pytest.fixture
def logged_in(site, client_for, member):
    client = client_for(site)
    login(client)
    return client


@pytest.fixture
def counts(monkeypatch):
    """Stand-in for the chat and likes apps: {"unreadMessages": n, "newLikes": n}. The
    apps' real contributors are set aside meanwhile (their counts and queries)."""
    from apps.accounts import selectors

    monkeypatch.setattr(selectors, "_totals_contributors", [])
    values: dict = {}

    def contributor(user):
        return values

    member_totals_register(contributor)
    yield values
    member_totals_unregister(contributor)


class TestLoggedOut:
    def test_a_login_button_and_no_member_menu(self, site, client_for):
        body = client_for(site).get("/").content.decode()
        assert 'data-testid="login-button"' in body and 'href="/login"' in body
        assert 'data-testid="topbar-account"' not in body and 'action="/logout"' not in body

    def test_the_app_state_has_no_user(self, site, client_for):
        assert app_state(client_for(site).get("/").content.decode()) == {
            "user": None,
            "totals": {"unreadMessages": 0, "newLikes": 0},
        }


class TestLoggedIn:
    def test_the_links(self, logged_in):
        body = logged_in.get("/").content.decode()
        assert 'data-testid="login-button"' not in body
        for testid, name, fallback in [
            ("topbar-members", "members", "/members"),
            ("topbar-messages", "chats", "/chats"),
            ("topbar-likes", "likes", "/likes"),
            ("topbar-profile", "profile", "/profile"),
            ("topbar-settings", "notifications", "/notifications"),
        ]:
            assert re.search(rf'href="{re.escape(url_or(name, fallback))}"[^>]*data-testid="{testid}"', body), testid
        for text in ("Search members", "Messages", "Likes", "My profile", "Settings", "Logout"):
            assert text in body
        assert re.search(
            r'<form method="post" action="/logout">\s*<input type="hidden" name="csrfmiddlewaretoken"', body
        )

    def test_on_phones_the_main_navigation_is_the_bottom_bar(self, logged_in):
        body = logged_in.get("/").content.decode()
        # The top bar's links from md up; below it the bottom bar (partials/bottom_nav.html).
        assert 'class="collapse navbar-collapse" id="topbar-nav"' in body and "navbar-expand-md" in body
        assert 'data-testid="topbar-toggler"' not in body
        bar = body[
            body.index('data-testid="bottom-nav"') : body.index("</nav>", body.index('data-testid="bottom-nav"'))
        ]
        assert 'class="bottom-nav d-md-none"' in body and 'class="bottom-nav-spacer d-md-none"' in body
        for path, testid in [
            ("/members", "bottom-nav-search"),
            ("/swipe-game", "bottom-nav-swipe"),
            ("/likes", "bottom-nav-likes"),
            ("/chats", "bottom-nav-messages"),
            ("/premium", "bottom-nav-credits"),
        ]:
            assert re.search(rf'href="{path}"[^>]*data-testid="{testid}"', bar), testid
        assert 'aria-current="page"' not in bar  # the home page is none of them
        assert re.search(r'href="/swipe-game" data-testid="topbar-swipe"', body)

    @pytest.mark.parametrize(
        ("path", "testid"),
        [("/members", "bottom-nav-search"), ("/likes", "bottom-nav-likes"), ("/swipe-game", "bottom-nav-swipe")],
    )
    def test_the_bottom_bar_marks_the_current_page(self, logged_in, path, testid):
        body = logged_in.get(path).content.decode()
        bar = body[body.index('data-testid="bottom-nav"') :]
        assert re.findall(r'data-testid="(bottom-nav-[a-z]+)" aria-current="page"', bar) == [testid]

    def test_the_bottom_bar_under_the_chat_list_but_not_in_a_conversation(self, logged_in):
        body = logged_in.get("/chats").content.decode()
        assert 'class="bottom-nav d-md-none bottom-nav-static"' in body
        assert re.search(r'data-testid="bottom-nav-messages" aria-current="page"', body)
        assert "bottom-nav-spacer" not in body

    def test_the_account_menu_shows_the_profile_name_and_an_icon_without_a_photo(self, site, logged_in):
        with on_site(site):
            User.objects.get(email="anna@example.com").profile.__class__.objects.filter(name="Anna").update(
                name="Anna B."
            )
        body = logged_in.get("/").content.decode()
        assert re.search(r'data-testid="topbar-name">Anna B\.</span>', body)
        assert 'data-testid="topbar-icon"' in body and 'data-testid="topbar-thumb"' not in body

    def test_free_members_get_premium(self, logged_in):
        body = logged_in.get("/").content.decode()
        assert re.search(
            rf'href="{url_or("premium", "/premium")}" data-testid="topbar-credits"><span>Get Premium', body
        )

    def test_paid_members_get_credits(self, site, logged_in):
        with on_site(site):
            User.objects.filter(email="anna@example.com").update(paid_user=True, credits=50)
        body = logged_in.get("/").content.decode()
        url = url_or("credits-repeat-order", "/credits/repeat-order")
        assert re.search(rf'href="{url}" data-testid="topbar-credits"><span>Credits', body)
        assert "Get Premium" not in body

    def test_no_unread_badges_at_zero(self, logged_in):
        body = logged_in.get("/").content.decode()
        for name in ("messages", "likes"):
            assert " hidden" in badge(body, name) and badge_text(body, name) == ""
            assert body.count(f'data-badge="{name}"') == 2  # the top bar's and the bottom bar's

    @pytest.mark.parametrize(
        ("messages", "likes", "expected"),
        [
            (1, 0, ("1", "")),
            (99, 1, ("99", "1")),
            (100, 250, ("99+", "99+")),
            (0, 7, ("", "7")),
        ],
    )
    def test_badges_are_capped_at_99_plus(self, logged_in, counts, messages, likes, expected):
        counts.update(unreadMessages=messages, newLikes=likes)
        body = logged_in.get("/").content.decode()
        assert (badge_text(body, "messages"), badge_text(body, "likes")) == expected
        bottom = body[body.index('data-testid="bottom-nav"') :]
        assert (badge_text(bottom, "messages"), badge_text(bottom, "likes")) == expected
        assert app_state(body)["totals"] == {"unreadMessages": messages, "newLikes": likes}

    @pytest.mark.parametrize(
        ("credits", "expected"),
        [(11, None), (100, None), (10, ("warning", "10")), (1, ("warning", "1")), (0, ("danger", "0"))],
    )
    def test_the_credits_badge(self, site, logged_in, credits, expected):
        with on_site(site):
            User.objects.filter(email="anna@example.com").update(credits=credits)
        body = logged_in.get("/").content.decode()
        if expected is None:
            assert 'data-badge="credits"' not in body
        else:
            style, label = expected
            assert f"text-bg-{style}" in badge(body, "credits") and badge_text(body, "credits") == label
            bottom = body[body.index('data-testid="bottom-nav"') :]
            assert f"text-bg-{style}" in badge(bottom, "credits") and badge_text(bottom, "credits") == label

    def test_the_app_state_holds_the_member(self, logged_in, member):
        state = app_state(logged_in.get("/").content.decode())
        assert state["user"]["id"] == member.pk and state["user"]["email"] == "anna@example.com"
        assert state["totals"] == {"unreadMessages": 0, "newLikes": 0}

    def test_the_app_state_is_escaped(self, site, client_for):
        member_create(site, name="</script><b>x")
        client = client_for(site)
        login(client)
        body = client.get("/").content.decode()
        assert "</script><b>x" not in body
        assert app_state(body)["user"]["name"] == "</script><b>x"

    def test_other_layouts_and_pages_have_the_top_bar(self, logged_in):
        for path in ("/pages/faq", "/lang-config", "/activate/done", "/no-such-page"):
            assert 'data-testid="topbar-account"' in logged_in.get(path).content.decode(), path


class TestSelectors:
    def test_badge_label(self):
        assert [badge_label(n) for n in (-1, 0, 1, 99, 100, 1000)] == ["", "", "1", "99", "99+", "99+"]

    def test_credits_badge(self):
        assert credits_badge(11) is None
        assert credits_badge(10) == {"label": "10", "style": "warning"}
        assert credits_badge(0) == {"label": "0", "style": "danger"}

    def test_member_totals_default_and_contributions(self, site, member, counts):
        with on_site(site):
            assert member_totals(member) == {"unreadMessages": 0, "newLikes": 0, "credits": 0}
            counts.update(unreadMessages=3)
            assert member_totals(member)["unreadMessages"] == 3


class TestActivationReminder:
    @pytest.fixture
    def unconfirmed(self, site, client_for):
        member_create(site, email="new@example.com", name="Newbie", status=UserStatus.NOT_CONFIRMED)
        client = client_for(site)
        login(client, email="new@example.com")
        return client

    def test_an_alert_in_the_warnings_area(self, unconfirmed):
        body = unconfirmed.get("/").content.decode()
        assert 'data-testid="activation-alert"' in body and 'data-testid="activation-modal"' not in body
        warnings = re.search(r'<div id="warnings".*?</main>', body, re.S).group(0)
        assert 'data-testid="activation-alert"' in warnings and "new@example.com" in warnings
        assert "Send the e-mail again" in warnings and 'data-bs-dismiss="alert"' in warnings

    def test_a_dialog_right_after_signing_up(self, unconfirmed):
        """The ActivationReminder island (the one Dialog), not a Bootstrap modal."""
        body = unconfirmed.get("/?api_signup_complete=1").content.decode()
        assert 'data-testid="activation-alert"' not in body
        assert 'data-island="ActivationReminder"' in body and 'class="modal' not in body
        props = json.loads(
            re.search(
                r'<script id="island-ActivationReminder-\d+-props" type="application/json">(.*?)</script>', body
            ).group(1)
        )
        assert "new@example.com" in props["text"] and props["text"].startswith("We have sent an e-mail to")
        assert props["strings"]["title"] == "Please confirm your e-mail address"
        assert props["strings"]["resend"] == "Send the e-mail again" and props["strings"]["ok"] == "OK"

    def test_the_dialog_is_translated(self, unconfirmed):
        unconfirmed.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
        body = unconfirmed.get("/?api_signup_complete=1").content.decode()
        props = json.loads(
            re.search(
                r'<script id="island-ActivationReminder-\d+-props" type="application/json">(.*?)</script>', body
            ).group(1)
        )
        assert props["strings"]["title"] == "Veuillez confirmer votre adresse e-mail", props["strings"]
        assert props["text"].startswith("Nous avons envoyé un e-mail à new@example.com.")

    def test_no_dialog_without_the_signup_parameter(self, unconfirmed):
        assert 'data-island="ActivationReminder"' not in unconfirmed.get("/").content.decode()

    def test_the_markup_needs_no_inline_script_or_style(self, unconfirmed):
        body = unconfirmed.get("/?api_signup_complete").content.decode()
        assert " style=" not in body and "onclick" not in body
        nonce_less = [tag for tag in re.findall(r"<script[^>]*>", body) if "nonce" not in tag]
        assert all('type="application/json"' in tag or 'type="module"' in tag for tag in nonce_less)

    def test_not_for_confirmed_members_or_visitors(self, site, client_for, logged_in):
        assert "activation-" not in logged_in.get("/?api_signup_complete=1").content.decode()
        assert "activation-" not in client_for(site).get("/?api_signup_complete=1").content.decode()

    def test_not_when_the_profile_is_enabled(self, site, client_for):
        member_create(site, status=UserStatus.NOT_CONFIRMED, profile_status=ProfileStatus.ACTIVE)
        client = client_for(site)
        login(client)
        assert "activation-" not in client.get("/").content.decode()

    @pytest.mark.parametrize(
        ("path", "url_name", "expected"),
        [
            ("/", "index", "alert"),
            ("/pages/faq", "pages-faq", "alert"),
            ("/signup", "signup", None),
            ("/signup/step/2", None, None),
            ("/complete-signup", "complete-signup", None),
            ("/notifications", "notifications", None),
            ("/notifications/email", None, None),
            ("/notificationsx", None, "alert"),
            ("/signup-matches", "signup-matches", "alert"),
        ],
    )
    def test_suppressed_on_signup_and_settings(self, site, path, url_name, expected):
        user = member_create(site, status=UserStatus.NOT_CONFIRMED)
        with on_site(site):
            user = User.objects.get(pk=user.pk)
            for query, kind in (("", expected), ("?api_signup_complete=1", expected and "modal")):
                request = RequestFactory().get(path + query)
                request.user = user
                request.resolver_match = ResolverMatch(lambda r: None, (), {}, url_name=url_name)
                assert activation_reminder(request=request) == kind, (path, query)

    def test_the_resend_call_answers_429_with_a_message_when_repeated(self, unconfirmed):
        first = unconfirmed.post("/api/signup/resend.php", {}, content_type="application/json")
        assert first.status_code == 200
        again = unconfirmed.post("/api/signup/resend.php", {}, content_type="application/json")
        assert again.status_code == 429
        assert again.json()["error"]["message"] == "We have just sent you an e-mail. Please wait a few minutes."


class TestPrivacy:
    def test_no_page_shows_another_members_email(self, site, client_for):
        member_create(site)
        member_create(site, email="bob@example.com", name="Bob", status=UserStatus.NOT_CONFIRMED)
        anna = client_for(site)
        login(anna)
        bob = client_for(site)
        login(bob, email="bob@example.com")
        paths = ["/", "/?api_signup_complete=1", "/pages/faq", "/activate/done", "/reset-password", "/no-such-page"]
        for path in paths:
            assert "bob@example.com" not in anna.get(path).content.decode(), path
            assert "anna@example.com" not in bob.get(path).content.decode(), path
            assert "anna@example.com" not in client_for(site).get(path).content.decode(), path

    def test_session_cookie_settings_are_unchanged(self):
        assert settings.SESSION_COOKIE_HTTPONLY and PASSWORD


class TestQueries:
    def test_the_layout_context_costs_a_fixed_number_of_queries(self, site, member, counts):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from apps.accounts.context_processors import member as member_context

        counts.update(unreadMessages=500, newLikes=500)
        with on_site(site):
            user = User.objects.get(pk=member.pk)
            request = RequestFactory().get("/")
            request.site = site
            request.user = user
            with CaptureQueriesContext(connection) as queries:
                context = member_context(request)
        selects = [query["sql"] for query in queries if not query["sql"].startswith("SET search_path")]
        assert len(selects) == 1  # the profile (it has no main photo)
        assert context["topbar"]["messages_badge"] == "99+"
