"""Background work of the payments app: the sandbox gateway's webhook calls and the
periodic reconciliation of payments left open."""

import logging

import httpx
from celery import shared_task

logger = logging.getLogger(__name__)

WEBHOOK_TIMEOUT_SECONDS = 10
WEBHOOK_MAX_RETRIES = 8


@shared_task(bind=True, max_retries=WEBHOOK_MAX_RETRIES)
def payment_webhook_send(self, *, url: str, provider_id: str) -> bool:
    """The sandbox gateway calls the site's webhook as a provider does: a form POST with
    only the payment id. Retried with backoff while the site does not answer 2xx. When
    run eagerly (tests, no worker) a failure is only logged: nothing may listen there,
    and the return page and the reconcile task fetch the status anyway."""
    try:
        target, headers = _webhook_target(url)
        response = httpx.post(target, data={"id": provider_id}, headers=headers, timeout=WEBHOOK_TIMEOUT_SECONDS)
        if response.status_code < 300:
            return True
        problem = f"HTTP {response.status_code}"
    except httpx.HTTPError as exc:
        problem = f"{type(exc).__name__}: {exc}"
    if self.request.is_eager:
        logger.info("Sandbox webhook for %s to %s not delivered (%s)", provider_id, url, problem)
        return False
    logger.warning("Sandbox webhook for %s to %s failed (%s); retrying", provider_id, url, problem)
    raise self.retry(countdown=min(5 * 2**self.request.retries, 3600))


def _webhook_target(url: str) -> tuple[str, dict]:
    """With SANDBOX_WEBHOOK_ADDRESS ("127.0.0.1:8000") the call connects there and names the
    site in the Host header: in development the sites' *.localhost names resolve in
    browsers but not everywhere in Python, so the webhooks of gay.localhost never arrived."""
    from urllib.parse import urlsplit, urlunsplit

    from django.conf import settings

    address = settings.SANDBOX_WEBHOOK_ADDRESS
    if not address:
        return url, {}
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=address)), {"Host": parts.netloc}


@shared_task
def payments_reconcile() -> dict:
    """Every 5 minutes (CELERY_BEAT_SCHEDULE), on every site: fetch the status of payments
    left open or pending, expire payments the gateway never accepted, and retry refunds
    whose request got no answer. Runs in the public schema and visits each site's schema;
    every step is idempotent, so overlapping runs are safe."""
    from apps.payments.services import payments_reconcile_all

    return payments_reconcile_all()
