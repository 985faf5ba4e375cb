"""The sandbox gateway: a payment provider that lives inside the site, for testing and
demos. It keeps its side of each payment in SandboxPayment (what a real provider keeps
on its servers) and behaves like one: a hosted checkout page (/sandbox/checkout/<id>)
where the tester pays, fails, cancels or leaves the payment pending, then the webhook
(which only names the payment) and the return to the site.

Customers and mandates are SandboxPayment rows too (ids "cst_sbx_…", "mdt_sbx_…"), so
the sandbox needs no table of its own for them. A mandate's status is "valid",
"decline" (the tester chose "decline repeat orders": recurring payments fail) or
"invalid" (recurring payments are refused).

Recurring payments on a mandate are "paid" at once, or "failed" on a declining mandate;
SEPA direct debit ones start "pending" and are "paid" when fetched
SANDBOX_DIRECT_DEBIT_SETTLE_SECONDS after they were made. Open checkouts expire after an
hour, as at a real provider."""

import secrets
from datetime import timedelta
from typing import Self
from urllib.parse import urljoin

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from apps.payments.gateways.base import GatewayError, PaymentOrder, ProviderPayment, ProviderRefund, SignedMandate
from apps.payments.gateways.registry import sandbox_allowed
from apps.payments.models import SandboxPayment
from apps.tenants.models import Site

NAME = "sandbox"
PAYMENT_PREFIX = "tr_sbx_"
CUSTOMER_PREFIX = "cst_sbx_"
MANDATE_PREFIX = "mdt_sbx_"
REFUND_PREFIX = "re_sbx_"

# Rows that are not payments (SandboxPayment.sequence).
CUSTOMER = "customer"
MANDATE = "mandate"

MANDATE_VALID = "valid"
MANDATE_DECLINE = "decline"  # recurring payments fail
MANDATE_INVALID = "invalid"  # recurring payments are refused

CHECKOUT_EXPIRE_SECONDS = 60 * 60

# What the tester can choose on the checkout page: action -> resulting status.
CHECKOUT_ACTIONS = {
    "pay": "paid",
    "pay_decline": "paid",
    "fail": "failed",
    "cancel": "canceled",
    "pending": "pending",
}
# Statuses in which the checkout page still takes a decision.
CHECKOUT_OPEN_STATUSES = ("open", "pending")


class SandboxRefused(GatewayError):
    """The site is on the sandbox gateway and this deployment takes no test payments
    (settings.ALLOW_TEST_PAYMENTS off): a live site left so would give credits for nothing."""


def _new_id(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(8)}"


def direct_debit_settle_seconds() -> int:
    return getattr(settings, "SANDBOX_DIRECT_DEBIT_SETTLE_SECONDS", 5)


def _mask_account(account: str) -> str:
    compact = "".join(account.split()).upper()
    return f"{compact[:2]}** **** **** {compact[-4:]}" if len(compact) >= 6 else "****"


def _refuse_unless_allowed() -> None:
    """No new payment, customer, mandate or checkout decision where test payments are
    off; reading and refunding what the sandbox already holds stays possible."""
    if not sandbox_allowed():
        raise SandboxRefused("This deployment takes no test payments (ALLOW_TEST_PAYMENTS).")


class SandboxGateway:
    name = NAME

    def __init__(self, site: Site | None = None) -> None:
        self.site = site

    @classmethod
    def for_site(cls, site: Site) -> Self:
        return cls(site=site)

    # --- Payments ---------------------------------------------------------------

    def payment_create(self, order: PaymentOrder) -> ProviderPayment:
        _refuse_unless_allowed()
        sequence, customer_id, mandate_id = order.sequence, order.customer_id, order.mandate_id
        if order.amount <= 0:
            raise GatewayError("The amount must be at least 0.01.")
        if sequence == "first" and not customer_id:
            raise GatewayError("A first payment needs a customer.")
        status = "open"
        if sequence == "recurring":
            status = self._recurring_status(customer_id=customer_id, mandate_id=mandate_id, method=order.method)
        row = SandboxPayment.objects.create(
            id=_new_id(PAYMENT_PREFIX),
            amount=order.amount,
            currency=order.currency,
            description=order.description[:200],
            method=order.method,
            sequence=sequence,
            customer_id=customer_id or "",
            mandate_id=mandate_id if sequence == "recurring" else "",
            status=status,
            redirect_url=order.redirect_url,
            webhook_url=order.webhook_url,
        )
        if sequence == "recurring":
            # A provider reports a recurring payment's outcome by webhook too (a SEPA
            # debit once it has settled), a moment after answering the create call.
            delay = direct_debit_settle_seconds() + 1 if status == "pending" else 2
            webhook_send_later(row, countdown=delay)
        return self._provider_payment(row)

    def _recurring_status(self, *, customer_id: str | None, mandate_id: str | None, method: str) -> str:
        mandate = SandboxPayment.objects.filter(id=mandate_id or "", sequence=MANDATE).first()
        if mandate is None or mandate.customer_id != customer_id or mandate.status == MANDATE_INVALID:
            raise GatewayError("The mandate is not valid for this customer.")
        if mandate.status == MANDATE_DECLINE:
            return "failed"
        return "pending" if mandate.method == "directdebit" else "paid"

    def payment_fetch(self, provider_id: str) -> ProviderPayment:
        row = SandboxPayment.objects.filter(id=provider_id).exclude(sequence__in=(CUSTOMER, MANDATE)).first()
        if row is None:
            raise GatewayError(f"No payment {provider_id}.")
        now = timezone.now()
        if (
            row.status == "pending"
            and row.sequence == "recurring"
            and row.created <= now - timedelta(seconds=direct_debit_settle_seconds())
        ):
            SandboxPayment.objects.filter(id=row.id, status="pending").update(status="paid")
            row.refresh_from_db()
        elif row.status == "open" and row.created <= now - timedelta(seconds=CHECKOUT_EXPIRE_SECONDS):
            SandboxPayment.objects.filter(id=row.id, status="open").update(status="expired")
            row.refresh_from_db()
        return self._provider_payment(row)

    def _provider_payment(self, row: SandboxPayment) -> ProviderPayment:
        mandate_id = customer_id = None
        details = ""
        if row.status == "paid" and row.mandate_id:
            mandate = SandboxPayment.objects.filter(id=row.mandate_id, sequence=MANDATE).first()
            mandate_id, customer_id = row.mandate_id, row.customer_id
            details = mandate.description if mandate is not None else ""
        return ProviderPayment(
            id=row.id,
            status=row.status,
            amount=row.amount,
            currency=row.currency,
            method=row.method,
            checkout_url=self.checkout_url(row) if row.status == "open" and row.sequence != "recurring" else None,
            amount_refunded=row.amount_refunded,
            amount_charged_back=row.amount_charged_back,
            customer_id=customer_id or (row.customer_id or None),
            mandate_id=mandate_id,
            mandate_details=details,
            sequence=row.sequence,
        )

    @staticmethod
    def checkout_url(row: SandboxPayment) -> str:
        """The hosted checkout on the host the member came from (that of redirect_url)."""
        return urljoin(row.redirect_url, reverse("sandbox-checkout", args=[row.id]))

    # --- Customers and mandates -------------------------------------------------------

    def customer_create(self, *, name: str, email: str, metadata: dict) -> str:
        _refuse_unless_allowed()
        row = SandboxPayment.objects.create(
            id=_new_id(CUSTOMER_PREFIX),
            amount=0,
            currency="",
            description=f"{name} <{email}>"[:200],
            method="",
            sequence=CUSTOMER,
            status="active",
            redirect_url="",
            webhook_url="",
        )
        return row.id

    def mandate_create(self, mandate: SignedMandate) -> tuple[str, str]:
        _refuse_unless_allowed()
        customer_id = mandate.customer_id
        if not SandboxPayment.objects.filter(id=customer_id, sequence=CUSTOMER).exists():
            raise GatewayError(f"No customer {customer_id}.")
        details = _mask_account(mandate.consumer_account)
        row = _mandate_make(customer_id=customer_id, method="directdebit", details=details)
        return row.id, row.description

    # --- Refunds ------------------------------------------------------------------

    def refund_create(
        self, *, provider_id: str, amount: int, currency: str, description: str, idempotency_key: str
    ) -> ProviderRefund:
        with transaction.atomic():
            row = (
                SandboxPayment.objects.select_for_update()
                .filter(id=provider_id)
                .exclude(sequence__in=(CUSTOMER, MANDATE))
                .first()
            )
            if row is None:
                raise GatewayError(f"No payment {provider_id}.")
            for refund in row.refunds:
                if refund["key"] == idempotency_key:  # the same request again: the same refund
                    return ProviderRefund(id=refund["id"], status="refunded", amount=refund["amount"])
            if row.status != "paid":
                raise GatewayError("Only paid payments can be refunded.")
            if currency != row.currency:
                raise GatewayError("The refund's currency differs from the payment's.")
            if amount <= 0 or amount > row.amount - row.amount_refunded - row.amount_charged_back:
                raise GatewayError("The amount is higher than what can still be refunded.")
            refund = {"id": _new_id(REFUND_PREFIX), "amount": amount, "key": idempotency_key}
            row.refunds = [*row.refunds, refund]
            row.amount_refunded += amount
            row.save(update_fields=["refunds", "amount_refunded"])
        return ProviderRefund(id=refund["id"], status="refunded", amount=amount)


# --- The tester's side: checkout decisions, chargebacks ---------------------------------


def _mandate_make(*, customer_id: str, method: str, details: str, status: str = MANDATE_VALID) -> SandboxPayment:
    return SandboxPayment.objects.create(
        id=_new_id(MANDATE_PREFIX),
        amount=0,
        currency="",
        description=details,
        method=method,
        sequence=MANDATE,
        customer_id=customer_id,
        status=status,
        redirect_url="",
        webhook_url="",
    )


def sandbox_payment_get(provider_id: str) -> SandboxPayment | None:
    """A payment (not a customer or mandate) of the current site's sandbox."""
    return SandboxPayment.objects.filter(id=provider_id).exclude(sequence__in=(CUSTOMER, MANDATE)).first()


def sandbox_checkout_decide(*, provider_id: str, action: str) -> SandboxPayment:
    """The tester's choice on the checkout page. Paying a first payment stores a mandate
    (that declines repeat orders when asked). Sends the webhook after commit. Raises
    GatewayError when the payment no longer takes a decision."""
    _refuse_unless_allowed()
    if action not in CHECKOUT_ACTIONS:
        raise GatewayError(f"Unknown action {action}.")
    with transaction.atomic():
        row = SandboxPayment.objects.select_for_update().filter(id=provider_id).first()
        if row is None or row.sequence in (CUSTOMER, MANDATE, "recurring"):
            raise GatewayError(f"No payment {provider_id}.")
        if row.status not in CHECKOUT_OPEN_STATUSES:
            raise GatewayError("This payment is already completed.")
        if action == "pay_decline" and row.sequence != "first":
            raise GatewayError("Only a first payment stores a mandate.")
        row.status = CHECKOUT_ACTIONS[action]
        if row.status == "paid" and row.sequence == "first" and row.customer_id:
            mandate = _mandate_make(
                customer_id=row.customer_id,
                method="directdebit" if row.method == "directdebit" else row.method,
                details=_test_details(row.method),
                status=MANDATE_DECLINE if action == "pay_decline" else MANDATE_VALID,
            )
            row.mandate_id = mandate.id
        row.save(update_fields=["status", "mandate_id"])
        webhook_send_later(row)
    return row


def _test_details(method: str) -> str:
    if method == "paypal":
        return "tester@example.com"
    if method == "directdebit":
        return "NL** **** **** 4321"
    return "•••• 4242"


def sandbox_chargeback(*, provider_id: str, amount: int | None = None, send_webhook: bool = True) -> SandboxPayment:
    """The member's bank reverses (part of) a paid payment: `amount` in minor units, by
    default all that is neither refunded nor charged back yet. Sends the webhook."""
    with transaction.atomic():
        row = SandboxPayment.objects.select_for_update().filter(id=provider_id).first()
        if row is None or row.sequence in (CUSTOMER, MANDATE):
            raise GatewayError(f"No payment {provider_id}.")
        if row.status != "paid":
            raise GatewayError("Only paid payments can be charged back.")
        left = row.amount - row.amount_refunded - row.amount_charged_back
        amount = left if amount is None else amount
        if amount <= 0 or amount > left:
            raise GatewayError(f"A chargeback takes between 0.01 and {left / 100:.2f}.")
        row.amount_charged_back += amount
        row.save(update_fields=["amount_charged_back"])
        if send_webhook:
            webhook_send_later(row)
    return row


def sandbox_mandate_set(*, mandate_id: str, status: str) -> None:
    """Make a mandate decline repeat orders, or be revoked (tests and demos)."""
    if status not in (MANDATE_VALID, MANDATE_DECLINE, MANDATE_INVALID):
        raise ValueError(status)
    SandboxPayment.objects.filter(id=mandate_id, sequence=MANDATE).update(status=status)


def webhook_send_later(row: SandboxPayment, *, countdown: int = 0) -> None:
    """Queue the webhook (only the payment id, as providers do) after commit."""
    if not row.webhook_url:
        return
    from apps.payments.tasks import payment_webhook_send

    url, provider_id = row.webhook_url, row.id

    def send() -> None:
        if countdown:
            payment_webhook_send.apply_async(kwargs={"url": url, "provider_id": provider_id}, countdown=countdown)
        else:
            payment_webhook_send.delay(url=url, provider_id=provider_id)

    transaction.on_commit(send)
