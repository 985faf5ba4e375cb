"""Sending text messages (SMS) through a pluggable backend, like Django's e-mail backends.

settings.SMS_BACKEND names the class: `ConsoleBackend` (development: the message is
written to standard output, which is where the developer reads the code) or
`LocmemBackend` (tests: messages are kept in `outbox`). A real provider is one more
class with a `send(*, to, text)` method.

Callers never log a message's text: it may carry a one-time code."""

import sys
from dataclasses import dataclass
from typing import Protocol, TextIO

from django.conf import settings
from django.utils.module_loading import import_string

DEFAULT_BACKEND = "apps.payments.sms.ConsoleBackend"
# Backends that send nothing: a live site using one writes direct-debit codes to the log
# (or keeps them in memory), so production refuses them unless ALLOW_TEST_PAYMENTS is on
# (config/settings/production.py; apps.payments.checks for any subclass).
DEVELOPMENT_BACKENDS = frozenset({"apps.payments.sms.ConsoleBackend", "apps.payments.sms.LocmemBackend"})


@dataclass(frozen=True)
class SmsMessage:
    to: str  # E.164
    text: str


class SmsBackend(Protocol):
    def send(self, *, to: str, text: str) -> None: ...


class ConsoleBackend:
    """Writes each message to standard output (development only)."""

    development = True

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout

    def send(self, *, to: str, text: str) -> None:
        self.stream.write(f"----- SMS to {to} -----\n{text}\n{'-' * 40}\n")
        self.stream.flush()


# Messages the LocmemBackend "sent", oldest first; tests read and clear it (like mail.outbox).
outbox: list[SmsMessage] = []


class LocmemBackend:
    """Keeps messages in `apps.payments.sms.outbox` (tests)."""

    development = True

    def send(self, *, to: str, text: str) -> None:
        outbox.append(SmsMessage(to=to, text=text))


def sms_backend() -> SmsBackend:
    return import_string(getattr(settings, "SMS_BACKEND", DEFAULT_BACKEND))()


def sms_send(*, to: str, text: str) -> None:
    """Send one text message to an E.164 number through the configured backend."""
    sms_backend().send(to=to, text=text)
