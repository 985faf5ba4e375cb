"""Notices for many members at once: reminders from beat and operators' campaigns.

Each is one INSERT ... SELECT per channel in the site's schema: members who can get it
(active, confirmed, not blocked, opted in to the type on that channel, with an address
or a device), bounded per member (no second notice of the kind within `per_days`). The
rows are then sent in chunks (`notices_send_batch`), so memory stays flat however
many members a site has."""

from __future__ import annotations

import itertools
import json
import logging
import os
from dataclasses import dataclass
from datetime import timedelta

from django.db import connection
from django.db.models.expressions import RawSQL
from django.utils import timezone, translation

from apps.accounts.models import MAIL_STOPPED_BY, PushSubscription, User
from apps.accounts.time_zone import member_zone
from apps.notifications.content import CAMPAIGN_KINDS, Content, campaign_content
from apps.notifications.models import Channel, Notice, NoticeState
from apps.notifications.sending import (
    FINISH_FIELDS,
    PushJob,
    PushSite,
    notice_deliver,
    notice_refusal,
    push_finish,
    push_prepare,
    push_site,
)
from apps.notifications.webpush import pushes_send

logger = logging.getLogger(__name__)

CHUNK = 500
# Requests of a chunk waiting for their push services' answers at once, while the
# sender's loop encrypts the next push (apps.notifications.webpush); each keeps a
# connection of its own open, so this is also the connections per push service.
PUSH_IN_FLIGHT = int(os.environ.get("NOTICE_PUSH_IN_FLIGHT", "64"))
# What sending reads of a notice: not when it was made or claimed, its merge key or the
# mail provider's report (each datetime costs its parsing, 500 times a chunk).
NOTICE_FIELDS = [
    field.name
    for field in Notice._meta.concrete_fields
    if field.name not in ("created", "claimed_at", "merge_key", "delivery")
]
# What sending reads of a member (anything else is loaded when needed).
MEMBER_FIELDS = [
    f"user__{name}"
    for name in (
        "username",
        "email",
        "status",
        "is_active",
        "language",
        "time_zone",
        "email_notifications",
        "push_notifications",
        "email_disabled_reason",
    )
]

_NOTICE = Notice._meta.db_table
_USER = User._meta.db_table
_SUBSCRIPTION = PushSubscription._meta.db_table


def _channel_condition(channel: str) -> str:
    if channel == Channel.EMAIL:
        return (
            "u.email <> '' AND NOT (u.email_disabled_reason = ANY(%(stopped)s))"
            " AND %(kind)s = ANY(u.email_notifications)"
        )
    # Table names from the models' meta, values as parameters.
    return f"%(kind)s = ANY(u.push_notifications) AND EXISTS (SELECT 1 FROM {_SUBSCRIPTION} s WHERE s.user_id = u.id)"  # noqa: S608


def notices_insert(
    *,
    kind: str,
    channel: str,
    campaign_id: int | None = None,
    language: str = "",
    per_days: int = 1,
    extra_condition: str = "",
    params: dict | None = None,
) -> int:
    """Insert a pending notice of `kind` on `channel` for every member who may get one
    now; returns how many."""
    # Table names from the models' meta, values as parameters.
    sql = f"""
        INSERT INTO {_NOTICE} (user_id, kind, channel, state, merge_key, items, count, campaign_id, due_at,
                               attempts, retry_subscriptions, result, email, delivery, created)
        SELECT u.id, %(kind)s, %(channel)s, 'pending', '', '[]'::jsonb, 1, %(campaign)s, now(), 0, '[]'::jsonb,
               '', '', '', now()
        FROM {_USER} u
        WHERE u.status = 'active' AND u.is_active AND NOT u.is_staff
          AND {_channel_condition(channel)}
          AND (%(language)s = '' OR u.language = %(language)s)
          AND NOT EXISTS (SELECT 1 FROM {_NOTICE} n WHERE n.user_id = u.id AND n.kind = %(kind)s
                          AND n.channel = %(channel)s AND n.created > %(since)s
                          AND (%(campaign)s::bigint IS NULL OR n.campaign_id = %(campaign)s))
          {extra_condition}
    """  # noqa: S608
    since = timezone.now() - timedelta(days=per_days)
    values = {
        "kind": kind,
        "channel": channel,
        "campaign": campaign_id,
        "language": language,
        "since": since,
        "stopped": list(MAIL_STOPPED_BY),
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, {**values, **(params or {})})
        return cursor.rowcount


def pending_ranges(*, kind: str | None = None, campaign_id: int | None = None) -> list[tuple[int, int]]:
    """(first id, last id) of each chunk of CHUNK due pending notices of a kind or a
    campaign, computed in the database (a list of chunks, not of ids, reaches Python)."""
    condition = "campaign_id = %s" if campaign_id else "kind = %s AND campaign_id IS NULL"
    sql = f"""
        SELECT min(id), max(id) FROM (
            SELECT id, (row_number() OVER (ORDER BY id) - 1) / {CHUNK} AS chunk FROM {_NOTICE}
            WHERE state = 'pending' AND due_at <= clock_timestamp() AND {condition}
        ) numbered GROUP BY chunk ORDER BY chunk
    """  # noqa: S608 - constants and the table name from the model's meta
    with connection.cursor() as cursor:
        cursor.execute(sql, [campaign_id or kind])
        return [(first, last) for first, last in cursor.fetchall()]


_CLAIM = f"""
UPDATE {_NOTICE} SET state = %s, claimed_at = %s, merge_key = '', attempts = attempts + 1
WHERE id BETWEEN %s AND %s AND state = %s AND due_at <= %s
RETURNING id
"""  # noqa: S608 (the table name from the model, values as parameters)


def _any_of(ids) -> RawSQL:
    """`ids` for an IN lookup as one array parameter: Django binds an IN list one value
    at a time, 500 per chunk and statement, which was a good part of a notice's CPU
    beside its encryption (bench "notify")."""
    return RawSQL("SELECT unnest(%s::bigint[])", [sorted(ids)])


def notices_send_batch(*, first_id: int, last_id: int, campaign=None) -> dict[str, int]:
    """Claim and send the due pending notices with ids in [first_id, last_id]; returns
    the count per final state. The members and their devices are read in two queries."""
    now = timezone.now()
    with connection.cursor() as cursor:  # one statement claims them (atomic by itself)
        cursor.execute(_CLAIM, [NoticeState.SENDING, now, first_id, last_id, NoticeState.PENDING, now])
        ids = [row[0] for row in cursor.fetchall()]
    counts: dict[str, int] = {}
    if not ids:
        return counts
    notices = _chunk_read(ids, campaign)
    devices: dict[int, list[Device]] = {}
    rows = PushSubscription.objects.filter(
        user_id__in=_any_of({n.user_id for n in notices if n.channel == Channel.PUSH})
    )
    for pk, user_id, endpoint, p256dh, auth in rows.values_list("pk", "user_id", "endpoint", "p256dh", "auth"):
        devices.setdefault(user_id, []).append(Device(pk, endpoint, p256dh, auth))
    finished: list[Notice] = []
    jobs: list[PushJob] = []

    def count(notice: Notice, state: str) -> None:
        finished.append(notice)
        counts[state] = counts.get(state, 0) + 1

    # What every push of the chunk shares, made once: the site's keys and icons.
    shared = _push_site() if any(n.channel == Channel.PUSH for n in notices) else None
    # In the members' languages and time zones, one group at a time (a campaign's text
    # is made once per language and zone, not once per notice).
    for (language, _zone), grouped in itertools.groupby(sorted(notices, key=_group_key), key=_group_key):
        group = list(grouped)
        with translation.override(language), timezone.override(member_zone(group[0].user)):
            content = campaign_content(campaign) if campaign is not None else None
            for notice in group:
                outcome = _prepare(notice, campaign, devices, shared, content)
                if isinstance(outcome, PushJob):
                    jobs.append(outcome)
                elif outcome:
                    count(notice, outcome)
    # The chunk's pushes go to the sender in one hand-over (not one per push: each costs
    # two thread switches); this thread waits, so the sender has the interpreter to itself.
    answers = iter(
        pushes_send([job.request(device) for job in jobs for device in job.subscriptions], in_flight=PUSH_IN_FLIGHT)
    )
    for job in jobs:
        count(job.notice, push_finish(job, [next(answers) for _ in job.subscriptions]))
    _store(finished)
    return counts


def _models_read(ids) -> list[Notice]:
    notices = list(
        Notice.objects.filter(pk__in=_any_of(ids))
        .select_related("user")
        .only(*NOTICE_FIELDS, *MEMBER_FIELDS)
        .order_by("pk")
    )
    for notice in notices:
        notice._bulk = True  # stored with the chunk (_store), not one by one
    return notices


def _column(model, name: str) -> str:
    return (model._meta.pk if name == "pk" else model._meta.get_field(name)).column


# A campaign's push notices and their members as plain rows: what the sending rules
# (sending.notice_refusal, push_prepare, push_finish) read of them, in one statement.
# Building a Notice and a User model per notice (their fields, signals and JSON
# converters) cost about a fifth of a notice's CPU in the fan-out (bench "notify").
_ROW_NOTICE = ("pk", "user_id", "kind", "channel", "campaign_id", "attempts", "due_at", "retry_subscriptions")
_ROW_MEMBER = ("status", "is_active", "language", "time_zone", "email_notifications", "push_notifications")
_ROWS = f"""
SELECT {", ".join(f"n.{_column(Notice, name)}" for name in _ROW_NOTICE)},
       {", ".join(f"u.{_column(User, name)}" for name in _ROW_MEMBER)}
FROM {_NOTICE} n JOIN {_USER} u ON u.{User._meta.pk.column} = n.{_column(Notice, "user")}
WHERE n.{Notice._meta.pk.column} = ANY(%s::bigint[]) AND n.{_column(Notice, "channel")} = %s
ORDER BY n.{Notice._meta.pk.column}
"""  # noqa: S608 (table and column names from the models' meta, values as parameters)


class MemberRow:
    """What the sending rules read of a campaign push's member (sending.notice_refusal,
    the group's language and time zone)."""

    __slots__ = _ROW_MEMBER

    def __init__(self, values) -> None:
        for name, value in zip(_ROW_MEMBER, values, strict=True):
            setattr(self, name, value)


class NoticeRow:
    """A campaign's push notice as the sending rules read and set it (sending._finish,
    _retry), stored with its chunk (_store) like a notice model with `_bulk`."""

    __slots__ = (*_ROW_NOTICE, "user", "state", "result", "sent_at", "email", "mail")
    _bulk = True

    def __init__(self, values, user: MemberRow) -> None:
        for name, value in zip(_ROW_NOTICE, values, strict=True):
            setattr(self, name, value)
        if self.retry_subscriptions != "[]":  # jsonb comes as text (Django's loader)
            self.retry_subscriptions = json.loads(self.retry_subscriptions)
        else:
            self.retry_subscriptions = []
        self.user = user
        self.state, self.result, self.sent_at, self.email, self.mail = NoticeState.SENDING, "", None, "", None


def _chunk_read(ids: list[int], campaign) -> list:
    """The claimed notices of a chunk in id order, each with its member: a campaign's
    pushes as rows (NoticeRow), anything else (a campaign's mails, reminders, whose text
    and mail read the member's models) as models with the fields sending reads."""
    if campaign is None:
        return _models_read(ids)
    split = len(_ROW_NOTICE)
    with connection.cursor() as cursor:
        cursor.execute(_ROWS, [sorted(ids), Channel.PUSH])
        notices: list = [NoticeRow(row[:split], MemberRow(row[split:])) for row in cursor.fetchall()]
    if len(notices) < len(ids):  # a campaign's mails: only a chunk where its two channels meet has both
        pushed = {notice.pk for notice in notices}
        notices = sorted(notices + _models_read([pk for pk in ids if pk not in pushed]), key=lambda notice: notice.pk)
    return notices


@dataclass(frozen=True)
class Device:
    """A push subscription as a batch needs it (no model instance per member)."""

    pk: int
    endpoint: str
    p256dh: str
    auth: str


def _push_site() -> PushSite | None:
    """The site's keys and icons, or None when they cannot be read: then each notice
    tries on its own and goes back to pending on the error, as it did alone."""
    try:
        return push_site()
    except Exception:
        logger.exception("the site's push keys could not be read")
        return None


def _group_key(notice: Notice) -> tuple[str, str]:
    return notice.user.language or "en", notice.user.time_zone or ""


def _prepare(
    notice: Notice, campaign, devices: dict, shared: PushSite | None, content: Content | None
) -> PushJob | str | None:
    """A notice's push to send, its final state, or None after an error (it is pending
    again for the sweep). `content`: the campaign's, in the group's language."""
    try:
        if notice.channel != Channel.PUSH:
            return notice_deliver(notice, campaign=campaign, subscriptions=devices.get(notice.user_id, []))
        state = notice_refusal(notice)
        if state is not None:
            return state
        outcome = push_prepare(
            notice,
            campaign=campaign,
            subscriptions=devices.get(notice.user_id, []),
            shared=shared,
            content=content if notice.kind in CAMPAIGN_KINDS else None,
        )
    except Exception:  # one member must not stop the rest; the sweep retries it
        logger.exception("notice %s failed", notice.pk)
        Notice.objects.filter(pk=notice.pk).update(state=NoticeState.PENDING)
        return None
    return outcome


def _store(notices: list[Notice]) -> None:
    """Save the outcome of a chunk's notices: one UPDATE per distinct outcome (a chunk
    has a few: sent, seen, no device...), with the time of the last send."""
    groups: dict[tuple, list[int]] = {}
    for notice in notices:
        outcome = (
            notice.state,
            notice.result,
            notice.email,
            notice.due_at,
            tuple(notice.retry_subscriptions),
            json.dumps(notice.mail, sort_keys=True) if notice.mail else None,
        )
        groups.setdefault(outcome, []).append(notice.pk)
    now = timezone.now()
    for ids in groups.values():
        first = next(notice for notice in notices if notice.pk == ids[0])
        values = {name: getattr(first, name) for name in FINISH_FIELDS if name != "sent_at"}
        values["sent_at"] = now if first.sent_at else None
        Notice.objects.filter(pk__in=_any_of(ids)).update(**values)
