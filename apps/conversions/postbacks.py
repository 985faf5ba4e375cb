"""Postbacks: telling a partner of a conversion it brought, once per event.

- The URL template of each network's event (PostbackRule.url) is checked when saved:
  https only, macros only from MACROS, none in the scheme or the host, so a member's or
  partner's value can fill a macro but never change where the request goes.
- Each macro's value is percent-encoded as a whole (`quote(value, safe="")`): an `&`, `#`,
  `/` or `?` in a tracking parameter stays inside its own query value.
- `postback_record` writes one row per (network, site, event key) in the event's
  transaction (INSERT ... ON CONFLICT DO NOTHING) and queues its send after commit;
  the same event seen again writes nothing.
- `postback_send` (from Celery) makes one try: the address rule of apps.common.outbound
  (public https only, resolved once, connected to the vetted address, no redirect
  followed), every answer logged as a PostbackAttempt, a 2xx is sent, a 429 or 5xx or no
  answer is tried again with backoff (RETRY_DELAYS) by the sweep, anything else failed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal

import aiohttp
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from django.utils.crypto import salted_hmac

from apps.common.outbound import VettedResolver, refused_by_us, url_refusal
from apps.conversions.macros import TRACKING_MACROS, URL_MAX_LENGTH, render
from apps.conversions.models import MONEY_EVENTS, Network, Postback, PostbackAttempt, PostbackRule, PostbackState

logger = logging.getLogger(__name__)

POSTBACK_SEND_TASK = "apps.conversions.tasks.postback_send"
TIMEOUT = aiohttp.ClientTimeout(total=10, connect=5)
ANSWER_KEPT = 200  # characters of an answer's body logged
ANSWER_READ = 4096
# Seconds before the next try after a try that may succeed later: six tries in ~10 hours.
RETRY_DELAYS = (60, 5 * 60, 30 * 60, 2 * 3600, 8 * 3600)
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1

# The table name from the model's meta, values as parameters.
_INSERT = (
    f"INSERT INTO {Postback._meta.db_table} "  # noqa: S608
    "(network_id, site_id, event, key, member_id, url, amount, payout, currency, state, attempts, next_try, created) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, 0, now(), now()) "
    "ON CONFLICT (network_id, site_id, key) DO NOTHING RETURNING id"
)


def member_hash(*, network_id: int, site_id: int, member_id: int) -> str:
    """The member as one network sees it: the same for its events, unrelated across
    networks and sites, and nothing a partner can turn back into an id or address."""
    return salted_hmac("apps.conversions.member", f"{network_id}:{site_id}:{member_id}").hexdigest()[:32]


def _money(minor: int) -> str:
    return f"{Decimal(minor) / 100:.2f}"


def payout_for(rule: PostbackRule, amount: int) -> int:
    """The partner's payout in minor units: the share of the amount for money events
    with a share, else the fixed payout."""
    if rule.payout_share and rule.event in MONEY_EVENTS:
        return int((Decimal(amount) * rule.payout_share / 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return rule.payout_fixed


def network_for(name: str, site_id: int) -> Network | None:
    """The active network called `name` that works for the site, if any."""
    name = (name or "").strip().lower()
    if not name:
        return None
    network = Network.objects.filter(name=name, active=True).first()
    if network is None:
        return None
    sites = list(network.sites.values_list("pk", flat=True))
    return network if not sites or site_id in sites else None


def postback_record(
    *, site, tracking: dict, member_id: int, event: str, key: str, amount: int = 0, currency: str = ""
) -> Postback | None:
    """Record the postback of an event for the member's network (if it has a rule for
    it) and queue its send after commit. Once per key: None when already recorded."""
    network = network_for(tracking.get("network", ""), site.pk)
    if network is None:
        return None
    rule = network.rules.filter(event=event).first()
    if rule is None:
        return None
    payout = payout_for(rule, amount)
    money_currency = currency if rule.payout_share and event in MONEY_EVENTS else network.currency
    values = {name: tracking.get(name, "") for name in TRACKING_MACROS}
    values.update(
        event=event,
        amount=_money(amount) if event in MONEY_EVENTS else "",
        currency=currency or network.currency,
        payout=_money(payout),
        site=site.schema_name,
        lander=tracking.get("lander", ""),
        campaign=tracking.get("campaign", ""),
        member=member_hash(network_id=network.pk, site_id=site.pk, member_id=member_id),
    )
    url = render(rule.url, values)[:URL_MAX_LENGTH]
    with connection.cursor() as cursor:
        cursor.execute(
            _INSERT,
            [network.pk, site.pk, event, key[:100], member_id, url, amount, payout, money_currency, "pending"],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    postback = Postback.objects.get(pk=row[0])
    send_after_commit(postback.pk)
    return postback


def send_after_commit(postback_id: int) -> None:
    """Queue the send once committed; a broker that is away loses nothing (the sweep
    sends what is due)."""
    from apps.notifications.outbox import task_queue

    def queue() -> None:
        try:
            task_queue(POSTBACK_SEND_TASK, postback_id)
        except Exception:  # Redis away: postbacks_sweep sends it
            logger.warning("postback %s not queued; the sweep will send it", postback_id, exc_info=True)

    transaction.on_commit(queue)


def postback_resend(postback: Postback) -> None:
    """An operator's resend: one more try now, whatever the state."""
    Postback.objects.filter(pk=postback.pk).update(state=PostbackState.PENDING, next_try=timezone.now())
    send_after_commit(postback.pk)


async def _get(url: str, checked: bool) -> tuple[int, str]:
    connector = aiohttp.TCPConnector(resolver=VettedResolver(checked=checked), use_dns_cache=False, force_close=True)
    async with (
        aiohttp.ClientSession(
            connector=connector, trust_env=False, cookie_jar=aiohttp.DummyCookieJar(), timeout=TIMEOUT
        ) as session,
        session.get(url, allow_redirects=False, headers={"User-Agent": "postback"}) as response,
    ):
        body = await response.content.read(ANSWER_READ)
        return response.status, body.decode("utf-8", "replace")


def _try(url: str) -> tuple[int, str, bool]:
    """(status, answer or error, refused by the address rule)."""
    checked = settings.POSTBACK_URL_CHECK
    reason = url_refusal(url, checked=checked, max_length=URL_MAX_LENGTH)
    if reason:
        return 0, reason, True
    try:
        status, body = asyncio.run(_get(url, checked))
    except Exception as error:  # noqa: BLE001 - no answer: refused by us, or anything on the way
        refused = refused_by_us(error)
        if refused is not None:
            return 0, str(refused), True
        return 0, f"{type(error).__name__}: {error}", False
    return status, body, False


def postback_send(postback_id: int) -> Postback | None:
    """One try of a waiting postback (claimed under its row lock, so two workers never
    both send it)."""
    with transaction.atomic():
        postback = Postback.objects.select_for_update(skip_locked=True).filter(pk=postback_id).first()
        if postback is None or postback.state != PostbackState.PENDING:
            return postback
        started = time.monotonic()
        status, answer, refused = _try(postback.url)
        PostbackAttempt.objects.create(
            postback=postback,
            status=status,
            milliseconds=int((time.monotonic() - started) * 1000),
            answer=answer.strip()[:ANSWER_KEPT],
        )
        postback.attempts += 1
        now = timezone.now()
        if refused:
            postback.state, postback.next_try = PostbackState.REFUSED, None
        elif 200 <= status < 300:
            postback.state, postback.next_try, postback.sent_at = PostbackState.SENT, None, now
        elif (status == 0 or status == 429 or status >= 500) and postback.attempts < MAX_ATTEMPTS:
            delay = RETRY_DELAYS[min(postback.attempts, len(RETRY_DELAYS)) - 1]
            postback.next_try = now + timedelta(seconds=delay)
        else:  # a redirect (never followed), another 4xx, or the last try
            postback.state, postback.next_try = PostbackState.FAILED, None
        postback.save(update_fields=["state", "next_try", "sent_at", "attempts"])
    if postback.state == PostbackState.REFUSED:
        logger.warning("postback %s refused: %s", postback.pk, answer)
    return postback


def postbacks_due(*, now=None, limit: int = 500) -> list[int]:
    """The waiting postbacks whose time has come (the sweep sends them)."""
    now = now or timezone.now()
    return list(
        Postback.objects.filter(state=PostbackState.PENDING, next_try__lte=now)
        .order_by("next_try")
        .values_list("pk", flat=True)[:limit]
    )
