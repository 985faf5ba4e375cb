"""Sending postbacks (queued by name: apps.conversions.postbacks.POSTBACK_SEND_TASK)."""

from celery import shared_task

from apps.conversions import postbacks


@shared_task(name="apps.conversions.tasks.postback_send", ignore_result=True)
def postback_send(postback_id: int) -> None:
    postbacks.postback_send(postback_id)


@shared_task(name="apps.conversions.tasks.postbacks_sweep", ignore_result=True)
def postbacks_sweep() -> int:
    """Every minute: the retries whose time has come, and any send whose task was lost."""
    due = postbacks.postbacks_due()
    for postback_id in due:
        postbacks.postback_send(postback_id)
    return len(due)


@shared_task(name="apps.conversions.tasks.rollups_rebuild", ignore_result=True)
def rollups_rebuild() -> None:
    """Nightly: yesterday's and today's rollups again from the sites' own rows."""
    from apps.conversions.rollups import rollups_rebuild_days
    from apps.conversions.visits import visits_fold

    visits_fold()
    rollups_rebuild_days(days=2)


@shared_task(name="apps.conversions.tasks.visits_fold", ignore_result=True)
def visits_fold() -> int:
    """Every minute: the visits the page cache counted, into the rollups."""
    from apps.conversions import visits

    return visits.visits_fold()
