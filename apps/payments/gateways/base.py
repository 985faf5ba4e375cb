"""The interface every payment gateway implements.

A gateway creates payments (one-off, a first payment that stores a mandate, or a
recurring payment on a stored mandate), reports a payment's state when asked (we never
trust a webhook's body: it only says which payment to fetch), and creates refunds with an
idempotency key. Amounts are integer minor units."""

from dataclasses import dataclass, field
from typing import Protocol

from django.conf import settings

from apps.tenants.models import Site


class GatewayError(Exception):
    """The provider refused or failed the call (e.g. an invalid method or mandate)."""


class GatewayTimeout(GatewayError):
    """The provider did not answer in time: the call may be retried later."""


class SandboxRefused(GatewayError):
    """The site is on the sandbox gateway and this deployment takes no test payments
    (settings.ALLOW_TEST_PAYMENTS off): a live site left so would give credits for nothing."""


def sandbox_allowed() -> bool:
    """Whether the sandbox gateway may take payments here (development, tests, a demo or
    staging deployment that sets ALLOW_TEST_PAYMENTS)."""
    return bool(getattr(settings, "ALLOW_TEST_PAYMENTS", False))


@dataclass(frozen=True)
class ProviderPayment:
    id: str
    # open, pending, authorized, paid, failed, canceled, expired (Mollie's words; the
    # payments service maps them to PaymentStatus).
    status: str
    amount: int
    currency: str
    method: str | None = None
    checkout_url: str | None = None
    amount_refunded: int = 0
    amount_charged_back: int = 0
    customer_id: str | None = None
    mandate_id: str | None = None
    mandate_details: str = ""
    sequence: str = "oneoff"
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ProviderRefund:
    id: str
    status: str  # queued, pending, processing, refunded, failed, canceled
    amount: int


class Gateway(Protocol):
    name: str

    def payment_create(
        self,
        *,
        amount: int,
        currency: str,
        description: str,
        method: str,
        redirect_url: str,
        webhook_url: str,
        metadata: dict,
        sequence: str = "oneoff",
        customer_id: str | None = None,
        mandate_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> ProviderPayment:
        """A new payment. For sequence "first" a customer_id is required (customer_create);
        for "recurring" customer_id and mandate_id, and there is no checkout."""
        ...

    def payment_fetch(self, provider_id: str) -> ProviderPayment: ...

    def customer_create(self, *, name: str, email: str, metadata: dict) -> str: ...

    def mandate_create(
        self,
        *,
        customer_id: str,
        consumer_name: str,
        consumer_account: str,
        signature_date: str,
        mandate_reference: str,
    ) -> tuple[str, str]:
        """A SEPA direct debit mandate the member signed on our site (SMS-confirmed).
        Returns (mandate id, details such as "NL** **** **** 1234")."""
        ...

    def refund_create(
        self, *, provider_id: str, amount: int, currency: str, description: str, idempotency_key: str
    ) -> ProviderRefund: ...


def gateway_for(site: Site) -> Gateway:
    """The site's gateway (Site.payment_gateway): the sandbox unless Mollie is chosen."""
    if site.payment_gateway == "mollie":
        from apps.payments.gateways.mollie import MollieGateway

        return MollieGateway(api_key=site.mollie_api_key)
    from apps.payments.gateways.sandbox import SandboxGateway

    return SandboxGateway(site=site)
