"""Sending notices from the outbox (called by apps.notifications.tasks).

A notice is claimed first (pending -> sending, in a statement of its own that commits):
a second task for the same notice finds nothing to do, and new events start a new
pending notice instead of waiting for this one. Then it is sent and its result stored.
A worker that dies between claiming and storing leaves the row in "sending"; the sweep
gives it back after SENDING_STALE_SECONDS, so nothing is lost. Such a notice may then
go out twice, but a push with the same topic replaces the first on the device and a
mail carries the same Message-ID.

Before sending, everything is checked again: the member (not deleted, not blocked, e-mail
confirmed), the preferences, a bounce or complaint, and whether the member has seen it
meanwhile (content.notice_content)."""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone, translation

from apps.accounts.models import MAIL_STOPPED_BY, PushSubscription, UserStatus
from apps.accounts.time_zone import member_zone
from apps.notifications.content import Content, notice_content
from apps.notifications.mailing import account_mail, notice_mail, site_url
from apps.notifications.models import ACCOUNT_MAIL, Channel, Notice, NoticeState
from apps.notifications.outbox import send_after_commit
from apps.notifications.webpush import DELIVERED, GONE, RETRY, payload_bytes, pushes_send
from apps.tenants.current import current_site

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 8
SENDING_STALE_SECONDS = 10 * 60
# Pushes about people wait for nobody; the rest may wait for a better moment.
URGENCY = {"new_messages": "high", "new_conversations": "high", "like": "normal"}


def backoff_seconds(attempt: int, retry_after: int = 0) -> int:
    """Exponential backoff with jitter (30 s, 1 min, 2 min ... up to 1 h), never
    sooner than the push service's Retry-After."""
    base = min(30 * 2 ** max(attempt - 1, 0), 3600)
    return max(retry_after, int(base * random.uniform(0.8, 1.2)))  # noqa: S311 - jitter


def notice_claim(notice_id: int) -> Notice | None:
    """The notice, now "sending", when it is pending and due; None otherwise."""
    now = timezone.now()
    with transaction.atomic():
        claimed = Notice.objects.filter(pk=notice_id, state=NoticeState.PENDING, due_at__lte=now).update(
            state=NoticeState.SENDING, claimed_at=now, attempts=F("attempts") + 1, merge_key=""
        )
    if not claimed:
        return None
    return Notice.objects.select_related("user").get(pk=notice_id)


# Fields a send may change (bulk sends store a chunk's notices in one statement).
FINISH_FIELDS = ["state", "result", "sent_at", "mail", "due_at", "retry_subscriptions", "email"]


def _finish(notice: Notice, state: str, result: str = "", *, email: str | None = None) -> str:
    """Set the outcome; saved at once unless the caller stores a whole chunk
    (`notice._bulk`, apps.notifications.bulk)."""
    notice.state = state
    notice.result = result[:200]
    if state == NoticeState.SENT:
        notice.sent_at = timezone.now()
    if email is not None:
        notice.email = email
    if state != NoticeState.PENDING and notice.mail:
        notice.mail = None  # it may hold a one-time link
    if not getattr(notice, "_bulk", False):
        notice.save(update_fields=FINISH_FIELDS)
    return state


def _retry(notice: Notice, result: str, *, retry_after: int = 0, subscriptions: list[int] | None = None) -> str:
    if notice.attempts >= MAX_ATTEMPTS:
        return _finish(notice, NoticeState.FAILED, f"{result}; gave up after {notice.attempts} attempts")
    delay = backoff_seconds(notice.attempts, retry_after)
    notice.due_at = timezone.now() + timedelta(seconds=delay)
    notice.retry_subscriptions = subscriptions or []
    state = _finish(notice, NoticeState.PENDING, result)
    send_after_commit(notice.pk, countdown=delay)
    return state


def _member_unavailable(notice: Notice) -> str:
    user = notice.user
    if user.status == UserStatus.DELETED and notice.kind != ACCOUNT_MAIL:
        return "member deleted"
    if not user.is_active:
        return "member blocked"
    if notice.kind != ACCOUNT_MAIL and user.status == UserStatus.NOT_CONFIRMED:
        return "e-mail address not confirmed"
    return ""


def notice_refusal(notice: Notice) -> str | None:
    """The final state of a notice its member cannot or will not get now (skipped),
    or None."""
    reason = _member_unavailable(notice)
    if reason:
        return _finish(notice, NoticeState.SKIPPED, reason)
    user = notice.user
    if notice.kind != ACCOUNT_MAIL:
        wanted = user.email_notifications if notice.channel == Channel.EMAIL else user.push_notifications
        if notice.kind not in (wanted or []):
            return _finish(notice, NoticeState.SKIPPED, "opted out")
    return None


def notice_deliver(notice: Notice, *, campaign=None, subscriptions: list | None = None) -> str:
    """Send a claimed notice; returns its new state."""
    refused = notice_refusal(notice)
    if refused:
        return refused
    user = notice.user
    with translation.override(user.language or "en"), timezone.override(member_zone(user)):
        if notice.channel == Channel.EMAIL:
            return _deliver_email(notice, campaign=campaign)
        return _deliver_push(notice, campaign=campaign, subscriptions=subscriptions)


def _deliver_email(notice: Notice, *, campaign=None) -> str:
    user, site = notice.user, current_site()
    if notice.kind == ACCOUNT_MAIL:
        message = account_mail(site=site, notice=notice)
    else:
        if not user.email:
            return _finish(notice, NoticeState.SKIPPED, "no e-mail address")
        if user.email_disabled_reason in MAIL_STOPPED_BY:
            return _finish(notice, NoticeState.SKIPPED, f"e-mail stopped: {user.email_disabled_reason}")
        content = notice_content(notice, campaign=campaign)
        if content is None:
            return _finish(notice, NoticeState.SKIPPED, "seen")
        message = notice_mail(site=site, notice=notice, content=content)
    try:
        message.send()
    except OSError as error:  # SMTP and connection errors: try again later
        return _retry(notice, f"mail server: {error}")
    return _finish(notice, NoticeState.SENT, email=message.to[0])


def push_icons(site) -> tuple[str, str]:
    """The (icon, badge icon) addresses of the site's pushes."""
    from apps.pages.pwa import icon_url

    return icon_url(site, "icon-192"), icon_url(site, "badge-96")


def push_payload(
    site, notice: Notice, content: Content, *, badge: int | None, icons: tuple[str, str] | None = None
) -> dict:
    """The JSON the service worker gets (static_src/sw/handlers.ts). `icons`: the site's
    push_icons, when the caller made them once for many notices."""
    icon, badge_icon = icons or push_icons(site)
    payload = {
        "id": str(notice.pk),
        "kind": notice.kind,
        "title": content.title,
        "body": content.preview or content.body,
        "url": content.url,
        "checkUrl": content.url,
        "tag": content.tag,
        "icon": icon,
        "badgeIcon": badge_icon,
    }
    if badge is not None:
        payload["badge"] = badge
    return payload


def _badge(notice: Notice) -> int | None:
    if notice.campaign_id:
        return None  # one query less per member of a campaign; the badge stays as it is
    from apps.accounts.selectors import member_totals

    totals = member_totals(notice.user)
    return int(totals.get("unreadMessages", 0)) + int(totals.get("newLikes", 0))


def push_keys(site) -> tuple[str, str]:
    """(private key, subject) the site's pushes are signed with (tenants.selectors.push_key_pair)."""
    from apps.tenants.selectors import push_key_pair

    private = push_key_pair(site)[1]
    address = (site.support_email if site is not None else "") or settings.DEFAULT_FROM_EMAIL.rpartition("<")[2].strip(
        ">"
    )
    subject = f"mailto:{address}" if "@" in address else site_url(site, "/")
    return private, subject


@dataclass(frozen=True)
class PushSite:
    """What every push of a site shares: its keys and icons (made once per chunk by a
    fan-out, apps.notifications.bulk, instead of once per notice)."""

    site: object
    private_key: str
    subject: str
    icons: tuple[str, str]


def push_site(site=None) -> PushSite:
    """The current site's PushSite (reads the database: call it where the site's schema
    is set)."""
    site = site or current_site()
    private_key, subject = push_keys(site)
    return PushSite(site, private_key, subject, push_icons(site))


@dataclass
class PushJob:
    """A push notice ready to go: the same encrypted-per-device payload to each device."""

    notice: Notice
    subscriptions: list
    payload: dict
    private_key: str
    subject: str
    topic: str

    def __post_init__(self) -> None:
        self.data = payload_bytes(self.payload)  # the same JSON for each device

    def request(self, subscription) -> dict:
        return {
            "endpoint": subscription.endpoint,
            "p256dh": subscription.p256dh,
            "auth": subscription.auth,
            "payload": self.data,
            "private_key": self.private_key,
            "subject": self.subject,
            "ttl": settings.PUSH_TTL,
            "urgency": URGENCY.get(self.notice.kind, "low"),
            "topic": self.topic,
        }


def push_prepare(
    notice: Notice, *, campaign=None, subscriptions=None, shared: PushSite | None = None, content: Content | None = None
) -> PushJob | str:
    """The push to send for a claimed notice, or its final state when there is none
    (reads the database: call it where the site's schema is set). A fan-out passes what
    its chunk shares: the site's keys and icons (`shared`) and, for a campaign, the
    content in the active language (`content`: a campaign says the same to everyone)."""
    shared = shared or push_site()
    if not shared.private_key:
        return _finish(notice, NoticeState.SKIPPED, "no push keys")
    if subscriptions is None:
        subscriptions = list(PushSubscription.objects.filter(user_id=notice.user_id))
    if notice.retry_subscriptions:
        retry = set(notice.retry_subscriptions)
        subscriptions = [item for item in subscriptions if item.pk in retry]
    if not subscriptions:
        return _finish(notice, NoticeState.SKIPPED, "no device")
    if content is None:
        content = notice_content(notice, campaign=campaign)
    if content is None:
        return _finish(notice, NoticeState.SKIPPED, "seen")
    payload = push_payload(shared.site, notice, content, badge=_badge(notice), icons=shared.icons)
    return PushJob(notice, subscriptions, payload, shared.private_key, shared.subject, content.tag)


def push_finish(job: PushJob, answers: list) -> str:
    """Record what the push services answered for each of the job's devices."""
    delivered, gone, refused, retry, retry_after = 0, [], 0, [], 0
    for subscription, answer in zip(job.subscriptions, answers, strict=True):
        if answer.outcome == DELIVERED:
            delivered += 1
        elif answer.outcome == GONE:
            gone.append(subscription.pk)
        elif answer.outcome == RETRY:
            retry.append(subscription.pk)
            retry_after = max(retry_after, answer.retry_after)
        else:
            refused += 1
    if gone:
        PushSubscription.objects.filter(pk__in=gone).delete()
    notice = job.notice
    result = f"devices: {delivered} delivered, {len(gone)} gone, {refused} refused, {len(retry)} to retry"
    if retry:
        return _retry(notice, result, retry_after=retry_after, subscriptions=retry)
    if delivered:
        return _finish(notice, NoticeState.SENT, result)
    return _finish(notice, NoticeState.FAILED if refused else NoticeState.SKIPPED, result)


def _deliver_push(notice: Notice, *, campaign=None, subscriptions=None) -> str:
    job = push_prepare(notice, campaign=campaign, subscriptions=subscriptions)
    if isinstance(job, str):
        return job
    # Every device of the member in one hand-over to the sender.
    return push_finish(job, pushes_send([job.request(subscription) for subscription in job.subscriptions]))


def notice_send(notice_id: int) -> str | None:
    """Claim and send one notice; None when it was not pending and due."""
    notice = notice_claim(notice_id)
    return None if notice is None else claimed_send(notice)


def claimed_send(notice: Notice) -> str:
    """Send a notice notice_claim() returned; its new state."""
    campaign = None
    if notice.campaign_id:
        from apps.tenants.models import Campaign

        campaign = Campaign.objects.filter(pk=notice.campaign_id).first()
    try:
        return notice_deliver(notice, campaign=campaign)
    except Exception:
        logger.exception("notice %s failed", notice.pk)
        _retry(notice, "error while sending")
        raise
