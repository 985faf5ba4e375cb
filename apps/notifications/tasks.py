"""Celery tasks of the notifications. Tasks queued from a site run in its schema
(tenant-schemas-celery); the beat tasks run in the public schema and visit the sites.
All are idempotent: a notice is claimed before it is sent, so a task that runs twice
or a sweep that overlaps a task sends nothing twice."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.db import connection
from django.db.models import F
from django.utils import timezone
from django_tenants.utils import get_public_schema_name, tenant_context

from apps.notifications import bulk, sending
from apps.notifications.campaigns import campaign_fan_out
from apps.notifications.models import Notice, NoticeState
from apps.notifications.reminders import reminders_queue
from apps.tenants.models import Campaign, CampaignState, Site

logger = logging.getLogger(__name__)

# A pending notice this late was not sent by its own task (a lost task, a broker that
# was away): the sweep sends it.
SWEEP_GRACE_SECONDS = 30
SWEEP_LIMIT = 2000


def _count_campaign(campaign_id: int | None, states: dict[str, int]) -> None:
    if not campaign_id or not states:
        return
    changes = {
        name: F(name) + states.get(state, 0)
        for name, state in (
            ("sent", NoticeState.SENT),
            ("failed", NoticeState.FAILED),
            ("skipped", NoticeState.SKIPPED),
        )
        if states.get(state)
    }
    if changes:
        Campaign.objects.filter(pk=campaign_id).update(**changes)
    left = Notice.objects.filter(campaign_id=campaign_id, state__in=(NoticeState.PENDING, NoticeState.SENDING))
    if not left.exists():
        Campaign.objects.filter(pk=campaign_id, state=CampaignState.SENDING).update(
            state=CampaignState.DONE, finished_at=timezone.now()
        )


@shared_task(acks_late=True)
def notice_send(notice_id: int) -> str | None:
    notice = sending.notice_claim(notice_id)
    if notice is None:  # not pending and due: sent, settled, or another task has it
        return None
    state = sending.claimed_send(notice)
    if state != NoticeState.PENDING:
        _count_campaign(notice.campaign_id, {state: 1})
    return state


@shared_task(acks_late=True)
def notices_send_batch(first_id: int, last_id: int, campaign_id: int | None = None) -> dict:
    campaign = None
    if campaign_id:
        campaign = Campaign.objects.filter(pk=campaign_id).first()
    states = bulk.notices_send_batch(first_id=first_id, last_id=last_id, campaign=campaign)
    _count_campaign(campaign_id, states)
    return states


def _sites():
    return Site.objects.exclude(schema_name=get_public_schema_name()).filter(is_active=True).order_by("pk")


def _schemas_with_work() -> set[str]:
    """The schemas that have a late pending notice or a stale "sending" one: one query
    over all sites (each part an index probe), in slices of 200 schemas."""
    schemas = list(Site.objects.exclude(schema_name=get_public_schema_name()).values_list("schema_name", flat=True))
    table = Notice._meta.db_table
    late = f"state = 'pending' AND due_at < clock_timestamp() - interval '{SWEEP_GRACE_SECONDS} seconds'"
    stale = f"state = 'sending' AND claimed_at < clock_timestamp() - interval '{sending.SENDING_STALE_SECONDS} seconds'"
    found: set[str] = set()
    for start in range(0, len(schemas), 200):
        part = schemas[start : start + 200]
        sql = " UNION ALL ".join(
            f"SELECT %s WHERE EXISTS (SELECT 1 FROM {connection.ops.quote_name(schema)}.{table} "  # noqa: S608
            f"WHERE ({late}) OR ({stale}))"
            for schema in part
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, part)
            found.update(row[0] for row in cursor.fetchall())
    return found


def notices_sweep_here() -> int:
    """In the current site's schema: give stale "sending" notices back and send every
    late pending one. Returns how many were sent or settled."""
    stale = timezone.now() - timedelta(seconds=sending.SENDING_STALE_SECONDS)
    Notice.objects.filter(state=NoticeState.SENDING, claimed_at__lt=stale).update(state=NoticeState.PENDING)
    late = timezone.now() - timedelta(seconds=SWEEP_GRACE_SECONDS)
    ids = list(
        Notice.objects.filter(state=NoticeState.PENDING, due_at__lt=late)
        .order_by("due_at")
        .values_list("pk", flat=True)[:SWEEP_LIMIT]
    )
    done = 0
    for notice_id in ids:
        if notice_send(notice_id):
            done += 1
    return done


@shared_task
def notices_sweep() -> int:
    """Beat, every minute: the safety net under the send tasks (docs/notifications.md)."""
    done = 0
    schemas = _schemas_with_work()
    for site in _sites().filter(schema_name__in=schemas):
        with tenant_context(site):
            try:
                done += notices_sweep_here()
            except Exception:  # one site must not stop the others
                logger.exception("notice sweep of %s failed", site.schema_name)
    return done


# --- Campaigns ----------------------------------------------------------------------


@shared_task(acks_late=True)
def campaign_start(campaign_id: int) -> int:
    """Public schema: make the campaign's notices in its site's schema and queue them
    in chunks. Safe to run twice (the notices are made once, with the state change)."""
    return campaign_fan_out(campaign_id)


# --- Reminders and weekly updates (beat) -----------------------------------------------


@shared_task
def reminders_daily() -> int:
    """Beat, daily: unread-message reminders and come-back reminders on every site."""
    made = 0
    for site in _sites():
        with tenant_context(site):
            try:
                made += reminders_queue(kinds=("unread_message_reminders", "reminders"))
            except Exception:
                logger.exception("reminders of %s failed", site.schema_name)
    return made


@shared_task
def weekly_updates() -> int:
    """Beat, weekly: the weekly update on every site."""
    made = 0
    for site in _sites():
        with tenant_context(site):
            try:
                made += reminders_queue(kinds=("weekly_updates",))
            except Exception:
                logger.exception("weekly updates of %s failed", site.schema_name)
    return made
