"""Screenshots of the main screens of both demo sites at 390 and 1280 px, for docs/.

    make screenshots        (python scripts/stack.py test scripts/screenshots.py)
    SCREENSHOTS_LANGUAGE=de make screenshots

The second form takes the same screens in another language into .data/screenshots-de/
(SCREENSHOTS_DIR to choose), without touching docs/: long German or French words break
layouts first.

Runs under the test harness (conftest.py): a throwaway test database with the demo sites,
the app over ASGI in a thread and Debian's Chromium. It seeds demo profiles and, per site, a
member whose search finds them, with likes both ways and a match, a few chats and one
conversation with a gift (_prepare); takes the screens as JPEG (quality 70) into
docs/screenshots/ and writes docs/screenshots.md. Not a test: it lives outside the test paths and is only run
when asked for."""

from __future__ import annotations

import os
import uuid
from collections import Counter
from datetime import date, timedelta
from pathlib import Path

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings
from django.utils import timezone

from apps.accounts.models import User
from apps.chat.models import Conversation, Message, Participant
from apps.chat.tests.helpers import credits_give, send
from apps.likes.services import like_create
from apps.profiles.models import Gender, Profile, ProfileStatus, Sexuality
from apps.profiles.selectors import looking_for_genders
from apps.profiles.services.demo import TOWNS, demo_profiles_seed
from apps.tenants.models import Gift, Site
from conftest import DESKTOP, PHONE, on_site
from tests.live import in_thread

ROOT = Path(__file__).resolve().parent.parent
LANGUAGE = os.environ.get("SCREENSHOTS_LANGUAGE", "")
DOCS = ROOT / "docs" / "screenshots"
# Another language goes elsewhere (.data/ is not committed); docs/ keeps the English.
OUT = Path(os.environ.get("SCREENSHOTS_DIR") or (ROOT / ".data" / f"screenshots-{LANGUAGE}" if LANGUAGE else DOCS))
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


def _user(site: Site, name: str):
    tag = uuid.uuid4().hex[:8]
    email = f"shots-{tag}@example.com"
    with on_site(site):
        user = User.objects.create_user(username=f"{name}{tag}", email=email, password=PASSWORD)
        EmailAddress.objects.create(user=user, email=email, primary=True, verified=True)
    return email, user


def _prepare(site: Site) -> dict:
    """Realistic main screens: demo profiles; the member Sam in the country where most of
    the profiles Sam looks for live (so the search's defaults find them); five of those
    profiles become members who like Sam (one a match), write to Sam (one conversation of
    nine messages both ways with a gift) or are liked by Sam."""
    demo_profiles_seed(site=site, count=60)
    gender = Gender.MALE
    sought = looking_for_genders(site=site, gender=gender, sexuality=Sexuality.HETERO)
    with on_site(site):
        demo = Profile.objects.filter(
            is_fictional=False, user__isnull=True, main_photo__isnull=False, gender__in=sought
        ).order_by("pk")
        country = Counter(str(code) for code in demo.values_list("country", flat=True)).most_common(1)[0][0]
        near = list(demo.filter(country=country).exclude(name="Sam"))
    email, user = _user(site, "Sam")
    with on_site(site):
        city = (TOWNS.get(country) or ((near[0].city, ""),))[0][0]
        me = Profile.objects.create(
            user=user,
            name="Sam",
            status=ProfileStatus.ACTIVE,
            gender=gender,
            sexuality=Sexuality.HETERO,
            country=country,
            city=city,
            date_of_birth=date(1990, 4, 5),
            about_me="Coffee, long walks and good films.",
        )
    # Members: demo profiles with a photo, each given an account.
    others = []
    for profile in near[:5]:
        _email, other_user = _user(site, profile.name)
        with on_site(site):
            profile.user = other_user
            profile.save(update_fields=["user"])
        credits_give(site, other_user, 50)
        others.append(profile)
    credits_give(site, user, 60)
    match, fan, writer, admirer, crush = others
    with on_site(site):
        for liker in (match, fan, writer, admirer):
            like_create(liker=liker.user, profile_id=me.pk)
        for liked in [match, crush, *near[5:8]]:
            like_create(liker=user, profile_id=liked.pk)
        gift = Gift.objects.filter(site=site).order_by("pk").first() or Gift.objects.create(
            site=site, name="Rose", emoji="\N{ROSE}"
        )
    talk = [
        (match, f"Hi Sam! I liked your profile, {city} is my favourite place too."),
        (me, f"Hi {match.name}! Thank you, that's lovely to hear. How is your week going?"),
        (match, "Busy but good! Just back from a run by the river. And yours?"),
        (me, "Calm so far. I found a new coffee place near the station, the flat white is great."),
        (match, "Now I'm jealous. I never say no to a good coffee."),
        (me, None),  # a gift
        (match, "A gift, how sweet of you! Thank you"),
        (me, "So… coffee this weekend? Saturday morning?"),
        (match, "Saturday works for me. 10 o'clock?"),
        (me, "Perfect, see you there!"),
    ]
    conversation = None
    for sender, text in talk:
        recipient = me if sender is match else match
        if text is None:
            conversation, _message = send(site, sender, recipient, text=None, gift_id=gift.pk)
        else:
            conversation, _message = send(site, sender, recipient, text)
    send(site, fan, me, f"Hey Sam, fancy a chat? I'm in {fan.city} too.")
    send(site, writer, me, "Hello! Your profile made me smile :)")
    send(site, writer, me, "What kind of films do you like?")
    with on_site(site):
        # The conversation's messages a few minutes apart, the other chats earlier.
        now = timezone.now()
        messages = list(Message.objects.filter(conversation=conversation).order_by("pk"))
        for number, message in enumerate(messages):
            moment = now - timedelta(minutes=4 * (len(messages) - number))
            Message.objects.filter(pk=message.pk).update(created=moment)
        for hours, other in ((3, fan), (26, writer)):
            moment = now - timedelta(hours=hours)
            chat = Participant.objects.get(user=user, other_profile=other).conversation_id
            Message.objects.filter(conversation_id=chat).update(created=moment)
            Conversation.objects.filter(pk=chat).update(last_message_at=moment)
            Participant.objects.filter(conversation_id=chat).update(last_message_at=moment)
    return {"email": email, "profile": match.pk, "conversation": conversation.pk}


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
            if LANGUAGE:
                context.add_cookies(
                    [{"name": settings.LANGUAGE_COOKIE_NAME, "value": LANGUAGE, "url": site_server.url(domain, "/")}]
                )
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
    if OUT == DOCS:
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
