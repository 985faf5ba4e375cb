from celery import shared_task
from django.core.mail import EmailMultiAlternatives


@shared_task(bind=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def mail_send(self, *, subject: str, text: str, html: str, to: list[str], sender: str) -> None:
    message = EmailMultiAlternatives(subject=subject, body=text, from_email=sender, to=to)
    if html:
        message.attach_alternative(html, "text/html")
    message.send()


@shared_task
def members_erase_expired() -> int:
    """Daily (CELERY_BEAT_SCHEDULE): erase members deleted more than REACTIVATION_DAYS
    ago on every site. Runs in the public schema and visits each site's schema itself;
    the service is idempotent, so a retry or an overlapping run is safe."""
    from apps.accounts.services.deletion import members_erase_expired as erase

    return erase()
