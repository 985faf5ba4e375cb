"""E-mail to members: rendered in the member's language with the site's name and
company details, sent by a Celery task (retries are safe: the task only sends)."""

from django.conf import settings
from django.db import connection, transaction
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.html import strip_tags

from apps.accounts.models import User
from apps.tenants.models import Site


def current_site() -> Site | None:
    """The site whose schema the connection is in (None in the public schema)."""
    tenant = getattr(connection, "tenant", None)
    return tenant if isinstance(tenant, Site) else None


def mail_render(*, template_prefix: str, context: dict, language: str | None = None) -> tuple[str, str, str]:
    """Subject, text and HTML of `<template_prefix>_subject.txt` / `_message.txt` / `_message.html`."""
    site = current_site()
    context = {**context, "site": site, "company": site.company if site else None}
    with translation.override(language or translation.get_language() or "en"):
        subject = " ".join(render_to_string(f"{template_prefix}_subject.txt", context).split())
        text = render_to_string(f"{template_prefix}_message.txt", context).strip()
        try:
            html = render_to_string(f"{template_prefix}_message.html", context)
        except Exception:  # noqa: BLE001 - a text-only mail is fine
            html = ""
    if site:
        subject = f"{site.name}: {subject}" if not subject.startswith(site.name) else subject
    return subject, text or strip_tags(html), html


def sender_address() -> str:
    site = current_site()
    if site is None:
        return settings.DEFAULT_FROM_EMAIL
    address = site.support_email or settings.DEFAULT_FROM_EMAIL
    return f"{site.sender_name} <{address}>"


def mail_send_later(*, template_prefix: str, email: str, context: dict, language: str | None = None) -> None:
    """Render now (links are built from the request) and send after commit. A member's
    mail goes through the notification outbox (apps.notifications): it is a row in the
    transaction, so a broker that is away at commit loses no activation mail."""
    from apps.accounts.tasks import mail_send

    user = context.get("user")
    language = language or getattr(user, "language", None)
    subject, text, html = mail_render(template_prefix=template_prefix, context=context, language=language)
    sender = sender_address()
    if isinstance(user, User) and user.pk and current_site() is not None:
        from apps.notifications.services import account_mail_queue

        account_mail_queue(user=user, email=email, subject=subject, text=text, html=html, sender=sender)
        return
    transaction.on_commit(lambda: mail_send.delay(subject=subject, text=text, html=html, to=[email], sender=sender))
