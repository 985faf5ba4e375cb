"""Scam and spam signals in chat messages, checked as they are sent (apps.chat.services).

What scams use: a link, a phone number, an e-mail address or a messenger handle (to move
the talk off the site), words about sending money or gift cards (a small list per
catalogue language), and the same first message sent to many members. `text_signals` is
pure (regular expressions on the text, no query); `repeated_first_message` counts a
first message's normalised text per site in Redis (a hash of it, so no text is kept,
with a TTL: the counter is bounded). What the site then does with a signalled first
message from a new account is the operator's rule (`Site.chat_safety_rule`)."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import timedelta

from django.utils import timezone

from apps.chat.models import MessageReview
from apps.common.cache import volatile_count

# A signal's code, stored on the message (Message.signals, comma-separated).
LINK, PHONE, EMAIL, MESSENGER, MONEY, REPEATED = "link", "phone", "email", "messenger", "money", "repeated"
SIGNALS = (LINK, PHONE, EMAIL, MESSENGER, MONEY, REPEATED)

# An account this young whose first message in a conversation carries a signal is held or
# shown with a notice, by the site's rule.
NEW_ACCOUNT_AGE = timedelta(days=7)
# The same first message to this many members (in REPEAT_WINDOW) is a signal.
REPEAT_THRESHOLD = 5
REPEAT_WINDOW = timedelta(hours=24)
# Only this much of a text is normalised and hashed (a message is at most a few thousand).
REPEAT_TEXT_MAX = 2000

_LINK = re.compile(
    r"(?i)\b(?:https?://|www\.)\S+|\b[a-z0-9-]{2,63}\.(?:com|net|org|info|biz|io|me|ly|co|ru|xyz|top|app|link|site|online)\b"
)
_EMAIL = re.compile(r"(?i)\b[a-z0-9._%+-]+\s*(?:@|\(at\)|\[at\])\s*[a-z0-9.-]+\s*(?:\.|\(dot\)|\[dot\])\s*[a-z]{2,}\b")
# Seven or more digits, with the usual separators between them (+31 6 1234 5678, 0612-345678).
_PHONE = re.compile(r"(?<!\w)\+?\d(?:[\s().-]{0,2}\d){6,14}(?!\w)")
_MESSENGER = re.compile(
    r"(?i)\b(?:whats\s?app|telegram|signal\s+me|snap\s?chat|kik|viber|wechat|line\s+id|insta(?:gram)?|skype|"
    r"hangouts?|icq|threema|wickr)\b|(?<![\w@])@[a-z0-9_]{4,32}\b"
)
# Money-transfer and gift-card words, per catalogue language (lower case, accents kept);
# a word matches at word starts, so "giftcard" also finds "giftcards".
MONEY_WORDS = {
    "en": [
        "western union",
        "moneygram",
        "wire transfer",
        "bank transfer",
        "gift card",
        "giftcard",
        "itunes card",
        "steam card",
        "google play card",
        "paypal",
        "bitcoin",
        "crypto",
        "send money",
        "send me money",
        "loan",
        "customs fee",
        "plane ticket",
        "visa fee",
    ],
    "da": ["gavekort", "overfør penge", "send penge", "bankoverførsel", "lån"],
    "de": [
        "gutschein",
        "geschenkkarte",
        "überweisung",
        "geld schicken",
        "schick mir geld",
        "geld senden",
        "paysafecard",
        "darlehen",
    ],
    "es": ["tarjeta regalo", "tarjeta de regalo", "transferencia", "envíame dinero", "enviar dinero", "préstamo"],
    "fi": ["lahjakortti", "tilisiirto", "lähetä rahaa", "laina"],
    "fr": [
        "carte cadeau",
        "carte-cadeau",
        "virement",
        "envoie-moi de l'argent",
        "envoyer de l'argent",
        "mandat cash",
        "prêt",
        "coupon pcs",
        "transcash",
    ],
    "it": [
        "carta regalo",
        "buono regalo",
        "bonifico",
        "mandami soldi",
        "inviare soldi",
        "ricarica postepay",
        "prestito",
    ],
    "nb": ["gavekort", "overfør penger", "send penger", "bankoverføring", "lån"],
    "nl": ["cadeaukaart", "cadeaubon", "overmaken", "geld sturen", "stuur me geld", "tikkie", "lening"],
    "pl": ["karta podarunkowa", "przelew", "wyślij pieniądze", "przyślij pieniądze", "blik", "pożyczka"],
    "sv": ["presentkort", "överföring", "skicka pengar", "swish", "lån"],
}
_MONEY = re.compile(
    r"(?<!\w)(?:"
    + "|".join(sorted({re.escape(word) for words in MONEY_WORDS.values() for word in words}, key=len, reverse=True))
    + r")",
    re.IGNORECASE,
)


def text_signals(text: str) -> list[str]:
    """The signals in a message's text, in SIGNALS order; [] for most messages. An e-mail
    address is not also a link; a link's digits are not also a phone number."""
    if not text:
        return []
    found = []
    emails = _EMAIL.search(text)
    rest = _EMAIL.sub(" ", text) if emails else text
    links = _LINK.search(rest)
    if links:
        found.append(LINK)
        rest = _LINK.sub(" ", rest)
    if _PHONE.search(rest):
        found.append(PHONE)
    if emails:
        found.append(EMAIL)
    if _MESSENGER.search(rest):
        found.append(MESSENGER)
    if _MONEY.search(text):
        found.append(MONEY)
    return found


def normalised(text: str) -> str:
    """The text as the repeat counter compares it: case, accents, spacing and punctuation
    do not make a copy new."""
    text = unicodedata.normalize("NFKD", text[:REPEAT_TEXT_MAX].casefold())
    text = "".join(char for char in text if not unicodedata.combining(char))
    return " ".join(re.sub(r"[^\w]+", " ", text).split())


def repeated_first_message(text: str) -> bool:
    """Count this first message's text on the current site (the cache's keys carry the
    site's schema); True once REPEAT_THRESHOLD first messages with the same text were sent
    within REPEAT_WINDOW. One Redis round trip (two for the first copy), on the evictable
    cache: the keys come from what members write, so its eviction bounds them, and a cache
    that is away only loses this one signal (the message is sent and checked for the
    others), never the message."""
    key = "chat:first:" + hashlib.sha256(normalised(text).encode()).hexdigest()[:32]
    count = volatile_count(key, int(REPEAT_WINDOW.total_seconds()))
    return count is not None and count >= REPEAT_THRESHOLD


def message_review(*, site, sender, first: bool, text: str) -> tuple[str, str]:
    """The signals of a message about to be stored (comma-separated) and what the site's
    rule makes of it: MessageReview.HELD or NOTICE for the first message in a conversation
    from an account younger than NEW_ACCOUNT_AGE that carries a signal, else "". Text
    only; a text without signals that is no first message costs no I/O at all."""
    if not text:
        return "", ""
    found = text_signals(text)
    if first and repeated_first_message(text):
        found.append(REPEATED)
    if not found:
        return "", ""
    review = ""
    joined = getattr(sender, "date_joined", None)
    if first and joined is not None and joined > timezone.now() - NEW_ACCOUNT_AGE:
        rule = getattr(site, "chat_safety_rule", "notice")
        review = {"hold": MessageReview.HELD, "notice": MessageReview.NOTICE}.get(rule, "")
    return ",".join(found), review
