"""Sending text messages (SMS) through a pluggable backend, like Django's e-mail backends.

settings.SMS_BACKEND names the deployment's class: `ConsoleBackend` (development: the
message is written to standard output, which is where the developer reads the code),
`LocmemBackend` (tests: messages are kept in `outbox`) or `TwilioBackend` (Twilio's
REST API through its official SDK, with the TWILIO_* settings). A site may send through
its own Twilio account instead (Site.sms_provider, set in the site admin). A backend has
`send(*, to, text, status_callback="")`, returns the provider's message id and raises
SmsError when the provider did not take the message.

Twilio: EU coverage and alphanumeric sender IDs (the site's name instead of a number
where the networks allow it); its delivery receipts are signed with the account's auth
token (X-Twilio-Signature) and arrive at apps.payments.views_sms.

Callers never log a message's text: it may carry a one-time code."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TextIO

from django.conf import settings
from django.utils.module_loading import import_string

if TYPE_CHECKING:
    from apps.tenants.models import Site

DEFAULT_BACKEND = "apps.payments.sms.ConsoleBackend"
# Backends that send nothing: a live site using one writes direct-debit codes to the log
# (or keeps them in memory), so production refuses them unless ALLOW_TEST_PAYMENTS is on
# (config/settings/production.py; apps.payments.checks for any subclass).
DEVELOPMENT_BACKENDS = frozenset({"apps.payments.sms.ConsoleBackend", "apps.payments.sms.LocmemBackend"})


@dataclass(frozen=True)
class SmsMessage:
    to: str  # E.164
    text: str


class SmsError(Exception):
    """The provider did not take the message: it refused it, failed, or did not answer in
    time (SMS_TIMEOUT). `permanent`: this number cannot get it (invalid, not a mobile,
    opted out, a country the account may not send to); asking again is no use."""

    def __init__(self, detail: str, *, permanent: bool = False) -> None:
        super().__init__(detail)
        self.detail = detail
        self.permanent = permanent


class SmsBackend(Protocol):
    def send(self, *, to: str, text: str, status_callback: str = "") -> str: ...


class ConsoleBackend:
    """Writes each message to standard output (development only)."""

    development = True

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout

    def send(self, *, to: str, text: str, status_callback: str = "") -> str:
        self.stream.write(f"----- SMS to {to} -----\n{text}\n{'-' * 40}\n")
        self.stream.flush()
        return ""


# Messages the LocmemBackend "sent", oldest first; tests read and clear it (like mail.outbox).
outbox: list[SmsMessage] = []


class LocmemBackend:
    """Keeps messages in `apps.payments.sms.outbox` (tests)."""

    development = True

    def send(self, *, to: str, text: str, status_callback: str = "") -> str:
        outbox.append(SmsMessage(to=to, text=text))
        return ""


# Twilio's error codes for a number that cannot get the message (asking again is no use):
# not a valid number, not a mobile, cannot be routed, opted out (STOP), a country the
# account may not send to.
TWILIO_NUMBER_ERRORS = frozenset({21211, 21214, 21408, 21610, 21612, 21614})


class TwilioBackend:
    """Twilio's Programmable Messaging through its SDK (`twilio`). Without arguments the
    deployment's account (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_SENDER); a site's
    own account through `sms_backend(site)`. One request per message, at most
    SMS_TIMEOUT seconds: the member is waiting for it."""

    development = False

    def __init__(self, *, account_sid: str = "", auth_token: str = "", sender: str = "") -> None:
        self.account_sid = account_sid or settings.TWILIO_ACCOUNT_SID
        self.auth_token = auth_token or settings.TWILIO_AUTH_TOKEN
        self.sender = sender or settings.TWILIO_SENDER

    def send(self, *, to: str, text: str, status_callback: str = "") -> str:
        import requests
        from twilio.base.exceptions import TwilioException, TwilioRestException
        from twilio.http.http_client import TwilioHttpClient
        from twilio.rest import Client

        if not (self.account_sid and self.auth_token and self.sender):
            raise SmsError("not configured")
        client = Client(
            self.account_sid,
            self.auth_token,
            http_client=TwilioHttpClient(timeout=settings.SMS_TIMEOUT, pool_connections=False),
        )
        client.api.base_url = settings.TWILIO_API_URL
        fields = {"to": to, "from_": self.sender, "body": text}
        if status_callback:
            fields["status_callback"] = status_callback
        try:
            message = client.messages.create(**fields)
        except TwilioRestException as error:
            # 400 with Twilio's code for the number; 401 (wrong credentials), 429 and 5xx
            # are the deployment's or Twilio's trouble: the member may ask again later.
            permanent = error.status == 400 and error.code in TWILIO_NUMBER_ERRORS
            raise SmsError(f"{error.status} {error.code or ''}".strip(), permanent=permanent) from None
        except (requests.RequestException, TwilioException) as error:
            raise SmsError(type(error).__name__) from None
        return str(message.sid or "")


def _deployment_backend_path() -> str:
    return getattr(settings, "SMS_BACKEND", DEFAULT_BACKEND)


def sms_backend(site: Site | None = None) -> SmsBackend:
    """The site's own Twilio account where its admin sets one, else the deployment's backend."""
    if site is not None and site.sms_provider == "twilio":
        return TwilioBackend(
            account_sid=site.twilio_account_sid, auth_token=site.twilio_auth_token, sender=site.sms_sender
        )
    return import_string(_deployment_backend_path())()


def twilio_auth_token(site: Site) -> str:
    """The auth token that signs the Twilio delivery receipts of `site`'s messages: the
    site's own account, or the deployment's when its backend is Twilio; "" for none."""
    backend = sms_backend(site)
    return backend.auth_token if isinstance(backend, TwilioBackend) else ""


def sms_status_url(site: Site) -> str:
    """Where the provider reports the delivery of `site`'s messages (apps.payments.views_sms):
    on the operators' host, one address per site; "" when no address is known."""
    from django.urls import reverse
    from django_tenants.utils import get_public_schema_name

    from apps.tenants.models import Domain

    base = settings.SMS_STATUS_BASE_URL.rstrip("/")
    if not base:
        host = (
            Domain.objects.filter(tenant__schema_name=get_public_schema_name(), is_primary=True)
            .values_list("domain", flat=True)
            .first()
        )
        if not host:
            return ""
        base = f"https://{host}"
    path = reverse("sms-status", kwargs={"schema": site.schema_name}, urlconf=settings.PUBLIC_SCHEMA_URLCONF)
    return f"{base}{path}"


def sms_send(*, to: str, text: str, site: Site | None = None) -> str:
    """Send one text message to an E.164 number through the site's backend; returns the
    provider's message id ("" from the development backends). Raises SmsError."""
    backend = sms_backend(site)
    callback = sms_status_url(site) if site is not None and isinstance(backend, TwilioBackend) else ""
    return backend.send(to=to, text=text, status_callback=callback)
