from celery import shared_task
from django.core.mail import EmailMultiAlternatives


@shared_task(bind=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def mail_send(self, *, subject: str, text: str, html: str, to: list[str], sender: str) -> None:
    message = EmailMultiAlternatives(subject=subject, body=text, from_email=sender, to=to)
    if html:
        message.attach_alternative(html, "text/html")
    message.send()
