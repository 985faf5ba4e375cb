"""The interface every payment gateway implements.

A gateway creates payments (one-off, a first payment that stores a mandate, or a
recurring payment on a stored mandate), reports a payment's state when asked (we never
trust a webhook's body: it only says which payment to fetch), and creates refunds with an
idempotency key. Amounts are integer minor units.

Implementations live beside it (sandbox, mollie) and are chosen by name, never imported
here: apps.payments.gateways.registry loads the one a site uses."""

from dataclasses import dataclass, field
from typing import Protocol, Self

from apps.tenants.models import Site


class GatewayError(Exception):
    """The provider refused or failed the call (e.g. an invalid method or mandate)."""


class GatewayTimeout(GatewayError):
    """The provider did not answer in time: the call may be retried later."""


@dataclass(frozen=True)
class PaymentOrder:
    """What a new payment charges (Gateway.payment_create). For sequence "first" a
    customer_id is required (customer_create); for "recurring" customer_id and
    mandate_id, and there is no checkout."""

    amount: int
    currency: str
    description: str
    method: str
    redirect_url: str
    webhook_url: str
    metadata: dict
    sequence: str = "oneoff"
    customer_id: str | None = None
    mandate_id: str | None = None
    idempotency_key: str | None = None


@dataclass(frozen=True)
class SignedMandate:
    """A SEPA direct debit mandate the member signed on our site (SMS-confirmed), for
    Gateway.mandate_create."""

    customer_id: str
    consumer_name: str
    consumer_account: str
    signature_date: str
    mandate_reference: str


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
    # The name sites choose it by (Site.payment_gateway) and payments keep (Payment.gateway).
    name: str

    @classmethod
    def for_site(cls, site: Site) -> Self:
        """The gateway set up for one site (its own keys), as the registry builds it."""
        ...

    def payment_create(self, order: PaymentOrder) -> ProviderPayment:
        """A new payment, as the order says."""
        ...

    def payment_fetch(self, provider_id: str) -> ProviderPayment: ...

    def customer_create(self, *, name: str, email: str, metadata: dict) -> str: ...

    def mandate_create(self, mandate: SignedMandate) -> tuple[str, str]:
        """The signed mandate stored with the provider on its customer. Returns (mandate
        id, details such as "NL** **** **** 1234")."""
        ...

    def refund_create(
        self, *, provider_id: str, amount: int, currency: str, description: str, idempotency_key: str
    ) -> ProviderRefund: ...
