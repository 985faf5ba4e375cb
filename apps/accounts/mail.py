"""E-mail to members: rendered in the member's language with the site's name and
company details, then handed to the notification outbox (apps.notifications.outbox),
which sends it from Celery (retries are safe: the task only sends)."""

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.html import strip_tags

from apps.accounts.models import User
from apps.accounts.time_zone import member_zone

# Up to the notifications' outbox, their bottom: the mail is recorded there; delivery is never imported.
from apps.notifications.outbox import account_mail_queue
from apps.tenants.current import NoSiteError, current_site
from apps.tenants.models import Site


def _mail_site() -> Site | None:
    """The site a mail speaks for; none for the operators' staff, whose mails leave from
    the public schema with the deployment's sender."""
    try:
        return current_site()
    except NoSiteError:
        return None


def mail_render(*, template_prefix: str, context: dict, language: str | None = None) -> tuple[str, str, str]:
    """Subject, text and HTML of `<template_prefix>_subject.txt` / `_message.txt` / `_message.html`."""
    site = _mail_site()
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
    site = _mail_site()
    if site is None:
        return settings.DEFAULT_FROM_EMAIL
    address = site.support_email or settings.DEFAULT_FROM_EMAIL
    return f"{site.sender_name} <{address}>"


def mail_send_later(*, template_prefix: str, email: str, context: dict, language: str | None = None) -> None:
    """Render now (links are built from the request) and send after commit, through the
    notification outbox: a member's mail is a row in the transaction, so a broker that is
    away at commit loses no activation mail; a staff mail is queued after commit."""
    user = context.get("user")
    language = language or getattr(user, "language", None)
    # Dates and times in the member's zone (a staff member's or a visitor's mail: UTC).
    with timezone.override(member_zone(user)):
        subject, text, html = mail_render(template_prefix=template_prefix, context=context, language=language)
    member = user if isinstance(user, User) and user.pk and _mail_site() is not None else None
    account_mail_queue(user=member, email=email, subject=subject, text=text, html=html, sender=sender_address())
