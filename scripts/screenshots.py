"""Screenshots of the main screens of both demo sites at 390 and 1280 px, for docs/.

    make screenshots        (python scripts/stack.py test scripts/screenshots.py)

Runs under the test harness (conftest.py): a throwaway test database with the demo sites,
the app over ASGI in a thread and Debian's Chromium. It seeds demo profiles, makes a member
per site with a conversation, takes the screens as JPEG (quality 70) into docs/screenshots/
and writes docs/screenshots.md. Not a test: it lives outside the test paths and is only run
when asked for."""

from __future__ import annotations

import uuid
from datetime import date
from pathlib import Path

import pytest
from allauth.account.models import EmailAddress

from apps.accounts.models import User
from apps.chat.tests.helpers import credits_give, send
from apps.profiles.models import Profile, ProfileStatus
from apps.profiles.services.demo import demo_profiles_seed
from apps.tenants.models import Site
from conftest import DESKTOP, PHONE, on_site
from tests.live import in_thread

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
PAGE = ROOT / "docs" / "screenshots.md"
PASSWORD = "a-Long-passphrase-42"
SITES = {"localhost": "Heartline (general)", "gay.localhost": "Manline (gay)"}
WIDTHS = {390: PHONE, 1280: DESKTOP}
SCREENS = [
    ("home-visitor", "Home page, visitor"),
    ("signup-modal", "Signup modal"),
    ("lander", "Lander (gallery)"),
    ("home-member", "Home page, member"),
    ("search", "Search"),
    ("profile", "Profile"),
    ("likes", "Likes"),
    ("chats", "Chats list"),
    ("conversation", "Conversation"),
    ("swipe", "Swipe game"),
    ("credits", "Credits"),
    ("settings", "Settings"),
]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


def _member(site: Site, gender: str) -> tuple[str, Profile]:
    tag = uuid.uuid4().hex[:8]
    email = f"shots-{tag}@example.com"
    with on_site(site):
        user = User.objects.create_user(username=f"Sam{tag}", email=email, password=PASSWORD)
        EmailAddress.objects.create(user=user, email=email, primary=True, verified=True)
        profile = Profile.objects.create(
            user=user,
            name="Sam",
            status=ProfileStatus.ACTIVE,
            gender=gender,
            country="GB",
            city="Leeds",
            date_of_birth=date(1990, 4, 5),
            about_me="Coffee, long walks and good films.",
        )
    return email, profile


def _prepare(site: Site) -> dict:
    """Demo profiles, a member with a few credits, and a second member who wrote to them."""
    demo_profiles_seed(site=site, count=30)
    gender = "male" if site.niche == 7 else "female"
    email, me = _member(site, gender)
    _other_email, other = _member(site, gender)
    with on_site(site):
        other.name = "Robin"
        other.save(update_fields=["name"])
        demo = Profile.objects.filter(is_fictional=False, user__isnull=True, main_photo__isnull=False).order_by("-pk")
        shown = demo.first() or other
    credits_give(site, other.user, 5)
    credits_give(site, me.user, 4)
    conversation, _message = send(site, other, me, "Hi Sam! Fancy a coffee this weekend?")
    return {"email": email, "profile": shown.pk, "conversation": conversation.pk}


def _settle(page) -> None:
    page.wait_for_load_state("networkidle")
    for testid in ("entry-warning-enter",):
        button = page.get_by_test_id(testid)
        if button.count() and button.is_visible():
            button.click()
            page.get_by_test_id("entry-warning").wait_for(state="detached")
    modal = page.get_by_test_id("match-modal")
    if modal.count():
        modal.click(position={"x": 5, "y": 5})
        modal.wait_for(state="detached")
    page.evaluate("document.fonts.ready")


def _shot(page, name: str) -> None:
    page.screenshot(path=str(OUT / f"{name}.jpg"), type="jpeg", quality=70, animations="disabled")


def test_screenshots(site_server, chromium):
    data = {}
    for domain in SITES:
        site = Site.objects.get(domains__domain=domain)
        data[domain] = in_thread(_prepare, site)
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.jpg"):
        old.unlink()
    for domain, info in data.items():
        for width, viewport in WIDTHS.items():
            prefix = f"{domain.split('.')[0]}-{width}"
            context = chromium.new_context(viewport=viewport, locale="en-US", reduced_motion="reduce")
            page = context.new_page()
            url = lambda path, domain=domain: site_server.url(domain, path)  # noqa: E731
            page.goto(url("/"))
            _settle(page)
            _shot(page, f"{prefix}-home-visitor")
            page.get_by_test_id("signup-cta").click()
            page.get_by_test_id("signup-modal").wait_for(state="visible")
            _shot(page, f"{prefix}-signup-modal")
            page.goto(url("/landers/gallery"))
            _settle(page)
            _shot(page, f"{prefix}-lander")
            page.goto(url("/login"))
            _settle(page)
            page.locator("#login-email").fill(info["email"])
            page.locator("#login-password").fill(PASSWORD)
            page.get_by_test_id("login-submit").click()
            page.get_by_test_id("topbar-account").wait_for()
            for name, path in [
                ("home-member", "/"),
                ("search", "/members"),
                ("profile", f"/members/{info['profile']}"),
                ("likes", "/likes"),
                ("chats", "/chats"),
                ("conversation", f"/chats/{info['conversation']}"),
                ("swipe", "/swipe-game"),
                ("credits", "/credits"),
                ("settings", "/notifications"),
            ]:
                page.goto(url(path))
                _settle(page)
                _shot(page, f"{prefix}-{name}")
            context.close()
    _write_page()


def _write_page() -> None:
    lines = [
        "# Screenshots",
        "",
        "The main screens of both demo sites at 390 px (phone) and 1280 px (desktop), made by",
        "`make screenshots` (scripts/screenshots.py) on a throwaway database with demo data.",
        "",
    ]
    for domain, title in SITES.items():
        host = domain.split(".")[0]
        lines += [f"## {title}", "", "| screen | 390 px | 1280 px |", "| --- | --- | --- |"]
        for key, label in SCREENS:
            cells = [f"![{label}, {width} px](screenshots/{host}-{width}-{key}.jpg)" for width in WIDTHS]
            lines.append(f"| {label} | {cells[0]} | {cells[1]} |")
        lines.append("")
    PAGE.write_text("\n".join(lines))
