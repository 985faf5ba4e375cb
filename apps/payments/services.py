"""Payments: starting one at the gateway, charging a stored mandate (repeat orders, SMS
direct debit), following the gateway's state, refunds, and the periodic reconciliation.

The gateway's state is the truth, always fetched server-side (a webhook only names the
payment). `payment_sync` fetches first and then applies the state under the payment's
row lock, so webhooks that come repeated, at once or out of order change things once:

- the status only moves forward (STATUS_RANK); a final status stays;
- "paid" grants the package's credits once (key "purchase:<payment>"), makes the member
  premium on the first purchase, records the discount code's use and stores the mandate
  a first payment leaves;
- what the gateway reports as refunded or charged back only grows; the credits that
  correspond (in proportion to the amount paid, rounded up so a full refund takes all)
  are taken back for what was not taken yet (Payment.credits_refunded,
  credits_charged_back). A take-back larger than the balance freezes spending
  (apps.credits.services.credits_take_back).

Locks are taken in one order: the payment, then the member (credits)."""

import logging
import math
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q, Sum, Value
from django.db.models.functions import Coalesce
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django_tenants.utils import get_public_schema_name, tenant_context

# Up to accounts: the paying member's account (User, its credits row locked with the payment).
from apps.accounts.models import User
from apps.common.exceptions import ApplicationError
from apps.credits.models import CreditEntry, EntryKind
from apps.credits.services import credits_adjust, credits_frozen_error, credits_grant, credits_take_back
from apps.payments.gateways.base import Gateway, GatewayError, GatewayTimeout, PaymentOrder, ProviderPayment
from apps.payments.gateways.registry import gateway_for, sandbox_allowed
from apps.payments.methods import MANDATE_METHODS, PAYMENT_METHODS, gateway_method
from apps.payments.models import (
    STATUS_RANK,
    Mandate,
    Payment,
    PaymentStatus,
    Refund,
    RefundStatus,
    Sequence,
)
from apps.payments.selectors import discounted, package_offered, payment_country, payment_methods
from apps.payments.signals import payment_changed
from apps.tenants.current import current_site
from apps.tenants.models import Site

logger = logging.getLogger(__name__)

# The gateway's words (Mollie's) for a payment's state.
GATEWAY_STATUSES = {
    "open": PaymentStatus.OPEN,
    "pending": PaymentStatus.PENDING,
    "authorized": PaymentStatus.PENDING,
    "paid": PaymentStatus.PAID,
    "failed": PaymentStatus.FAILED,
    "canceled": PaymentStatus.CANCELED,
    "expired": PaymentStatus.EXPIRED,
}
# The provider's words for a refund it accepted, and for one it gave up.
REFUND_DONE = ("refunded",)
REFUND_GIVEN_UP = ("failed", "canceled")

# The reconcile task: open or pending payments are fetched once they are this old (the
# webhook normally comes first); payments the gateway never accepted expire after an hour;
# a refund request that got no answer is sent again (same idempotency key).
RECONCILE_AFTER = timedelta(minutes=2)
CREATED_EXPIRE_AFTER = timedelta(hours=1)
RECONCILE_BATCH = 500

# Ledger notes (stored, shown to support; the entry's kind is what members see translated).
NOTE_PURCHASE = "Credit package bought"
NOTE_REFUND_REQUEST = "Refund of unused credits"
NOTE_REFUND_PROVIDER = "Refunded at the payment provider"
NOTE_CHARGEBACK = "Payment reversed by the bank (chargeback)"
NOTE_REFUND_FAILED = "Refund failed at the payment provider: credits given back"

DIRECT_DEBIT = "directdebit"


# --- Errors --------------------------------------------------------------------------------


def gateway_unavailable_error() -> ApplicationError:
    return ApplicationError("gateway_unavailable", _("An error occured, please try again later."), status_code=503)


def _package_not_found() -> ApplicationError:
    return ApplicationError("package_not_found", _("This credit package is not available."), status_code=404)


def _method_not_available() -> ApplicationError:
    return ApplicationError(
        "method_not_available", _("This payment method is not available in your country."), status_code=409
    )


def _direct_debit_blocked() -> ApplicationError:
    return ApplicationError(
        "direct_debit_blocked", _("Your account is blocked for direct debit payments."), status_code=403
    )


def _mandate_not_valid() -> ApplicationError:
    return ApplicationError(
        "mandate_not_valid", _("This payment method can no longer be charged. Please choose another payment method.")
    )


def _refund_not_allowed(message: str) -> ApplicationError:
    return ApplicationError("refund_not_allowed", message)


# --- Helpers -------------------------------------------------------------------------------


def _gateway_taking_payments(site: Site) -> Gateway:
    """The site's gateway for a new payment. A site left on the sandbox where the
    deployment takes no test payments takes none at all (the sandbox refuses too; this
    spares the member a payment row that can only expire)."""
    gateway = gateway_for(site)
    if gateway.name == "sandbox" and not sandbox_allowed():
        logger.error("site %s: on the sandbox gateway, and this deployment takes no test payments", site.schema_name)
        raise gateway_unavailable_error()
    return gateway


def _member_check(user, *, direct_debit: bool = False) -> None:
    """Spending frozen after a chargeback: no new purchases until support settles it. A
    member whose direct debit bounced is not offered direct debit again. Read from the
    database, not from a member object that may be older."""
    frozen, blocked = User.objects.filter(pk=user.pk).values_list("credits_frozen", "direct_debit_blocked").get()
    if frozen:
        raise credits_frozen_error()
    if direct_debit and blocked:
        raise _direct_debit_blocked()


def _return_path(package_id: int, method: str) -> str:
    return reverse("credits-id-paymentmethod", args=[package_id, method])


def _order(request: HttpRequest, payment: Payment, *, method: str, **sequence) -> PaymentOrder:
    """What the gateway is asked to charge for `payment`: its amount, the site's name and
    the credits, the return and webhook addresses (absolute, on the host the member uses),
    the payment's public id as metadata and idempotency key; `sequence` adds the sequence,
    customer and mandate of a first or recurring payment."""
    return PaymentOrder(
        amount=payment.amount,
        currency=payment.currency,
        description=f"{request.site.name}: {payment.credits} credits",
        method=_gateway_method(method),
        redirect_url=request.build_absolute_uri(
            f"{_return_path(payment.package_id, payment.method)}?payment={payment.public_id}"
        ),
        webhook_url=request.build_absolute_uri(reverse("payment-webhook")),
        metadata={"payment": payment.public_id},
        idempotency_key=f"payment-{payment.public_id}",
        **sequence,
    )


def _gateway_method(method: str) -> str:
    return gateway_method(method) if method in PAYMENT_METHODS else method


def _new_payment(*, request: HttpRequest, user, package_id: int, method: str, discount_code: str, **fields) -> Payment:
    """Checks the package and the discount in the member's payment country and stores the
    payment ("created": the gateway has not accepted it yet)."""
    from apps.payments.discounts import discount_for_payment

    site = request.site
    country = payment_country(request=request, user=user)
    offered = package_offered(site=site, package_id=package_id, country=country)
    if offered is None:
        raise _package_not_found()
    discount = discount_for_payment(
        site=site,
        user=user,
        code=discount_code or "",
        country=country,
        currency=offered.currency,
        amount=offered.list_amount,
        method=method,
    )
    percentage = discount.percentage if discount is not None else 0
    return Payment.objects.create(
        user=user,
        package_id=offered.id,
        credits=offered.credits,
        currency=offered.currency,
        list_amount=offered.list_amount,
        amount=discounted(offered.list_amount, percentage),
        discount_code=discount.code if discount is not None else "",
        discount_percentage=percentage,
        method=method,
        country=country,
        **fields,
    )


def _customer_id(gateway: Gateway, user) -> str:
    """The member's customer at the gateway: the one of a stored mandate, else a new one."""
    known = (
        Mandate.objects.filter(user=user, gateway=gateway.name)
        .exclude(customer_id="")
        .order_by("-created")
        .values_list("customer_id", flat=True)
        .first()
    )
    if known:
        return known
    return gateway.customer_create(name=user.username, email=user.email, metadata={"member": user.pk})


# --- Starting payments ---------------------------------------------------------------------


def payment_start(*, request: HttpRequest, user, package_id: int, method: str, discount_code: str = "") -> Payment:
    """A payment of a credit package with a method, at the site's gateway; the member is
    then sent to `payment.checkout_url`. Methods that leave a mandate pay as "first", so
    repeat orders work. When the gateway does not answer the payment stays "created"
    (the reconcile task expires it) and "gateway_unavailable" is raised."""
    site = request.site
    _member_check(user, direct_debit=method == DIRECT_DEBIT)
    country = payment_country(request=request, user=user)
    if method not in payment_methods(country=country) or (method == DIRECT_DEBIT and not site.direct_debit_enabled):
        raise _method_not_available()
    gateway = _gateway_taking_payments(site)
    sequence = Sequence.FIRST if method in MANDATE_METHODS else Sequence.ONEOFF
    payment = _new_payment(
        request=request,
        user=user,
        package_id=package_id,
        method=method,
        discount_code=discount_code,
        sequence=sequence,
        gateway=gateway.name,
    )
    try:
        customer_id = _customer_id(gateway, user) if sequence == Sequence.FIRST else None
        provider = gateway.payment_create(
            _order(request, payment, method=method, sequence=sequence, customer_id=customer_id)
        )
    except GatewayError as error:
        logger.warning("payment %s: the gateway did not take it (%s: %s)", payment.pk, type(error).__name__, error)
        raise gateway_unavailable_error() from error
    Payment.objects.filter(pk=payment.pk).update(provider_id=provider.id, checkout_url=provider.checkout_url or "")
    return _apply(payment_id=payment.pk, provider=provider)


def payment_charge_mandate(
    *, request: HttpRequest, user, package_id: int, mandate: Mandate, discount_code: str = ""
) -> Payment:
    """A repeat order on a stored mandate: no checkout, the gateway's answer is applied at
    once (card and PayPal payments are paid or failed; SEPA debits pending until they
    settle). A refusal makes the payment "failed" (the page offers retry or PayPal); a
    mandate the gateway calls invalid is marked so. "gateway_unavailable" when the gateway
    does not answer (the payment stays "created")."""
    site = request.site
    gateway = _gateway_taking_payments(site)
    if mandate.user_id != user.pk or not mandate.is_valid or mandate.gateway != gateway.name:
        raise _mandate_not_valid()
    _member_check(user, direct_debit=mandate.method == DIRECT_DEBIT)
    if mandate.method == DIRECT_DEBIT and not site.direct_debit_enabled:
        raise _method_not_available()
    payment = _new_payment(
        request=request,
        user=user,
        package_id=package_id,
        method=mandate.method,
        discount_code=discount_code,
        sequence=Sequence.RECURRING,
        mandate=mandate,
        gateway=gateway.name,
    )
    try:
        order = _order(
            request,
            payment,
            method=mandate.method,
            sequence=Sequence.RECURRING,
            customer_id=mandate.customer_id,
            mandate_id=mandate.mandate_id,
        )
        provider = gateway.payment_create(order)
    except GatewayTimeout as error:
        logger.warning("payment %s: the gateway did not answer (%s)", payment.pk, error)
        raise gateway_unavailable_error() from error
    except GatewayError as error:
        logger.info("payment %s: the gateway refused the repeat order (%s)", payment.pk, error)
        # Mollie and the sandbox name the mandate when it is the reason.
        if "mandate" in str(error).lower():
            Mandate.objects.filter(pk=mandate.pk).update(is_valid=False)
        Payment.objects.filter(pk=payment.pk, status=PaymentStatus.CREATED).update(
            status=PaymentStatus.FAILED, synced_at=timezone.now()
        )
        return Payment.objects.get(pk=payment.pk)
    Payment.objects.filter(pk=payment.pk).update(provider_id=provider.id)
    return _apply(payment_id=payment.pk, provider=provider)


# --- Following the gateway -------------------------------------------------------------------


def payment_sync(*, payment: Payment) -> Payment:
    """Fetch the payment's state from its gateway and apply it (see the module docstring).
    Idempotent and safe to run concurrently. The gateway is asked before the row lock is
    taken; GatewayTimeout / GatewayError propagate (a webhook answers 503 so the provider
    retries). A payment the gateway never accepted is returned as it is."""
    if not payment.provider_id:
        return payment
    gateway = gateway_for(current_site(), name=payment.gateway)
    provider = gateway.payment_fetch(payment.provider_id)
    return _apply(payment_id=payment.pk, provider=provider)


def payment_sync_by_provider_id(*, gateway: str, provider_id: str) -> Payment | None:
    """The webhook: sync our payment with this id at this gateway; None for an id we do
    not know (nothing is fetched then)."""
    payment = Payment.objects.filter(gateway=gateway, provider_id=provider_id).first()
    if payment is None:
        return None
    return payment_sync(payment=payment)


def _apply(*, payment_id: int, provider: ProviderPayment) -> Payment:
    """Apply the gateway's view of a payment, under the payment's row lock. Everything here
    depends only on the stored row and `provider`, and only moves forward, so an old view
    applied after a newer one changes nothing."""
    now = timezone.now()
    with transaction.atomic():
        payment = Payment.objects.select_for_update().get(pk=payment_id)
        if payment.provider_id != provider.id:
            raise ValueError(f"gateway payment {provider.id} is not payment {payment.pk}'s")
        fields = {"synced_at", "updated"}
        payment.synced_at = now
        became = None
        new_status = GATEWAY_STATUSES.get(provider.status)
        if new_status is None:
            logger.warning("payment %s: unknown gateway status %r", payment.pk, provider.status)
        elif STATUS_RANK[new_status] > STATUS_RANK[payment.status]:
            payment.status = became = new_status
            fields.add("status")
        refunded_before = payment.amount_refunded
        if provider.amount_refunded > payment.amount_refunded:
            payment.amount_refunded = provider.amount_refunded
            fields.add("amount_refunded")
        charged_back_before = payment.amount_charged_back
        if provider.amount_charged_back > payment.amount_charged_back:
            payment.amount_charged_back = provider.amount_charged_back
            fields.add("amount_charged_back")
        if provider.checkout_url and not payment.checkout_url:
            payment.checkout_url = provider.checkout_url
            fields.add("checkout_url")

        user = User.objects.get(pk=payment.user_id) if payment.user_id else None
        if became == PaymentStatus.PAID:
            fields |= _paid(payment=payment, user=user, provider=provider, now=now)
        if user is not None and payment.method == DIRECT_DEBIT:
            bounced = became == PaymentStatus.FAILED or payment.amount_charged_back > charged_back_before
            if bounced:
                User.objects.filter(pk=user.pk).update(direct_debit_blocked=True)
        if user is not None:
            fields |= _take_back_due(payment=payment, user=user)
        _refunds_settle(payment)
        payment.save(update_fields=sorted(fields))
        refunded = payment.amount_refunded - refunded_before
        charged_back = payment.amount_charged_back - charged_back_before
        if became == PaymentStatus.PAID or refunded > 0 or charged_back > 0:
            payment_changed.send(
                sender=Payment,
                payment=payment,
                user=user,
                paid=became == PaymentStatus.PAID,
                refunded=max(refunded, 0),
                charged_back=max(charged_back, 0),
            )
    return payment


def _paid(*, payment: Payment, user, provider: ProviderPayment, now: datetime) -> set[str]:
    """The payment just became paid: credits (once), premium on the first purchase, the
    discount code's use, the mandate. Returns the payment's changed fields."""
    fields = {"paid_at"}
    payment.paid_at = payment.paid_at or now
    if user is None:  # the member was erased meanwhile
        return fields
    credits_grant(
        user=user,
        credits=payment.credits,
        kind=EntryKind.PURCHASE,
        key=f"purchase:{payment.pk}",
        payment=payment,
        note=NOTE_PURCHASE,
    )
    User.objects.filter(pk=user.pk).filter(Q(paid_user=False) | Q(premium_since=None)).update(
        paid_user=True, premium_since=Coalesce("premium_since", Value(payment.paid_at))
    )
    if payment.discount_code:
        from apps.payments.discounts import discount_use_record

        discount_use_record(payment=payment)
    if provider.mandate_id and payment.sequence == Sequence.FIRST:
        mandate, _created = Mandate.objects.get_or_create(
            gateway=payment.gateway,
            mandate_id=provider.mandate_id,
            defaults={
                "user": user,
                "customer_id": provider.customer_id or "",
                "method": payment.method,
                "details": (provider.mandate_details or "")[:200],
            },
        )
        if mandate.user_id == user.pk:
            payment.mandate = mandate
            fields.add("mandate")
    return fields


def _credits_for(payment: Payment, amount: int) -> int:
    """The credits `amount` (minor units) of the payment stands for, rounded up."""
    if amount <= 0 or payment.amount <= 0:
        return 0
    return min(payment.credits, math.ceil(payment.credits * amount / payment.amount))


def _take_back_due(*, payment: Payment, user) -> set[str]:
    """Take back the credits for what the gateway reported refunded or charged back and
    was not taken back yet. Together they never exceed the credits bought. Call with the
    payment's row lock held."""
    fields: set[str] = set()
    if payment.status != PaymentStatus.PAID:
        return fields
    refund_due = min(_credits_for(payment, payment.amount_refunded), payment.credits - payment.credits_charged_back)
    if refund_due > payment.credits_refunded:
        # Refunds asked for here were taken back already (refund_request); this is a refund
        # made at the provider (its dashboard). credits_refunded can go down (a refund that
        # failed gives its credits back), so the key counts these take-backs instead of
        # naming a total; the row lock makes the count exact.
        prefix = f"refund:{payment.pk}:provider:"
        seen = CreditEntry.objects.filter(payment=payment, key__startswith=prefix).count()
        credits_take_back(
            user=user,
            credits=refund_due - payment.credits_refunded,
            kind=EntryKind.REFUND,
            key=f"{prefix}{seen + 1}",
            payment=payment,
            note=NOTE_REFUND_PROVIDER,
        )
        payment.credits_refunded = refund_due
        fields.add("credits_refunded")
    chargeback_due = min(_credits_for(payment, payment.amount_charged_back), payment.credits - payment.credits_refunded)
    if chargeback_due > payment.credits_charged_back:
        # credits_charged_back only grows: each total is reached once.
        credits_take_back(
            user=user,
            credits=chargeback_due - payment.credits_charged_back,
            kind=EntryKind.CHARGEBACK,
            key=f"chargeback:{payment.pk}:{chargeback_due}",
            payment=payment,
            note=NOTE_CHARGEBACK,
        )
        payment.credits_charged_back = chargeback_due
        fields.add("credits_charged_back")
    return fields


def _refunds_settle(payment: Payment) -> None:
    """Refunds the provider accepted as pending are done once the payment's refunded
    amount covers them."""
    pending = payment.refunds.filter(status=RefundStatus.PENDING)
    if not pending.exists():
        return
    asked = (
        payment.refunds.filter(status__in=(RefundStatus.PENDING, RefundStatus.REFUNDED)).aggregate(total=Sum("amount"))[
            "total"
        ]
        or 0
    )
    if payment.amount_refunded >= asked:
        pending.update(status=RefundStatus.REFUNDED)


# --- Refunds ----------------------------------------------------------------------------------


def _refund_offer(*, payment: Payment, user, site: Site, now: datetime) -> tuple[int, int, datetime | None, str]:
    """(credits, amount, until, reason refused): the payment's unused credits that can be
    refunded now and the money for them (rounded down)."""
    if payment.status != PaymentStatus.PAID or payment.paid_at is None or user is None or payment.amount <= 0:
        return 0, 0, None, _("This payment was not completed, so there is nothing to refund.")
    until = payment.paid_at + timedelta(days=site.refund_days)
    if now > until:
        return (
            0,
            0,
            until,
            _("The refund period of %(days)s days for this payment is over.") % {"days": site.refund_days},
        )
    if user.credits_frozen:
        return 0, 0, until, str(credits_frozen_error().message)
    credits = min(payment.credits - payment.credits_refunded - payment.credits_charged_back, user.credits)
    amount = payment.amount * credits // payment.credits if credits > 0 else 0
    if credits <= 0 or amount <= 0:
        return 0, 0, until, _("There are no unused credits from this payment left to refund.")
    return credits, amount, until, ""


def refundable(payment: Payment, *, now: datetime | None = None, user=None) -> dict | None:
    """What refund_request would refund now: {"credits", "amount", "currency", "until"}
    (amount in minor units, until a datetime), or None when nothing can be refunded.
    `user` is the payment's member when the caller has already read it."""
    if user is None or user.pk != payment.user_id:
        user = User.objects.filter(pk=payment.user_id).first() if payment.user_id else None
    credits, amount, until, reason = _refund_offer(
        payment=payment, user=user, site=current_site(), now=now or timezone.now()
    )
    if reason:
        return None
    return {"credits": credits, "amount": amount, "currency": payment.currency, "until": until}


def refund_request(*, payment: Payment, requested_by: str, now: datetime | None = None) -> Refund:
    """Refund the payment's unused credits (at most the member's balance) within the
    site's refund period. The credits are taken back at once, with the Refund, in one
    transaction; after commit the gateway is asked with the Refund's idempotency key
    (refund_send). Raises "refund_not_allowed" with the reason."""
    site = current_site()
    now = now or timezone.now()
    with transaction.atomic():
        locked = Payment.objects.select_for_update().get(pk=payment.pk)
        user = User.objects.select_for_update().filter(pk=locked.user_id).first() if locked.user_id else None
        credits, amount, _until, reason = _refund_offer(payment=locked, user=user, site=site, now=now)
        if reason:
            raise _refund_not_allowed(reason)
        refund = Refund.objects.create(payment=locked, credits=credits, amount=amount, requested_by=requested_by[:150])
        credits_take_back(
            user=user,
            credits=credits,
            kind=EntryKind.REFUND,
            key=f"refund:{locked.pk}:request:{refund.pk}",
            payment=locked,
            note=NOTE_REFUND_REQUEST,
        )
        locked.credits_refunded += credits
        locked.save(update_fields=["credits_refunded", "updated"])
        refund_id = refund.pk
        # robust: an unexpected error there must not undo the answer; the refund stays
        # "requested" and the reconcile task sends it.
        transaction.on_commit(lambda: refund_send(refund_id=refund_id), robust=True)
    refund.refresh_from_db()
    return refund


def refund_send(*, refund_id: int) -> Refund:
    """Ask the gateway for a requested refund. The idempotency key makes a repeated call
    refund once. No answer: the refund stays "requested" and the reconcile task asks
    again. A refusal: the refund failed and its credits are given back."""
    refund = Refund.objects.select_related("payment").get(pk=refund_id)
    if refund.status != RefundStatus.REQUESTED:
        return refund
    payment = refund.payment
    gateway = gateway_for(current_site(), name=payment.gateway)
    try:
        provider = gateway.refund_create(
            provider_id=payment.provider_id,
            amount=refund.amount,
            currency=payment.currency,
            description=f"Refund of {refund.credits} credits",
            idempotency_key=refund.idempotency_key,
        )
    except GatewayTimeout as error:
        logger.warning("refund %s: the gateway did not answer (%s); retried later", refund.pk, error)
        return refund
    except GatewayError as error:
        logger.warning("refund %s: the gateway refused it (%s)", refund.pk, error)
        return _refund_failed(refund_id=refund.pk)
    if provider.status in REFUND_GIVEN_UP:
        return _refund_failed(refund_id=refund.pk)
    status = RefundStatus.REFUNDED if provider.status in REFUND_DONE else RefundStatus.PENDING
    Refund.objects.filter(pk=refund.pk, status=RefundStatus.REQUESTED).update(provider_id=provider.id, status=status)
    refund.refresh_from_db()
    return refund


def _refund_failed(*, refund_id: int) -> Refund:
    """The gateway refused the refund: mark it failed and give its credits back (an
    adjustment, which first pays off a chargeback debt). Once, under the payment's lock."""
    with transaction.atomic():
        payment_id = Refund.objects.values_list("payment_id", flat=True).get(pk=refund_id)
        payment = Payment.objects.select_for_update().get(pk=payment_id)
        refund = Refund.objects.select_for_update().get(pk=refund_id)
        if refund.status not in (RefundStatus.REQUESTED, RefundStatus.PENDING):
            return refund
        refund.status = RefundStatus.FAILED
        refund.save(update_fields=["status"])
        payment.credits_refunded -= refund.credits
        fields = {"credits_refunded", "updated"}
        user = User.objects.filter(pk=payment.user_id).first() if payment.user_id else None
        if user is not None:
            credits_adjust(user=user, credits=refund.credits, staff_name="", note=NOTE_REFUND_FAILED)
            # A chargeback that the refund's credits kept from being taken back is due now.
            fields |= _take_back_due(payment=payment, user=user)
        payment.save(update_fields=sorted(fields))
    return refund


# --- For the screens ---------------------------------------------------------------------------


def payment_view_status(payment: Payment) -> str:
    """ "loading" (created, open), "pending", "completed" or "failed" (failed, cancelled,
    expired): what the payment screen shows."""
    if payment.status in (PaymentStatus.CREATED, PaymentStatus.OPEN):
        return "loading"
    if payment.status == PaymentStatus.PENDING:
        return "pending"
    if payment.status == PaymentStatus.PAID:
        return "completed"
    return "failed"


def payment_payload(payment: Payment) -> dict:
    user = User.objects.filter(pk=payment.user_id).only("credits", "paid_user").first() if payment.user_id else None
    return {
        "id": payment.public_id,
        "status": payment_view_status(payment),
        "credits": payment.credits,
        "amount": payment.amount,
        "currency": payment.currency,
        "method": payment.method,
        "package_id": payment.package_id,
        "balance": user.credits if user is not None else 0,
        "paid_user": user.paid_user if user is not None else False,
    }


# --- Reconciliation ------------------------------------------------------------------------------


def payments_reconcile(*, now: datetime | None = None) -> dict[str, int]:
    """In the current site: fetch payments left open or pending, expire payments the
    gateway never accepted, and ask again for refunds that got no answer. Idempotent."""
    now = now or timezone.now()
    counts = {"synced": 0, "expired": 0, "refunds": 0, "errors": 0}
    counts["expired"] = Payment.objects.filter(
        status=PaymentStatus.CREATED, created__lt=now - CREATED_EXPIRE_AFTER
    ).update(status=PaymentStatus.EXPIRED, synced_at=now)
    waiting = (
        Payment.objects.filter(
            status__in=(PaymentStatus.OPEN, PaymentStatus.PENDING),
            created__lt=now - RECONCILE_AFTER,
            provider_id__isnull=False,
        )
        .order_by(Coalesce("synced_at", "created"))
        .only("pk", "provider_id", "gateway")[:RECONCILE_BATCH]
    )
    for payment in waiting:
        try:
            payment_sync(payment=payment)
            counts["synced"] += 1
        except GatewayError as error:
            counts["errors"] += 1
            logger.warning("reconcile: payment %s not fetched (%s: %s)", payment.pk, type(error).__name__, error)
    asked = Refund.objects.filter(status=RefundStatus.REQUESTED, created__lt=now - RECONCILE_AFTER).order_by("pk")
    for refund_id in asked.values_list("pk", flat=True)[:RECONCILE_BATCH]:
        refund_send(refund_id=refund_id)
        counts["refunds"] += 1
    return counts


def payments_reconcile_all(*, now: datetime | None = None) -> dict[str, int]:
    """payments_reconcile on every site; one site's trouble does not stop the others."""
    totals = {"synced": 0, "expired": 0, "refunds": 0, "errors": 0}
    for site in Site.objects.exclude(schema_name=get_public_schema_name()).order_by("pk"):
        with tenant_context(site):
            try:
                counts = payments_reconcile(now=now)
            except Exception:  # the next run retries this site
                logger.exception("reconcile: site %s failed", site.schema_name)
                totals["errors"] += 1
                continue
        for key, value in counts.items():
            totals[key] += value
    return totals
