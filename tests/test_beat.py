"""Celery beat's tasks run in the schema of each site (issue 13): beat sends its entries
from the public schema with no site of their own; each task must visit every site and do
that site's work in that site's schema, none in another's."""

from datetime import timedelta

import pytest
from celery.beat import Scheduler
from django.conf import settings
from django.db import connection
from django.utils import timezone

from apps.accounts.models import User, UserStatus
from apps.chat.tests.helpers import member
from apps.payments.models import Payment
from apps.payments.tests.helpers_core import buyer
from apps.payments.tests.test_webhooks import paid_at_the_sandbox
from config.celery import app as celery_app
from conftest import on_site

pytestmark = pytest.mark.django_db


def test_every_beat_task_does_each_sites_work_in_that_sites_schema(site, gay_site):
    long_ago = timezone.now() - timedelta(days=settings.REACTIVATION_DAYS + 1)
    work = {}
    for each in (site, gay_site):
        gone = member(each, f"Gone{each.pk}").user
        with on_site(each):
            User.objects.filter(pk=gone.pk).update(status=UserStatus.DELETED, deleted_at=long_ago)
            payer = buyer(each)
            payment = paid_at_the_sandbox(each, payer)
            Payment.objects.filter(pk=payment.pk).update(created=timezone.now() - timedelta(hours=1))
        work[each.pk] = (gone.pk, payment.pk, payer.pk)

    connection.set_schema_to_public()  # where beat sends from
    celery_app.loader.import_default_modules()  # the tasks are known, as in a worker
    scheduler = Scheduler(app=celery_app)
    entries = {entry.task for entry in scheduler.schedule.values()}
    assert {"apps.accounts.tasks.members_erase_expired", "apps.payments.tasks.payments_reconcile"} <= entries
    for entry in scheduler.schedule.values():
        assert entry.task in celery_app.tasks, entry.task  # else beat would send it by name only
        scheduler.apply_async(entry)  # eager in the tests: runs here and now

    for each in (site, gay_site):
        gone, payment, payer = work[each.pk]
        with on_site(each):
            assert not User.objects.filter(pk=gone).exists()
            paid = Payment.objects.get(pk=payment)
            assert paid.status == "paid"
            assert User.objects.get(pk=payer).credits == paid.credits
