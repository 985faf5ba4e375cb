"""Notification e-mails: HTML and plain text in the member's language, with the site's
name, colours, icon and company details, a deep link to what happened and a one-click
unsubscribe for that type (RFC 8058: List-Unsubscribe + List-Unsubscribe-Post headers,
and a footer link; both work without logging in through a signed token).

Each mail's Message-ID names the site's schema and the notice
(<notice.<schema>.<id>@<host>>): the mail provider's bounce and complaint reports find
the member by it (apps.notifications.webhooks), and a mail sent twice after a crash
has the same id."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import connection
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import strip_tags

from apps.accounts.mail import sender_address
from apps.accounts.models import NOTIFICATION_TYPES
from apps.accounts.services.settings import unsubscribe_token
from apps.notifications.content import Content
from apps.notifications.models import Notice


def site_host(site) -> str:
    domain = site.get_primary_domain()
    return domain.domain if domain else "localhost"


def site_url(site, path: str) -> str:
    """An absolute link to `path` on the site's primary host (settings SITE_URL_SCHEME,
    SITE_URL_PORT: links in mails and pushes are made without a request)."""
    port = f":{settings.SITE_URL_PORT}" if settings.SITE_URL_PORT else ""
    return f"{settings.SITE_URL_SCHEME}://{site_host(site)}{port}{path}"


def unsubscribe_url(site, *, user_id: int, kind: str) -> str:
    return site_url(site, reverse("unsubscribe") + "?token=" + unsubscribe_token(user_id=user_id, kind=kind))


def message_id(site, notice: Notice) -> str:
    return f"<notice.{connection.schema_name}.{notice.pk}@{site_host(site)}>"


def kind_label(kind: str) -> str:
    return str(dict(NOTIFICATION_TYPES).get(kind, kind))


def _branding(site) -> dict:
    from apps.pages.pwa import icon_url

    company = site.company
    return {
        "site": site,
        "company": company,
        "home_url": site_url(site, "/"),
        "icon_url": site_url(site, icon_url(site, "icon-192")),
        "settings_url": site_url(site, reverse("notifications")),
        "primary": site.theme_primary,
    }


def notice_mail(*, site, notice: Notice, content: Content) -> EmailMultiAlternatives:
    """The e-mail for a notification notice, in the active language."""
    user = notice.user
    link = site_url(site, content.url)
    unsubscribe = unsubscribe_url(site, user_id=user.pk, kind=notice.kind)
    context = {
        **_branding(site),
        "user": user,
        "content": content,
        "link": link,
        "unsubscribe_url": unsubscribe,
        "kind_label": kind_label(notice.kind),
    }
    html = render_to_string("notifications/email/notice.html", context)
    text = render_to_string("notifications/email/notice.txt", context).strip()
    subject = f"{site.name}: {content.title}"
    message = EmailMultiAlternatives(
        subject=subject,
        body=text,
        from_email=sender_address(),
        to=[user.email],
        headers={
            "Message-ID": message_id(site, notice),
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
        },
    )
    message.attach_alternative(html, "text/html")
    return message


def account_mail(*, site, notice: Notice) -> EmailMultiAlternatives:
    """An account mail rendered when it was asked for (apps.accounts.mail), sent as it
    is; a text-only one gets the site's HTML frame around its text."""
    mail = notice.mail or {}
    html = mail.get("html") or ""
    if not html and site is not None:
        html = render_to_string("notifications/email/account.html", {**_branding(site), "text": mail.get("text", "")})
    message = EmailMultiAlternatives(
        subject=mail.get("subject", ""),
        body=mail.get("text") or strip_tags(html),
        from_email=mail.get("sender") or sender_address(),
        to=[mail.get("to") or notice.email],
        headers={"Message-ID": message_id(site, notice)} if site is not None else {},
    )
    if html:
        message.attach_alternative(html, "text/html")
    return message
