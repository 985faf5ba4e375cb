"""Scam and spam signals in chat: links, phone numbers, e-mail addresses, messenger
handles, money-transfer and gift-card words per language, and the same first message to
many members; a new account's first message with signals is held for review or shown with
a safety notice by the site's rule; support delivers or rejects it (credits back)."""

from datetime import timedelta

import pytest
from django.core.cache import caches
from django.utils import timezone

from apps.chat import safety
from apps.chat.models import Message, MessageReview, Participant
from apps.chat.payloads import message_payload
from apps.chat.selectors import conversation_history
from apps.chat.services import chat_release_held, held_message_reject, held_message_release
from apps.chat.tests.helpers import credits_give, member, send
from apps.credits.models import CreditEntry
from apps.moderation.models import ComplaintCase
from apps.moderation.services import held_message_decide
from apps.profiles.models import Complaint
from apps.support.models import AuditEntry
from conftest import on_site
from tests.staff import staff_member

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("text", "signals"),
    [
        ("Hi, how are you today?", []),
        ("I was born in 1985 and I have 2 cats", []),
        ("see my pics at www.example.com", ["link"]),
        ("https://t.me/someone", ["link"]),
        ("call me +31 6 1234 5678", ["phone"]),
        ("my number 0612-345678", ["phone"]),
        ("write me at anna.b@example.com", ["email"]),
        ("anna (at) example (dot) com", ["email"]),
        ("add me on WhatsApp", ["messenger"]),
        ("my snap is @sunny_anna", ["messenger"]),
        ("Please send me a gift card", ["money"]),
        ("Kannst du mir per Überweisung helfen?", ["money"]),
        ("Achète une carte cadeau", ["money"]),
        ("Stuur me een cadeaukaart", ["money"]),
        ("Wyślij pieniądze przez blik", ["money"]),
        ("Western Union to +44 7700 900123 or mail x@y.co", ["phone", "email", "money"]),
    ],
)
def test_scam_signals(text, signals):
    assert safety.text_signals(text) == signals


def test_scam_signals_every_catalogue_language_has_words():
    assert set(safety.MONEY_WORDS) == {"da", "de", "en", "es", "fi", "fr", "it", "nb", "nl", "pl", "sv"}


def test_repeated_first_message_is_counted_per_site_and_bounded(site, gay_site):
    cache = caches["volatile"]  # keyed by what members write: the evictable cache bounds it
    cache.clear()
    text = "Hello  dear, you look LOVELY!"
    with on_site(site):
        results = [safety.repeated_first_message(text) for _ in range(safety.REPEAT_THRESHOLD)]
    assert results == [False] * (safety.REPEAT_THRESHOLD - 1) + [True]
    with on_site(site):  # case, spacing and punctuation do not make a copy new
        assert safety.repeated_first_message("hello dear you look lovely")
    with on_site(gay_site):  # another site counts its own
        assert not safety.repeated_first_message(text)
    with on_site(site):
        key = cache.make_key("chat:first:" + safety.hashlib.sha256(safety.normalised(text).encode()).hexdigest()[:32])
        ttl = cache._cache.get_client(key).ttl(key)
    assert 0 < ttl <= safety.REPEAT_WINDOW.total_seconds()


def test_repeated_first_message_without_the_cache_counts_nothing(site, settings):
    """The evictable cache away: this one signal is lost (the outage logged once), never
    the message, and nothing waits for the cache again for its retry time."""
    from urllib.parse import urlsplit

    from apps.common import cache as common_cache
    from tests.faults import TcpProxy

    volatile = settings.CACHES["volatile"]
    target = urlsplit(volatile["LOCATION"])
    proxy = TcpProxy(target.port or 6379, target.hostname or "127.0.0.1")
    settings.CACHES = {
        **settings.CACHES,
        "volatile": {**volatile, "LOCATION": f"redis://127.0.0.1:{proxy.port}{target.path or '/0'}"},
    }
    common_cache.volatile_reset()
    try:
        with on_site(site):
            assert safety.repeated_first_message("same words") is False  # counted: the cache answers
            proxy.cut()
            copies = [safety.repeated_first_message("same words") for _ in range(safety.REPEAT_THRESHOLD + 1)]
        assert copies == [False] * (safety.REPEAT_THRESHOLD + 1)
        assert not common_cache.volatile_available()
    finally:
        proxy.close()
        common_cache.volatile_reset()


def _site_rule(site, rule):
    site.chat_safety_rule = rule
    site.save(update_fields=["chat_safety_rule"])


def _new_pair(site, *, new_account=True):
    scam, rita = member(site, "Scam"), member(site, "Rita")
    if not new_account:
        with on_site(site):
            scam.user.date_joined = timezone.now() - timedelta(days=30)
            scam.user.save(update_fields=["date_joined"])
    credits_give(site, scam.user, 10)
    credits_give(site, rita.user, 10)
    return scam, rita


def test_scam_signals_hold_a_new_accounts_first_message_for_review(site):
    _site_rule(site, "hold")
    scam, rita = _new_pair(site)
    conversation, first = send(site, scam, rita, text="Add me on WhatsApp +31 6 1234 5678")
    _conversation, second = send(site, scam, rita, text="Are you there?")
    with on_site(site):
        first.refresh_from_db()
        second.refresh_from_db()
        assert (first.held, first.review, first.signals) == (True, "held", "phone,messenger")
        assert (second.held, second.review) == (True, "held")  # waits with the first
        # The sender sees both as sent; the recipient sees nothing yet.
        mine = conversation_history(user=scam.user, conversation_id=conversation.pk)["messages"]
        assert [m["text"] for m in mine] == [first.text, second.text]
        theirs = Participant.objects.get(conversation=conversation, user=rita.user)
        assert (theirs.listed, theirs.num_unread) == (False, 0)
        # Confirming an address releases only what waited for the confirmation.
        assert chat_release_held(user=rita.user) == 0
        complaint = Complaint.objects.get(message=first)
        assert (complaint.reason, complaint.reporter_id, complaint.profile_id) == ("held_message", None, scam.pk)
    case = ComplaintCase.objects.get(site=site, complaint_id=complaint.pk)
    assert (case.reason, case.message_id, case.member_id) == ("held_message", first.pk, scam.user_id)

    agent = staff_member("support")
    case = held_message_decide(case_id=case.pk, actor=agent, deliver=True, note="Looks fine")
    assert (case.status, case.action) == ("resolved", "message_released")
    with on_site(site):
        theirs = Participant.objects.get(conversation=conversation, user=rita.user)
        assert (theirs.listed, theirs.num_unread, theirs.last_message_id) == (True, 2, second.pk)
        shown = conversation_history(user=rita.user, conversation_id=conversation.pk)["messages"]
        assert [m["text"] for m in shown] == [first.text, second.text]
    assert set(AuditEntry.objects.filter(site_id=site.pk, member_id=scam.user_id).values_list("action", flat=True)) == {
        "message.release",
        "complaint.status",
    }


def test_a_rejected_held_message_gives_its_exact_credits_back(site):
    _site_rule(site, "hold")
    site.message_credits = 2
    site.save(update_fields=["message_credits"])
    scam, rita = _new_pair(site)
    _conversation, first = send(site, scam, rita, text="Send me a gift card please")
    send(site, scam, rita, text="Hello?")
    with on_site(site):
        scam.user.refresh_from_db()
        spent = sum(Message.objects.filter(sender=scam.user).values_list("credits", flat=True))
        before = scam.user.credits
    assert spent > 0
    case = ComplaintCase.objects.get(site=site, message_id=first.pk)
    agent = staff_member("support")
    case = held_message_decide(case_id=case.pk, actor=agent, deliver=False, note="Gift card scam")
    assert (case.status, case.action) == ("resolved", "message_rejected")
    with on_site(site):
        scam.user.refresh_from_db()
        assert scam.user.credits == before + spent
        assert set(Message.objects.filter(sender=scam.user).values_list("review", flat=True)) == {"rejected"}
        assert not Participant.objects.get(conversation_id=first.conversation_id, user=rita.user).listed
        entries = CreditEntry.objects.filter(user=scam.user, kind="adjustment")
        assert sum(entries.values_list("credits", flat=True)) == spent
        # Deciding again changes nothing.
        assert held_message_reject(message_id=first.pk, staff_name="x") is None
        assert held_message_release(message_id=first.pk) == 0
        assert scam.user.credits == before + spent


def test_notice_rule_delivers_with_a_safety_notice(site):
    _site_rule(site, "notice")
    scam, rita = _new_pair(site)
    _conversation, first = send(site, scam, rita, text="My telegram is @sunny_anna")
    with on_site(site):
        first.refresh_from_db()
        assert (first.held, first.review) == (False, MessageReview.NOTICE)
        assert message_payload(first, viewer_id=rita.user_id)["safety_notice"] is True
        assert "safety_notice" not in message_payload(first, viewer_id=scam.user_id)
    assert not ComplaintCase.objects.filter(site=site, message_id=first.pk).exists()


@pytest.mark.parametrize("case", ["old_account", "not_first", "rule_off", "no_signal"])
def test_what_is_not_held(site, case):
    _site_rule(site, "off" if case == "rule_off" else "hold")
    scam, rita = _new_pair(site, new_account=case != "old_account")
    if case == "not_first":
        send(site, rita, scam, text="Hi there")  # Rita wrote first
    text = "Hi, nice profile" if case == "no_signal" else "www.example.com"
    _conversation, message = send(site, scam, rita, text=text)
    with on_site(site):
        message.refresh_from_db()
        assert (message.held, message.review) == (False, "")
        assert message.signals == ("" if case == "no_signal" else "link")


def test_signals_and_counts_on_the_support_member_page(site):
    from django.urls import reverse as django_reverse

    from apps.accounts.services.directory import directory_sync
    from apps.tenants.models import MemberDirectoryEntry
    from tests.staff import staff_client

    _site_rule(site, "hold")
    scam, rita = _new_pair(site)
    send(site, scam, rita, text="WhatsApp me at +31 6 1234 5678")
    send(site, scam, member(site, "Other"), text="see www.example.com")
    with on_site(site):
        directory_sync(user=scam.user)
    entry = MemberDirectoryEntry.objects.get(site=site, member_id=scam.user_id)
    client = staff_client(staff_member("support"))
    html = client.get(django_reverse("admin:support_member_change", args=[entry.pk], urlconf="config.urls_public"))
    html = html.content.decode()
    assert 'data-testid="support-signals-flagged">2<' in html
    assert 'data-testid="support-signals-held">2<' in html
    for code in ("phone", "messenger", "link"):
        assert f"&nbsp;&nbsp;{code}</th>" in html
