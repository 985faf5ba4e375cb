"""Accessibility: axe-core (WCAG 2.2 A and AA rules) on every page of spec §2 and on every
modal, in a real browser, on both demo sites.

Pages: every route in English at 390 and 1280 px on both sites, logged out and logged in
(a member with photos, a purchase, a conversation, likes and a match; and a new member
with nothing yet, for the empty states); French (localhost) and German (gay.localhost) at
390 px. Modals: the site-entry warning, the signup modal, the like, match and time-bonus
modals, the chat's icebreaker and gift dialogs, the chat's delete confirmation, a visitor's
login-needed dialogs on a profile (message, like, gift, more photos), the top bar's open
account and language menus, the activation reminder dialog right after signing up, each
step of the account's delete flow (with its error states) and the empty layout (the
sandbox checkout, for a member and a visitor). Each
page is its own test item, named after the site, language, width, visitor and path; one
browser context per combination is shared by its pages. `-s` prints the number of
violations per page (`axe localhost en 390 /likes: 0`).

axe's source is evaluated through Playwright (DevTools protocol), which the pages' CSP
does not govern: the app's own scripts and styles stay under the CSP, and every context
here is still checked for CSP violations after each page."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone
from playwright.sync_api import expect

from apps.tenants.models import Site
from conftest import DESKTOP, PHONE, csp_violations, on_site
from tests.live import in_thread, members_delete

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

AXE_SOURCE = (Path(settings.BASE_DIR) / "node_modules" / "axe-core" / "axe.min.js").read_text()
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
DOMAINS = ("localhost", "gay.localhost")

# Pages anyone may open (spec §2), {demo}: a demo profile's id.
PUBLIC_PATHS = [
    "/",
    "/login",
    "/signup",
    "/reset-password",
    "/reset-password/do",
    "/pricing",
    "/lang-config",
    "/activate/done",
    "/activate/error",
    "/account-deleted",
    "/mail-change/do",  # without a valid link: its error
    "/no-such-page",  # the error page (404)
    "/pages/terms",
    "/pages/privacy",
    "/pages/cookies",
    "/pages/ban",
    "/pages/return-policy",
    "/pages/faq",
    "/pages/service",
    "/complaints",
    "/landers/alonetonight",
    "/landers/collagelanding",
    "/landers/gallery",
    "/landers/iconslanding",
    "/landers/maplanding",
    "/landers/socialnetwork",
    "/landers/transitionsvideolanding",
    "/landers/video",
    "/landers/tinderswipe",
    "/members/{demo}/landing",
    "/members/{demo}/landing2",
    "/members/{demo}/landing3",
    "/members/{demo}/signup",
]
# Pages of a member with a profile, photos, a purchase, a conversation and likes;
# {other}: the member they chat with and match, {conversation}, {package}, {payment}.
MEMBER_PATHS = [
    "/",
    "/members",
    "/members/{other}",
    "/likes/m/{other}",
    "/members/{demo}",
    "/likes",
    "/likes/received",
    "/likes/sent",
    "/likes/matches",
    "/chats",
    "/chats/{conversation}",
    "/profile",
    "/notifications",
    "/credits",
    "/credits/repeat-order",
    "/credits/{package}",
    "/credits/{package}/{method}",
    "/directdebit",
    "/transactions",
    "/transactions/{payment}",
    "/transactions/{payment}/refund",  # the refund confirmation
    "/premium",
    "/pricing",
    "/match-finder",
    "/swipe-game",
    "/signup-matches",
    "/activate/done",
    "/complaints?profile={other}",
    "/lang-config",
    "/pages/faq",
    "/no-such-page",
]
# The empty states: a member who signed up just now, without photos, likes or chats.
EMPTY_PATHS = [
    "/complete-signup",
    "/likes/received",
    "/likes/sent",
    "/likes/matches",
    "/chats",
    "/profile",
    "/transactions",
    "/members",
]

# (domain, language, width): which pages are checked there.
COMBINATIONS = [
    ("localhost", "en", 390),
    ("localhost", "en", 1280),
    ("gay.localhost", "en", 390),
    ("gay.localhost", "en", 1280),
    ("localhost", "fr", 390),
    ("gay.localhost", "de", 390),
]


def _items() -> list:
    items = []
    for domain, language, width in COMBINATIONS:
        for who, paths in (("visitor", PUBLIC_PATHS), ("member", MEMBER_PATHS), ("new", EMPTY_PATHS)):
            if who == "new" and (language != "en" or width != 390):
                continue
            for path in paths:
                items.append(
                    pytest.param(domain, language, width, who, path, id=f"{domain}-{language}-{width}-{who}-{path}")
                )
    return items


# --- Data ----------------------------------------------------------------------------


@dataclass
class SiteData:
    site: Site
    demo: int
    other: int
    conversation: int
    package: int
    method: str
    payment: str
    photos_profile: int  # a member's profile with photos behind the lock for visitors
    sessions: dict  # who -> user
    users: list


def _site_data(site: Site) -> SiteData:
    from apps.accounts.models import UserStatus
    from apps.chat.services import conversation_opened
    from apps.chat.tests.helpers import credits_give, send
    from apps.likes.models import Like
    from apps.likes.selectors import likeable_profiles
    from apps.likes.services import like_create
    from apps.payments.models import CreditPackage
    from apps.payments.tests.helpers_core import buy
    from apps.profiles.models import Photo, PhotoStatus, ProfileStatus
    from apps.profiles.services.photos import photo_upload
    from apps.profiles.tests.helpers import jpeg_upload
    from apps.profiles.tests.helpers_view import member

    country = "GB" if site.domains.filter(domain="localhost").exists() else "NL"
    tag = uuid.uuid4().hex[:6]
    long_ago = {"date_joined": timezone.now() - timedelta(days=30), "country": country}
    gender = "male" if country == "NL" else "female"
    alex = member(site, f"Alex{tag}", user_fields=long_ago, country=country, gender=gender, about_me="Hello there")
    sam = member(site, f"Sam{tag}", user_fields=long_ago, country=country, gender=gender, about_me="Hi")
    new = member(site, f"Neo{tag}", user_fields={"country": country}, country=country, gender=gender)
    ivy = member(site, f"Ivy{tag}", user_fields=long_ago, country=country, gender=gender)
    # Signed up just now, address not confirmed: the activation reminder.
    unconfirmed = member(
        site,
        f"Uma{tag}",
        user_fields={"country": country, "status": UserStatus.NOT_CONFIRMED},
        country=country,
        gender=gender,
        status=ProfileStatus.DISABLED,
    )
    with on_site(site):
        for colour in ((200, 80, 120), (60, 120, 200)):
            photo_upload(site=site, user=alex.user, upload=jpeg_upload(colour=colour))
        photo_upload(site=site, user=sam.user, upload=jpeg_upload(colour=(90, 160, 90)))
        for colour in ((160, 90, 60), (90, 60, 160)):  # approved: a visitor sees one, one is locked
            photo = photo_upload(site=site, user=ivy.user, upload=jpeg_upload(colour=colour))
            Photo.objects.filter(pk=photo.pk).update(status=PhotoStatus.ACTIVE)
        demo = likeable_profiles(alex.user).filter(user__isnull=True).order_by("pk").values_list("pk", flat=True)[0]
    credits_give(site, sam.user, 100)
    payment = buy(site, alex.user, method="visa" if country == "GB" else "creditcard")
    conversation, _message = send(site, sam, alex, "Hello! How are you?")
    send(site, alex, sam, "Fine, thanks. And you?")
    with on_site(site):
        # Alex has opened the conversation: from 768 px /chats opens it (wide_chats_page).
        conversation_opened(user=alex.user, conversation_id=conversation.pk)
        like_create(liker=alex.user, profile_id=sam.pk)
        like_create(liker=sam.user, profile_id=alex.pk)
        like_create(liker=alex.user, profile_id=demo)
        Like.objects.filter(profile__in=[alex, sam]).update(seen_at=timezone.now())  # no match modal on the pages
        package = CreditPackage.objects.filter(site=site).order_by("position", "pk").values_list("pk", flat=True)[0]
    return SiteData(
        site=site,
        demo=demo,
        other=sam.pk,
        conversation=conversation.pk,
        package=package,
        method="visa" if country == "GB" else "ideal",
        payment=payment.public_id,
        photos_profile=ivy.pk,
        sessions={"member": alex.user, "new": new.user, "unconfirmed": unconfirmed.user},
        users=[alex.user_id, sam.user_id, new.user_id, unconfirmed.user_id, ivy.user_id],
    )


def _session(site: Site, user) -> str:
    from django.test import Client

    client = Client(HTTP_HOST=site.domains.get(is_primary=True).domain)
    with on_site(site):
        client.force_login(user, backend="allauth.account.auth_backends.AuthenticationBackend")
    return client.cookies[settings.SESSION_COOKIE_NAME].value


@pytest.fixture(scope="module")
def a11y_data(django_db_setup, django_db_blocker):
    """Both demo sites with 8 demo profiles and the members above, committed: {domain: SiteData}."""
    from apps.profiles.services.demo import demo_profiles_delete, demo_profiles_seed

    with django_db_blocker.unblock():
        sites = {domain: Site.objects.get(domains__domain=domain) for domain in DOMAINS}
        data = {}
        try:
            for domain, site in sites.items():
                in_thread(demo_profiles_seed, site=site, count=8)
                data[domain] = in_thread(_site_data, site)
            yield data
        finally:
            for domain, site in sites.items():
                if domain in data:
                    members_delete([(site, user_id) for user_id in data[domain].users])
                in_thread(demo_profiles_delete, site=site)


# --- Browser -------------------------------------------------------------------------


def open_page(chromium, server, site_data, domain: str, language: str, width: int, user=None, entry_ok: bool = True):
    """A new context at `width` in `language` (the entry warning passed unless not
    `entry_ok`, logged in as `user` if given) with one page whose requests are tracked:
    (context, page, its CSP violations, its JavaScript errors)."""
    viewport = PHONE if width == PHONE["width"] else DESKTOP
    context = chromium.new_context(viewport=viewport, locale="en-US", reduced_motion="reduce")
    violations = csp_violations(context)
    url = server.url(domain, "/")
    cookies = [{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": url}]
    if entry_ok:
        cookies.append({"name": settings.ENTRY_WARNING_COOKIE_NAME, "value": "1", "url": url})
    if user is not None:
        session = in_thread(_session, site_data.site, user)
        cookies.append({"name": settings.SESSION_COOKIE_NAME, "value": session, "url": url})
    context.add_cookies(cookies)
    page = context.new_page()
    track_requests(page)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page, violations, errors


class Contexts:
    """One browser context (and page) per combination of site, language, width and visitor."""

    def __init__(self, chromium, server, data) -> None:
        self.chromium, self.server, self.data = chromium, server, data
        self.made: dict[tuple, tuple] = {}

    def page(self, domain: str, language: str, width: int, who: str):
        key = (domain, language, width, who)
        if key not in self.made:
            site_data = self.data[domain]
            user = None if who == "visitor" else site_data.sessions[who]
            context, page, violations, errors = open_page(
                self.chromium, self.server, site_data, domain, language, width, user
            )
            self.made[key] = (context, page, violations, errors)
        return self.made[key]

    def close(self) -> None:
        for context, *_rest in self.made.values():
            context.close()


@pytest.fixture(scope="module")
def contexts(chromium, asgi_server, a11y_data, django_db_blocker):
    with django_db_blocker.unblock():
        made = Contexts(chromium, asgi_server, a11y_data)
        yield made
        made.close()


# Counts the page's fetch and XMLHttpRequest calls in flight and when that count last
# changed (an init script: it runs before the page's own scripts, outside its CSP).
TRACK_REQUESTS = """
(() => {
  let inflight = 0;
  window.__a11yQuiet = () => inflight === 0 && performance.now() - window.__a11yChanged > 150;
  window.__a11yChanged = performance.now();
  const change = (delta) => { inflight += delta; window.__a11yChanged = performance.now(); };
  const fetch = window.fetch;
  window.fetch = function (...args) {
    change(1);
    return fetch.apply(this, args).finally(() => change(-1));
  };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    change(1);
    this.addEventListener("loadend", () => change(-1), { once: true });
    return send.apply(this, args);
  };
})();
"""


# Images shown without width and height (or a CSS aspect ratio): the page shifts when they load.
UNSIZED_IMAGES = """
() => [...document.images]
  .filter((img) => img.getClientRects().length > 0)
  .filter((img) => !(img.getAttribute("width") && img.getAttribute("height")))
  .filter((img) => getComputedStyle(img).aspectRatio === "auto")
  .map((img) => img.outerHTML.slice(0, 160))
"""


def track_requests(page) -> None:
    page.add_init_script(TRACK_REQUESTS)


def settle(page) -> None:
    """Wait until the page has loaded, its islands are mounted, no request of its
    scripts has been in flight for a moment (what the islands render from their answers
    is on the page) and no finite CSS animation or transition is running (a dialog still
    fading in blends its colours with the page, and axe would judge the blend). Cheaper
    than Playwright's networkidle, which waits 500 ms."""
    page.wait_for_load_state("load")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-island]')].every(el => el.hasAttribute('data-island-mounted'))"
        " && window.__a11yQuiet()"
        " && document.getAnimations().every(a => a.playState !== 'running'"
        " || a.effect?.getComputedTiming().endTime === Infinity)",
        polling="raf",
    )


def axe_violations(page) -> list[dict]:
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(f"() => {{ {AXE_SOURCE}\n; window.axe = axe; }}")
    return page.evaluate(
        "async (tags) => (await window.axe.run(document, {runOnly: {type: 'tag', values: tags},"
        " resultTypes: ['violations']})).violations",
        WCAG_TAGS,
    )


def report(violations: list[dict]) -> str:
    lines = []
    for violation in violations:
        lines.append(f"- {violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"][:8]:
            summary = " ".join(node.get("failureSummary", "").split())
            lines.append(f"    {' > '.join(map(str, node['target']))}: {summary[:300]}")
        if len(violation["nodes"]) > 8:
            lines.append(f"    ... and {len(violation['nodes']) - 8} more")
    return "\n".join(lines)


def assert_accessible(page, label: str) -> None:
    settle(page)
    violations = axe_violations(page)
    count = sum(len(violation["nodes"]) for violation in violations)
    print(f"axe {label}: {count}")
    if violations:
        print(report(violations))
    assert not violations, f"axe found {count} violation(s) on {label}:\n{report(violations)}"


def wide_chats_page(page, data: SiteData, width: int, who: str = "member") -> None:
    """/chats on a wide screen opens the member's last opened conversation (docs/chat.md):
    wait until it has, so the checks see the page that stays."""
    if who == "member" and width >= 768:
        page.wait_for_url(f"**/chats/{data.conversation}")


def check_clean(violations: list[str], errors: list[str], label: str) -> None:
    assert not violations, f"CSP violations on {label}: {violations}"
    assert not errors, f"JavaScript errors on {label}: {errors}"


@pytest.mark.parametrize(("domain", "language", "width", "who", "path"), _items())
def test_page_has_no_axe_violations(contexts, a11y_data, domain, language, width, who, path):
    _context, page, violations, errors = contexts.page(domain, language, width, who)
    violations.clear()
    errors.clear()
    data = a11y_data[domain]
    address = path.format(
        demo=data.demo,
        other=data.other,
        conversation=data.conversation,
        package=data.package,
        method=data.method,
        payment=data.payment,
    )
    page.goto(contexts.server.url(domain, address))
    if path == "/chats":
        wide_chats_page(page, data, width, who)
    expect(page.locator("html")).to_have_attribute("lang", language)
    assert_accessible(page, f"{domain} {language} {width} {path} ({who})")
    assert not page.evaluate(UNSIZED_IMAGES), f"images without a size on {path}: no room is kept while they load"
    check_clean(violations, errors, path)


# --- Modals --------------------------------------------------------------------------

MODALS = [
    "entry-warning",
    "signup-modal",
    "like-modal",
    "match-modal",
    "time-bonus-modal",
    "chat-icebreaker",
    "chat-gifts",
    "chat-delete",
    "login-needed",
    "account-menu",
    "language-menu",
    "activation-reminder",
    "account-delete",
    "empty-layout",
    "empty-layout-visitor",
]
# A visitor's actions on a profile and the dialog each opens (islands/LoginNeeded).
LOGIN_NEEDED_BUTTONS = {
    "message": "profile-message",
    "like": "profile-like",
    "gift": "profile-gift",
    "photos": "profile-photos-login",
}
MODAL_COMBINATIONS = COMBINATIONS  # every modal where the pages are checked


def _liker(site: Site, profile_id: int, users: list[int]) -> None:
    """A new member who likes the profile: its member gets the match modal on the next page."""
    from apps.likes.services import like_create
    from apps.profiles.tests.helpers_view import member

    liker = member(site, f"Kim{uuid.uuid4().hex[:6]}", user_fields={"country": "GB"}, country="GB")
    users.append(liker.user_id)
    with on_site(site):
        like_create(liker=liker.user, profile_id=profile_id)


def _checkout_path(site: Site, user, package_id: int, method: str) -> str:
    """A payment started and not decided yet: its sandbox checkout (the empty layout)."""
    from apps.payments.services import payment_start
    from apps.payments.tests.helpers_core import site_request

    with on_site(site):
        payment = payment_start(
            request=site_request(site, user), user=user, package_id=package_id, method=method, discount_code=""
        )
    return f"/sandbox/checkout/{payment.provider_id}"


def _delete_flow(page, url, label: str) -> None:
    """Each step of the account's delete flow (settings), with its error states: the reason
    (none chosen), the save-offers, the confirmation (a wrong password: nothing is deleted)."""
    page.goto(url("/notifications/delete"))
    expect(page.get_by_test_id("delete-reason")).to_be_visible()
    assert_accessible(page, f"{label} reason")
    page.get_by_test_id("delete-reason").locator("button[type=submit]").click()
    expect(page.get_by_test_id("error-delete-reason")).to_be_visible()
    assert_accessible(page, f"{label} reason with errors")
    page.locator("input[name=reason][value=found_someone]").check()
    page.get_by_test_id("delete-reason").locator("button[type=submit]").click()
    expect(page.get_by_test_id("delete-offers")).to_be_visible()
    expect(page.get_by_test_id("offer-privacy")).to_be_visible()
    assert_accessible(page, f"{label} offers")
    page.get_by_test_id("delete-offers").locator("a.btn-outline-danger").click()
    expect(page.get_by_test_id("delete-confirm")).to_be_visible()
    assert_accessible(page, f"{label} confirm")
    page.locator("#confirm-password").fill("not-the-password")
    page.get_by_test_id("delete-confirm").locator("button[type=submit]").click()
    expect(page.locator("#confirm-password")).to_have_attribute("aria-invalid", "true")
    assert_accessible(page, f"{label} confirm with errors")


def _own_profile_id(site: Site, user) -> int:
    from apps.profiles.models import Profile

    with on_site(site):
        return Profile.objects.get(user=user).pk


@pytest.fixture
def fresh_context(chromium, asgi_server, django_db_blocker):
    """A browser context of its own for one modal (its state must not leak into the pages'):
    made(domain, language, width, user=None, entry_ok=True)."""
    made = []

    def make(site_data, domain: str, language: str, width: int, user=None, entry_ok: bool = True):
        with django_db_blocker.unblock():
            context, page, violations, errors = open_page(
                chromium, asgi_server, site_data, domain, language, width, user, entry_ok=entry_ok
            )
        made.append((context, violations, errors))
        return page

    yield make
    for context, violations, errors in made:
        context.close()
        assert not violations, f"CSP violations: {violations}"
        assert not errors, f"JavaScript errors: {errors}"


@pytest.mark.parametrize("modal", MODALS)
@pytest.mark.parametrize(
    ("domain", "language", "width"), [pytest.param(*c, id=f"{c[0]}-{c[1]}-{c[2]}") for c in MODAL_COMBINATIONS]
)
def test_modal_has_no_axe_violations(
    fresh_context, a11y_data, asgi_server, django_db_blocker, domain, language, width, modal
):
    data = a11y_data[domain]
    member_user, new_user = data.sessions["member"], data.sessions["new"]

    def url(path: str) -> str:
        return asgi_server.url(domain, path)

    if modal == "entry-warning":
        page = fresh_context(data, domain, language, width, entry_ok=False)
        page.goto(url("/"))
        shown = page.get_by_test_id("entry-warning")
    elif modal == "signup-modal":
        page = fresh_context(data, domain, language, width)
        page.goto(url("/"))
        settle(page)
        page.get_by_test_id("signup-cta").click()
        shown = page.get_by_test_id("signup-modal")
    elif modal == "like-modal":
        page = fresh_context(data, domain, language, width, user=member_user)
        page.goto(url("/members?t=0"))
        shown = page.get_by_test_id("like-modal")
    elif modal == "match-modal":
        with django_db_blocker.unblock():
            in_thread(_liker, data.site, in_thread(_own_profile_id, data.site, member_user), data.users)
        page = fresh_context(data, domain, language, width, user=member_user)
        page.goto(url("/likes"))
        shown = page.get_by_test_id("match-modal")
    elif modal == "time-bonus-modal":
        page = fresh_context(data, domain, language, width, user=new_user)
        # The modal opens 40 s after entering the members area: the entry is put back in time.
        page.add_init_script("sessionStorage.setItem('timeBonusMembersAreaSince', String(Date.now() - 60000))")
        page.goto(url("/members"))
        shown = page.get_by_test_id("time-bonus-modal")
    elif modal == "chat-icebreaker":
        page = fresh_context(data, domain, language, width, user=member_user)
        page.goto(url(f"/members/{data.demo}/chat"))
        settle(page)
        # The empty conversation offers it in its message area ("Break the ice"), then the modal.
        offer = page.get_by_test_id("chat-icebreaker-open")
        expect(offer).to_be_visible()
        assert_accessible(page, f"{domain} {language} {width} {modal} offer")
        offer.click()
        shown = page.get_by_test_id("chat-icebreaker")
    elif modal == "chat-gifts":
        page = fresh_context(data, domain, language, width, user=member_user)
        page.goto(url(f"/chats/{data.conversation}"))
        settle(page)
        page.get_by_test_id("chat-gift-button").click()
        shown = page.get_by_test_id("chat-gifts")
        expect(shown.locator("[data-testid^=gift-]").first).to_be_visible()
    elif modal == "login-needed":  # a visitor's actions on a profile (islands/LoginNeeded)
        page = fresh_context(data, domain, language, width)
        page.goto(url(f"/members/{data.photos_profile}"))
        settle(page)
        for key, button in LOGIN_NEEDED_BUTTONS.items():
            page.get_by_test_id(button).click()
            shown = page.get_by_test_id(f"login-needed-{key}")
            expect(shown).to_be_visible()
            assert_accessible(page, f"{domain} {language} {width} {modal} {key}")
            page.keyboard.press("Escape")
            expect(shown).to_have_count(0)
        return
    elif modal == "activation-reminder":  # right after signing up (islands/ActivationReminder)
        page = fresh_context(data, domain, language, width, user=data.sessions["unconfirmed"])
        page.goto(url("/?api_signup_complete=1"))
        if width < 576:  # not on phones: the alert is checked with the pages
            settle(page)
            expect(page.get_by_test_id("activation-modal")).to_have_count(0)
            shown = page.get_by_test_id("activation-alert")
            page.goto(url("/"))
        else:
            shown = page.get_by_test_id("activation-modal")
            expect(shown).to_be_visible()
            shown.get_by_test_id("activation-resend").click()
            expect(shown.get_by_test_id("activation-resend-status")).not_to_be_empty()
    elif modal == "account-delete":
        page = fresh_context(data, domain, language, width, user=member_user)
        _delete_flow(page, url, f"{domain} {language} {width} {modal}")
        return
    elif modal in ("empty-layout", "empty-layout-visitor"):  # the sandbox checkout
        with django_db_blocker.unblock():
            path = in_thread(_checkout_path, data.site, member_user, data.package, data.method)
        page = fresh_context(data, domain, language, width, user=member_user if modal == "empty-layout" else None)
        page.goto(url(path))
        expect(page.locator("body")).to_have_class(re.compile(r"\blayout-empty\b"))
        shown = page.get_by_test_id("sandbox-checkout")
    elif modal in ("account-menu", "language-menu"):  # the top bar's open dropdown menus
        who = member_user if modal == "account-menu" else None
        page = fresh_context(data, domain, language, width, user=who)
        page.goto(url("/"))
        settle(page)
        toggle = page.get_by_test_id("topbar-account" if modal == "account-menu" else "language-dropdown")
        toggle.locator("[data-bs-toggle=dropdown]").click()
        shown = toggle.locator(".dropdown-menu.show")
    else:  # chat-delete: the delete confirmation in the chat list
        page = fresh_context(data, domain, language, width, user=member_user)
        page.goto(url("/chats"))
        wide_chats_page(page, data, width)
        settle(page)
        page.get_by_test_id(f"chat-delete-{data.conversation}").click()
        shown = page.get_by_test_id("chat-delete-confirm")
    expect(shown).to_be_visible()
    assert_accessible(page, f"{domain} {language} {width} {modal}")


# --- Skip link -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "path"),
    [("visitor", "/"), ("visitor", "/landers/gallery"), ("member", "/members"), ("member", "/chats")],
)
def test_the_skip_link_comes_first_and_moves_the_focus_to_main(fresh_context, a11y_data, asgi_server, who, path):
    """The default, lander and chat layouts: the first Tab reaches the skip link,
    which shows; following it puts the focus on the page's one main landmark."""
    data = a11y_data["localhost"]
    page = fresh_context(data, "localhost", "en", 390, user=data.sessions["member"] if who == "member" else None)
    page.goto(asgi_server.url("localhost", path))
    settle(page)
    expect(page.get_by_role("main")).to_have_count(1)
    page.keyboard.press("Tab")
    skip = page.get_by_test_id("skip-link")
    expect(skip).to_be_focused()
    expect(skip).to_have_text("Skip to main content")
    assert skip.bounding_box()["width"] > 40  # shown, not clipped to 1 px
    page.keyboard.press("Enter")
    expect(page.locator("main#main")).to_be_focused()
