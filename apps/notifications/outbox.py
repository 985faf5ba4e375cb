"""The outbox (apps.notifications.models.Notice): what a member will hear about, decided
in the transaction of the event. The bottom of the notifications: the apps that announce
(chat, likes, accounts' mails) write here, and nothing here imports the layer that
delivers (tasks, sending, content, mailing, push), which reads every app.

- `notice_event`: a message, a new conversation, a like or a match. One statement per
  event inserts a pending notice per channel the member wants, or merges the event into
  the pending one (INSERT ... ON CONFLICT on the partial unique index), so a burst of
  messages becomes one notice. The send task is queued after commit, only for a new row.
- `account_mail_queue`: a rendered account mail (activation, reset, address change,
  reactivation) as an outbox row, sent at once after commit; a staff mail (no member's
  site) goes straight to its task after commit.
- `task_queue`: a Celery task queued by its name, as Zulip's `queue_json_publish` does:
  the delivery layer's tasks are known here by name only (each app's `ready()` imports its
  tasks module, so every process can run them eagerly or route them by name).

Nothing here sends: apps.notifications.sending does, from Celery."""

from __future__ import annotations

import json
import logging
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from apps.accounts.models import MAIL_STOPPED_BY, PushSubscription
from apps.common.prepared import server_cursor
from apps.common.realtime import later
from apps.notifications.models import ACCOUNT_MAIL, Channel, Notice

logger = logging.getLogger(__name__)

# The delivery layer's tasks this module queues (apps.notifications.tasks,
# apps.accounts.tasks); settings CELERY_TASK_ROUTES routes them by these names.
NOTICE_SEND_TASK = "apps.notifications.tasks.notice_send"
MAIL_SEND_TASK = "apps.accounts.tasks.mail_send"

# Kinds that merge while pending, and the key they merge under.
MERGE_KEYS = {
    "new_messages": "messages",
    "new_conversations": "conversations",
    "like": "likes",
    "photo_decisions": "photos",
}
# Items kept on a merged notice (the newest); `count` counts every event.
NOTICE_ITEMS_KEPT = 5


def notice_delay(channel: str) -> int:
    """Seconds an event waits before it becomes a notice on `channel` (settings
    NOTICE_DELAY_PUSH, NOTICE_DELAY_EMAIL): long enough for a member who is on the site
    to read it first, short enough to matter."""
    return settings.NOTICE_DELAY_PUSH if channel == Channel.PUSH else settings.NOTICE_DELAY_EMAIL


def _chosen_channels(user, kind: str) -> list[str]:
    """The channels on which `user` wants notices of `kind`, by their choices alone."""
    channels = []
    if kind in (user.email_notifications or []) and user.email and user.email_disabled_reason not in MAIL_STOPPED_BY:
        channels.append(Channel.EMAIL)
    if kind in (user.push_notifications or []):
        channels.append(Channel.PUSH)
    return channels


def wanted_channels(user, kind: str) -> list[str]:
    """The channels on which `user` wants notices of `kind` now (checked again when
    sending). No e-mail after a bounce or a spam complaint, none without an address; no
    push without a device."""
    channels = _chosen_channels(user, kind)
    if Channel.PUSH in channels and not PushSubscription.objects.filter(user_id=user.pk).exists():
        channels.remove(Channel.PUSH)
    return channels


_TABLE = Notice._meta.db_table
# The table names from the models' meta, values as parameters. A push notice is written
# only for a member with a device: that check is part of the statement (it was a query
# of its own before it, in every message's transaction).
_UPSERT = f"""
INSERT INTO {_TABLE} (user_id, kind, channel, state, merge_key, items, count, due_at, attempts,
                      retry_subscriptions, result, email, delivery, created)
SELECT v.user_id, v.kind, v.channel, 'pending', v.merge_key, v.items, 1, v.due_at, 0, '[]'::jsonb, '', '', '',
       v.created
FROM (VALUES {{values}}) AS v (user_id, kind, channel, merge_key, items, due_at, created)
WHERE v.channel <> %s
   OR EXISTS (SELECT 1 FROM {PushSubscription._meta.db_table} AS device WHERE device.user_id = v.user_id)
ON CONFLICT (user_id, channel, merge_key) WHERE (state = 'pending' AND NOT (merge_key = ''))
DO UPDATE SET
    items = (CASE WHEN jsonb_array_length({_TABLE}.items) >= %s THEN {_TABLE}.items - 0
             ELSE {_TABLE}.items END) || EXCLUDED.items,
    count = {_TABLE}.count + 1
RETURNING id, channel, (xmax = 0) AS inserted
"""  # noqa: S608
_ROW = "(%s::bigint, %s::text, %s::text, %s::text, %s::jsonb, %s::timestamptz, %s::timestamptz)"


def notice_event(*, user, kind: str, item: dict) -> list[int]:
    """Record that `kind` happened to `user` (a member object with its preferences
    loaded). Call inside the event's transaction. Returns the ids of new notices."""
    if user is None or not user.pk:
        return []
    channels = _chosen_channels(user, kind)
    if not channels:
        return []
    now = timezone.now()
    merge_key = MERGE_KEYS.get(kind, "")
    params: list = []
    for channel in channels:
        params += [
            user.pk,
            kind,
            channel,
            merge_key,
            json.dumps([item]),
            now + timedelta(seconds=notice_delay(channel)),
            now,
        ]
    sql = _UPSERT.format(values=", ".join([_ROW] * len(channels)))
    with server_cursor() as cursor:  # prepared on the connection (one per number of channels)
        cursor.execute(sql, [*params, Channel.PUSH, NOTICE_ITEMS_KEPT])
        rows = cursor.fetchall()
    new = [(notice_id, channel) for notice_id, channel, inserted in rows if inserted]
    for notice_id, channel in new:
        send_after_commit(notice_id, countdown=notice_delay(channel))
    return [notice_id for notice_id, _channel in new]


def task_queue(name: str, *args, countdown: float = 0, **kwargs) -> None:
    """Queue the Celery task called `name` now (call it after commit). A task registered
    in this process goes through its own `apply_async` (eager under the test settings),
    any other is sent by name; both carry the site's schema (tenant-schemas-celery) and
    take the route of their name. Raises what the broker raises."""
    options = {"countdown": countdown} if countdown > 0 else {}  # an ETA of "now" would still wait for the timer
    current_app.signature(name, args=args, kwargs=kwargs).apply_async(**options)


def send_after_commit(notice_id: int, *, countdown: float = 0) -> None:
    """Queue the send task once the row is committed, and after the answer where the
    view collects (apps.common.realtime.later: a chat message's answer does not wait for
    the broker). A broker that is away, or a process that ends before the answer is
    sent, loses nothing: the row waits in PostgreSQL for the sweep (tasks.notices_sweep)."""

    # The schema the notice was written in: a decision taken from the operators' host
    # (apps.moderation, inside tenant_context) commits after leaving the site's schema,
    # and the task must carry the site's.
    tenant = getattr(connection, "tenant", None)

    def queue() -> None:
        try:
            if tenant is not None and getattr(connection, "tenant", None) != tenant:
                from django_tenants.utils import tenant_context

                with tenant_context(tenant):
                    task_queue(NOTICE_SEND_TASK, notice_id, countdown=countdown)
            else:
                task_queue(NOTICE_SEND_TASK, notice_id, countdown=countdown)
        except Exception:  # Redis away: the sweep sends it
            logger.warning("notice %s not queued; the sweep will send it", notice_id, exc_info=True)

    transaction.on_commit(lambda: later(queue))


def account_mail_queue(*, user, email: str, subject: str, text: str, html: str, sender: str) -> Notice | None:
    """An account mail as an outbox row of `user`, sent at once after commit (and by the
    sweep if the broker is away at that moment). Without a member (a staff mail in the
    public schema, an address no member has yet) there is no site's outbox to hold it:
    its task is queued after commit, and None returned."""
    if user is None:
        transaction.on_commit(
            lambda: task_queue(MAIL_SEND_TASK, subject=subject, text=text, html=html, to=[email], sender=sender)
        )
        return None
    notice = Notice.objects.create(
        user=user,
        kind=ACCOUNT_MAIL,
        channel=Channel.EMAIL,
        mail={"subject": subject, "text": text, "html": html, "to": email, "sender": sender},
        email=email,
        due_at=timezone.now(),
    )
    send_after_commit(notice.pk)
    return notice
