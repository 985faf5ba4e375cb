"""Reminders from beat (spec §3 types unread_message_reminders, reminders,
weekly_updates), bounded per member: an unread-message reminder at most once a day, a
come-back reminder and a weekly update at most once a week. Only to members who can
get them (bulk.notices_insert) and, for each, only when there is something to say."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from apps.chat.models import Participant
from apps.notifications import bulk
from apps.notifications.models import Channel
from apps.notifications.outbox import task_queue

_PARTICIPANT = Participant._meta.db_table

# Kind: (days between two notices of it, extra condition on the member `u`).
RULES = {
    # Messages unread for half a day or more.
    "unread_message_reminders": (
        1,
        f"AND EXISTS (SELECT 1 FROM {_PARTICIPANT} p WHERE p.user_id = u.id AND p.listed AND p.num_unread > 0"  # noqa: S608
        " AND p.last_message_at < %(unread_before)s)",
    ),
    # Members away for a week (but not for more than two months: no mail to the long gone).
    "reminders": (7, "AND u.last_login < %(away_since)s AND u.last_login > %(gone_since)s"),
    "weekly_updates": (7, ""),
}


def reminders_queue(*, kinds: tuple[str, ...]) -> int:
    """In the current site's schema: make the reminders of `kinds` that are due and queue
    them in chunks. Returns how many were made."""
    now = timezone.now()
    params = {
        "unread_before": now - timedelta(hours=12),
        "away_since": now - timedelta(days=7),
        "gone_since": now - timedelta(days=60),
    }
    made = 0
    for kind in kinds:
        per_days, condition = RULES[kind]
        for channel in (Channel.EMAIL, Channel.PUSH):
            made += bulk.notices_insert(
                kind=kind, channel=channel, per_days=per_days, extra_condition=condition, params=params
            )
        for first_id, last_id in bulk.pending_ranges(kind=kind):
            task_queue("apps.notifications.tasks.notices_send_batch", first_id, last_id)
    return made
