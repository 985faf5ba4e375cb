"""Operators' campaigns: a "news" or "promotions" notice to every member of a site who
opted in to that type (docs/notifications.md). The admin queues `campaign_start`; the
fan-out makes one outbox row per member and channel in one statement each, in the same
transaction as the state change, then queues chunks of CHUNK rows to the workers."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django_tenants.utils import tenant_context

from apps.notifications import bulk
from apps.notifications.models import Channel, Notice
from apps.notifications.outbox import task_queue
from apps.tenants.models import Campaign, CampaignState


def campaign_queue(campaign: Campaign) -> bool:
    """Queue a draft campaign for sending (from the admin); False when it was not a draft."""
    queued = Campaign.objects.filter(pk=campaign.pk, state=CampaignState.DRAFT).update(state=CampaignState.QUEUED)
    if queued:
        transaction.on_commit(lambda: task_queue("apps.notifications.tasks.campaign_start", campaign.pk))
    return bool(queued)


def campaign_fan_out(campaign_id: int) -> int:
    """Make the notices (once) and queue every due chunk; returns the number of notices."""
    campaign = Campaign.objects.select_related("site").filter(pk=campaign_id).first()
    if campaign is None or campaign.state not in (CampaignState.QUEUED, CampaignState.SENDING):
        return 0
    with tenant_context(campaign.site):
        with transaction.atomic():
            locked = Campaign.objects.select_for_update().get(pk=campaign_id)
            if locked.state == CampaignState.QUEUED:
                total = 0
                channels = [c for c, on in ((Channel.EMAIL, locked.email), (Channel.PUSH, locked.push)) if on]
                for channel in channels:
                    total += bulk.notices_insert(
                        kind=locked.kind,
                        channel=channel,
                        campaign_id=locked.pk,
                        language=locked.language,
                        per_days=3650,
                    )
                Campaign.objects.filter(pk=campaign_id).update(
                    state=CampaignState.SENDING if total else CampaignState.DONE,
                    total=total,
                    started_at=timezone.now(),
                    finished_at=None if total else timezone.now(),
                )
        ranges = bulk.pending_ranges(campaign_id=campaign_id)
        for first_id, last_id in ranges:
            task_queue("apps.notifications.tasks.notices_send_batch", first_id, last_id, campaign_id)
        return Notice.objects.filter(campaign_id=campaign_id).count()
