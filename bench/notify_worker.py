"""One notification worker of the fan-out benchmark, in a process of its own so that its
peak memory is its own: makes a campaign's push notices (one INSERT ... SELECT) and sends
them chunk by chunk with the Celery task's body (apps.notifications.tasks
.notices_send_batch), as one worker process would. Prints one JSON line.

    python -m bench.notify_worker <campaign id>
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time


def main(campaign_id: int) -> dict:
    from bench.common import setup_django

    setup_django(os.environ["DATABASE_URL"])
    from django_tenants.utils import tenant_context

    from apps.notifications import bulk, tasks
    from apps.notifications.models import Channel
    from apps.tenants.models import Campaign, CampaignState
    from config.celery import worker_objects_frozen

    worker_objects_frozen()  # as Celery does when it starts a worker process

    campaign = Campaign.objects.select_related("site").get(pk=campaign_id)
    with tenant_context(campaign.site):
        started = time.perf_counter()
        made = bulk.notices_insert(
            kind=campaign.kind, channel=Channel.PUSH, campaign_id=campaign.pk, language=campaign.language, per_days=3650
        )
        insert_seconds = time.perf_counter() - started
        Campaign.objects.filter(pk=campaign.pk).update(state=CampaignState.SENDING, total=made)
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        profile = os.environ.get("BENCH_NOTIFY_PROFILE")  # a file for cProfile's stats
        if profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        wall, cpu = time.perf_counter(), time.process_time()
        for first_id, last_id in bulk.pending_ranges(campaign_id=campaign.pk):
            tasks.notices_send_batch(first_id, last_id, campaign.pk)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if profile:
            profiler.disable()
            profiler.dump_stats(profile)
    campaign.refresh_from_db()
    return {
        "notices": made,
        "insert_seconds": round(insert_seconds, 3),
        "send_seconds": round(wall, 3),
        "send_cpu_seconds": round(cpu, 3),
        "sent": campaign.sent,
        "failed": campaign.failed,
        "skipped": campaign.skipped,
        "state": campaign.state,
        "maxrss_before_send_kb": rss_before,
        "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]))))
