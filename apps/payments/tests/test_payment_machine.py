"""A property test of the whole payment flow (issue 6 "Quality"): a hypothesis state
machine buys packages through the sandbox checkout, spends, refunds, charges back, lets
time pass and repeats webhooks or delivers late ones, in any order. After every step the
ledger invariants hold:

- the cached balance equals the ledger's sum and is never negative;
- each paid payment granted its credits exactly once; unpaid payments granted nothing;
- credits refunded and charged back never exceed those bought, and equal what the
  ledger's take-back entries took or recorded as owed;
- spending is frozen exactly when credits are owed.
"""

from datetime import timedelta

import pytest
from django.db.models import F
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    rule,
    run_state_machine_as_test,
)

from apps.common.exceptions import ApplicationError
from apps.credits.models import CreditEntry, EntryKind
from apps.credits.services import credits_spend
from apps.payments.gateways.base import GatewayError
from apps.payments.gateways.sandbox import SandboxGateway, sandbox_chargeback, sandbox_checkout_decide
from apps.payments.models import Payment, PaymentStatus, Refund, RefundStatus
from apps.payments.services import _apply, payment_sync, refund_request, refundable
from apps.payments.tests.helpers_core import buyer, fresh, start

pytestmark = pytest.mark.django_db

CHECKOUT_CHOICES = ["pay", "pay", "pay", "fail", "cancel", "pending"]


class PaymentFlow(RuleBasedStateMachine):
    # Set by the test: the site (its schema is the connection's) and pytest-django's
    # on-commit capture (the test's transaction never commits).
    site = None
    capture = None

    payments = Bundle("payments")

    def __init__(self) -> None:
        super().__init__()
        self.user = buyer(self.site)
        self.gateway = SandboxGateway(self.site)
        # Every answer the gateway gave per payment, to deliver late ones again.
        self.views: dict[int, list] = {}

    def _sync(self, payment_id: int) -> Payment:
        payment = Payment.objects.get(pk=payment_id)
        self.views.setdefault(payment_id, []).append(self.gateway.payment_fetch(payment.provider_id))
        return payment_sync(payment=payment)

    # --- Rules --------------------------------------------------------------------------

    @initialize(target=payments, credits=st.sampled_from([20, 50, 120]))
    def first_purchase(self, credits: int):
        """Every run starts from a paid package, so the later steps have credits to work on."""
        payment = start(self.site, self.user, credits=credits, method="paypal")
        sandbox_checkout_decide(provider_id=payment.provider_id, action="pay")
        assert self._sync(payment.pk).status == PaymentStatus.PAID
        return payment.pk

    @rule(target=payments, credits=st.sampled_from([20, 50, 120]), action=st.sampled_from(CHECKOUT_CHOICES))
    def buy(self, credits: int, action: str):
        user = fresh(self.user)
        try:
            payment = start(self.site, user, credits=credits, method="visa")
        except ApplicationError as error:
            assert error.code == "credits_frozen" and user.credits_frozen
            return multiple()
        assert not user.credits_frozen
        sandbox_checkout_decide(provider_id=payment.provider_id, action=action)
        self._sync(payment.pk)
        return payment.pk

    @rule(payment_id=payments)
    def pay_what_was_left_pending(self, payment_id: int):
        payment = Payment.objects.get(pk=payment_id)
        try:
            sandbox_checkout_decide(provider_id=payment.provider_id, action="pay")
        except GatewayError:
            return  # already decided
        self._sync(payment_id)

    @rule(credits=st.integers(min_value=1, max_value=15))
    def spend(self, credits: int):
        user = fresh(self.user)
        try:
            credits_spend(user=user, credits=credits, kind=EntryKind.MESSAGE, reference="machine")
        except ApplicationError as error:
            expected = "credits_frozen" if user.credits_frozen else "not_enough_credits"
            assert error.code == expected
            assert user.credits_frozen or user.credits < credits
        else:
            assert not user.credits_frozen

    @rule(payment_id=payments)
    def refund(self, payment_id: int):
        payment = Payment.objects.get(pk=payment_id)
        offer = refundable(payment)
        try:
            with self.capture(execute=True):
                done = refund_request(payment=payment, requested_by="member")
        except ApplicationError as error:
            assert error.code == "refund_not_allowed"
            assert offer is None
            return
        assert offer is not None and done.credits == offer["credits"] and done.amount == offer["amount"]
        done.refresh_from_db()
        assert done.status == RefundStatus.REFUNDED

    @rule(payment_id=payments, part=st.sampled_from([None, None, 1, 3]))
    def chargeback(self, payment_id: int, part: int | None):
        payment = Payment.objects.get(pk=payment_id)
        amount = None if part is None else max(1, payment.amount // (part + 1))
        try:
            sandbox_chargeback(provider_id=payment.provider_id, amount=amount, send_webhook=False)
        except GatewayError:
            return  # not paid, or nothing left to charge back
        self._sync(payment_id)

    @rule(payment_id=payments, times=st.integers(min_value=1, max_value=3))
    def webhook_again(self, payment_id: int, times: int):
        for _ in range(times):
            self._sync(payment_id)

    @rule(payment_id=payments, data=st.data())
    def late_answer(self, payment_id: int, data):
        """An older answer of the gateway applied after newer ones (a slow fetch)."""
        views = self.views.get(payment_id)
        if views:
            _apply(payment_id=payment_id, provider=data.draw(st.sampled_from(views)))

    @rule(days=st.integers(min_value=1, max_value=10))
    def time_passes(self, days: int):
        Payment.objects.filter(user=self.user, paid_at__isnull=False).update(
            paid_at=F("paid_at") - timedelta(days=days)
        )

    # --- Invariants -------------------------------------------------------------------

    @invariant()
    def the_ledger_invariants_hold(self):
        """All in four queries: the member, the ledger, the payments, the failed refunds."""
        user = fresh(self.user)
        entries = list(CreditEntry.objects.filter(user=user).values_list("payment_id", "kind", "credits", "owed"))
        payments = list(Payment.objects.filter(user=user))
        given_back: dict[int, int] = {}
        for payment_id, credits in Refund.objects.filter(payment__user=user, status=RefundStatus.FAILED).values_list(
            "payment_id", "credits"
        ):
            given_back[payment_id] = given_back.get(payment_id, 0) + credits

        # The balance is the ledger's sum, never negative; frozen exactly when owing.
        assert user.credits == sum(credits for _p, _k, credits, _o in entries) >= 0
        assert user.credits_owed == sum(owed for _p, _k, _c, owed in entries)
        assert user.credits_frozen == (user.credits_owed > 0)
        paid = [payment for payment in payments if payment.status == PaymentStatus.PAID]
        # Premium from the first purchase on.
        assert user.paid_user == bool(paid) and (user.premium_since is not None) == bool(paid)
        for payment in payments:
            mine = [(kind, credits, owed) for payment_id, kind, credits, owed in entries if payment_id == payment.pk]
            # Each paid payment granted its credits once; the others nothing.
            grants = [credits for kind, credits, _owed in mine if kind == EntryKind.PURCHASE]
            assert grants == ([payment.credits] if payment.status == PaymentStatus.PAID else [])
            assert (payment.paid_at is not None) == (payment.status == PaymentStatus.PAID)
            # Taken back never exceeds bought, and is what the ledger took or recorded as owed
            # (less what failed refunds gave back).
            assert payment.credits_refunded + payment.credits_charged_back <= payment.credits
            refunded = sum(owed - credits for kind, credits, owed in mine if kind == EntryKind.REFUND)
            charged_back = sum(owed - credits for kind, credits, owed in mine if kind == EntryKind.CHARGEBACK)
            assert refunded - given_back.get(payment.pk, 0) == payment.credits_refunded
            assert charged_back == payment.credits_charged_back


def test_the_payment_flow_keeps_the_ledger_invariants(in_site, django_capture_on_commit_callbacks):
    PaymentFlow.site = in_site
    PaymentFlow.capture = django_capture_on_commit_callbacks
    run_state_machine_as_test(
        PaymentFlow,
        settings=settings(
            max_examples=30,
            stateful_step_count=15,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
            database=None,
        ),
    )
