"""The profiles' periodic work (CELERY_BEAT_SCHEDULE)."""

import logging

from celery import shared_task
from django_tenants.utils import get_public_schema_name, tenant_context

logger = logging.getLogger(__name__)


@shared_task
def verification_selfies_purge() -> int:
    """Daily: on every site, delete the verification selfies kept past their 30 days
    after a rejection (apps.profiles.services.verification). Runs in the public schema
    and visits each site's schema; safe to run twice."""
    from apps.profiles.services.verification import verification_selfies_purge as purge
    from apps.tenants.models import Site

    deleted = 0
    for site in Site.objects.exclude(schema_name=get_public_schema_name()).order_by("pk"):
        with tenant_context(site):
            try:
                deleted += purge()
            except Exception:  # one site must not stop the others; the next run retries
                logger.exception("Purging verification selfies of %s failed", site.schema_name)
    return deleted
