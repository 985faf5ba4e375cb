"""Refunds and chargebacks (issue 6 item 10): unused credits are refunded within the site's
refund_days, in proportion to what was paid; the credits are taken back once, whatever
the webhooks do; a refused refund gives them back; a refund made at the provider or a
chargeback takes the credits that correspond; a chargeback larger than the balance
freezes spending instead."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.common.exceptions import ApplicationError
from apps.credits.models import CreditEntry, EntryKind
from apps.credits.services import credits_adjust, credits_spend
from apps.payments.gateways.base import GatewayError, GatewayTimeout, ProviderRefund
from apps.payments.gateways.sandbox import SandboxGateway, sandbox_chargeback
from apps.payments.models import Payment, Refund, SandboxPayment
from apps.payments.services import payment_sync, payments_reconcile, refund_request, refund_send, refundable
from apps.payments.tests.helpers_core import assert_balanced, buy, buyer, fresh, ledger, start
from conftest import on_site

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _site_schema(in_site):
    return in_site


@pytest.fixture
def refund(django_capture_on_commit_callbacks):
    """refund_request as a request makes it: its after-commit call to the gateway runs."""

    def ask(payment, *, by: str = "member", now=None) -> Refund:
        with django_capture_on_commit_callbacks(execute=True):
            refund = refund_request(payment=payment, requested_by=by, now=now)
        refund.refresh_from_db()
        return refund

    return ask


def spend(user, credits: int) -> None:
    credits_spend(user=user, credits=credits, kind=EntryKind.MESSAGE, reference="test")


def sandbox_row(payment) -> SandboxPayment:
    return SandboxPayment.objects.get(id=payment.provider_id)


def refusal(excinfo) -> tuple[str, str]:
    return excinfo.value.code, str(excinfo.value.message)


class TestRefundRequest:
    def test_unused_credits_are_refunded_in_proportion(self, site, refund):
        user = buyer(site)
        payment = buy(site, user, credits=20)  # £12.95
        spend(user, 7)
        assert refundable(payment) == {
            "credits": 13,
            "amount": 841,  # 12.95 * 13 / 20 = 8.4175, rounded down
            "currency": "GBP",
            "until": payment.paid_at + timedelta(days=14),
        }
        done = refund(payment)
        assert (done.credits, done.amount, done.status, done.requested_by) == (13, 841, "refunded", "member")
        assert done.provider_id.startswith("re_sbx_")
        assert sandbox_row(payment).amount_refunded == 841
        user = assert_balanced(user)
        assert ledger(user) == [("purchase", 20, 0), ("message", -7, 0), ("refund", -13, 0)]
        payment.refresh_from_db()
        assert (payment.credits_refunded, payment.status) == (13, "paid")
        assert refundable(payment) is None
        # Premium stays.
        assert user.paid_user is True

    def test_the_webhook_after_a_refund_takes_nothing_more(self, site, refund, client_for):
        user = buyer(site)
        payment = buy(site, user, credits=50)
        spend(user, 1)
        refund(payment)
        for _ in range(3):
            payment_sync(payment=payment)
            assert client_for(site).post("/api/payment-webhook.php", {"id": payment.provider_id}).status_code == 200
        with on_site(site):
            user = assert_balanced(user)
            assert ledger(user) == [("purchase", 50, 0), ("message", -1, 0), ("refund", -49, 0)]
            payment.refresh_from_db()
            assert (payment.amount_refunded, payment.credits_refunded) == (2595 * 49 // 50, 49)

    def test_only_within_the_refund_period(self, site, refund):
        site.refund_days = 14
        user = buyer(site)
        payment = buy(site, user)
        last_moment = payment.paid_at + timedelta(days=14)
        assert refundable(payment, now=last_moment)["until"] == last_moment
        assert refundable(payment, now=last_moment + timedelta(seconds=1)) is None
        with pytest.raises(ApplicationError) as raised:
            refund(payment, now=last_moment + timedelta(seconds=1))
        assert refusal(raised) == ("refund_not_allowed", "The refund period of 14 days for this payment is over.")
        assert fresh(user).credits == 50
        assert not Refund.objects.exists()
        assert refund(payment, now=last_moment).credits == 50

    def test_the_sites_refund_days_count(self, site, refund):
        site.refund_days = 3
        user = buyer(site)
        payment = buy(site, user)
        Payment.objects.filter(pk=payment.pk).update(paid_at=timezone.now() - timedelta(days=4))
        payment.refresh_from_db()
        with pytest.raises(ApplicationError) as raised:
            refund(payment)
        assert refusal(raised) == ("refund_not_allowed", "The refund period of 3 days for this payment is over.")

    def test_nothing_unused_nothing_to_refund(self, site, refund):
        user = buyer(site)
        payment = buy(site, user, credits=20)
        spend(user, 20)
        assert refundable(payment) is None
        with pytest.raises(ApplicationError) as raised:
            refund(payment)
        assert refusal(raised) == (
            "refund_not_allowed",
            "There are no unused credits from this payment left to refund.",
        )
        assert ledger(user) == [("purchase", 20, 0), ("message", -20, 0)]

    def test_at_most_the_balance_across_payments(self, site, refund):
        user = buyer(site)
        first = buy(site, user, credits=20)
        second = buy(site, user, credits=50)
        spend(user, 60)  # 10 left of 70
        assert refundable(first)["credits"] == 10 and refundable(second)["credits"] == 10
        refund(second)
        assert refundable(first) is None
        assert fresh(user).credits == 0

    @pytest.mark.parametrize("action", ["fail", "cancel", "pending", None])
    def test_an_unpaid_payment_is_not_refunded(self, site, refund, action):
        user = buyer(site)
        payment = buy(site, user, action=action) if action else start(site, user)
        with pytest.raises(ApplicationError) as raised:
            refund(payment)
        assert refusal(raised) == (
            "refund_not_allowed",
            "This payment was not completed, so there is nothing to refund.",
        )

    def test_a_second_refund_of_the_same_payment_takes_only_what_is_left(self, site, refund):
        user = buyer(site)
        payment = buy(site, user, credits=20)
        spend(user, 15)
        refund(payment)  # 5
        credits_adjust(user=user, credits=30, staff_name="support", note="goodwill")
        again = refund(payment)
        assert again.credits == 15  # 20 bought, 5 refunded already
        payment.refresh_from_db()
        assert payment.credits_refunded == 20
        assert sandbox_row(payment).amount_refunded == 1295 * 5 // 20 + 1295 * 15 // 20
        assert refundable(payment) is None

    def test_refund_send_is_idempotent(self, site, refund, monkeypatch):
        user = buyer(site)
        payment = buy(site, user)
        calls: list[str] = []
        real = SandboxGateway.refund_create

        def counted(self, **kwargs):
            calls.append(kwargs["idempotency_key"])
            return real(self, **kwargs)

        monkeypatch.setattr(SandboxGateway, "refund_create", counted)
        done = refund(payment)
        for _ in range(3):
            assert refund_send(refund_id=done.pk).status == "refunded"
        assert calls == [done.idempotency_key]
        # The provider itself refunds once per key, even when asked again.
        Refund.objects.filter(pk=done.pk).update(status="requested")
        assert refund_send(refund_id=done.pk).provider_id == done.provider_id
        assert sandbox_row(payment).amount_refunded == 2595
        assert len(sandbox_row(payment).refunds) == 1
        assert ledger(user) == [("purchase", 50, 0), ("refund", -50, 0)]


class TestRefundFailures:
    def test_a_refused_refund_gives_the_credits_back(self, site, refund, monkeypatch):
        user = buyer(site)
        payment = buy(site, user, credits=20)

        def refuse(self, **kwargs):
            raise GatewayError("The refund amount is higher than the balance")

        monkeypatch.setattr(SandboxGateway, "refund_create", refuse)
        done = refund(payment)
        assert done.status == "failed"
        user = assert_balanced(user)
        assert ledger(user) == [("purchase", 20, 0), ("refund", -20, 0), ("adjustment", 20, 0)]
        assert CreditEntry.objects.get(kind="adjustment").note.startswith("Refund failed")
        payment.refresh_from_db()
        assert payment.credits_refunded == 0
        # It can be asked again.
        monkeypatch.undo()
        assert refund(payment).status == "refunded"
        assert fresh(user).credits == 0

    def test_a_refund_the_provider_gives_up(self, site, refund, monkeypatch):
        user = buyer(site)
        payment = buy(site, user, credits=20)
        monkeypatch.setattr(
            SandboxGateway, "refund_create", lambda self, **kwargs: ProviderRefund(id="re_x", status="failed", amount=1)
        )
        assert refund(payment).status == "failed"
        assert fresh(user).credits == 20

    def test_no_answer_keeps_the_refund_asked_and_the_reconcile_task_sends_it(self, site, refund, monkeypatch):
        user = buyer(site)
        payment = buy(site, user, credits=20)

        def timeout(self, **kwargs):
            raise GatewayTimeout("read timeout")

        monkeypatch.setattr(SandboxGateway, "refund_create", timeout)
        done = refund(payment)
        assert done.status == "requested"
        assert fresh(user).credits == 0  # taken at once: they may be refunded already
        monkeypatch.undo()
        assert payments_reconcile()["refunds"] == 0  # not before two minutes
        assert payments_reconcile(now=timezone.now() + timedelta(minutes=3))["refunds"] == 1
        done.refresh_from_db()
        assert done.status == "refunded"
        assert sandbox_row(payment).amount_refunded == 1295
        assert ledger(user) == [("purchase", 20, 0), ("refund", -20, 0)]

    def test_a_chargeback_before_the_refund_reached_the_provider(self, site, refund, monkeypatch):
        """The refund's credits are taken, the bank charges the whole payment back, then the
        provider refuses the refund: the credits come back and the chargeback takes them."""
        user = buyer(site)
        payment = buy(site, user, credits=20)
        monkeypatch.setattr(
            SandboxGateway, "refund_create", lambda self, **kwargs: (_ for _ in ()).throw(GatewayTimeout())
        )
        asked = refund(payment)
        sandbox_chargeback(provider_id=payment.provider_id)
        payment = payment_sync(payment=payment)
        assert (payment.credits_refunded, payment.credits_charged_back) == (20, 0)
        monkeypatch.undo()
        assert refund_send(refund_id=asked.pk).status == "failed"  # nothing left to refund
        payment.refresh_from_db()
        assert (payment.credits_refunded, payment.credits_charged_back) == (0, 20)
        user = assert_balanced(user)
        assert (user.credits, user.credits_owed, user.credits_frozen) == (0, 0, False)
        assert ledger(user) == [("purchase", 20, 0), ("refund", -20, 0), ("adjustment", 20, 0), ("chargeback", -20, 0)]


class TestProviderSide:
    def test_a_refund_made_at_the_provider_takes_the_credits_rounded_up(self, site):
        user = buyer(site)
        payment = buy(site, user, credits=50)
        gateway = SandboxGateway(site)
        gateway.refund_create(
            provider_id=payment.provider_id, amount=100, currency="GBP", description="r", idempotency_key="d1"
        )
        payment = payment_sync(payment=payment)
        assert payment.credits_refunded == 2  # 1.93 rounded up
        gateway.refund_create(
            provider_id=payment.provider_id, amount=2495, currency="GBP", description="r", idempotency_key="d2"
        )
        payment = payment_sync(payment=payment)
        assert payment.credits_refunded == 50  # a full refund takes all
        user = assert_balanced(user)
        assert ledger(user) == [("purchase", 50, 0), ("refund", -2, 0), ("refund", -48, 0)]

    def test_a_chargeback_larger_than_the_balance_freezes_spending(self, site):
        user = buyer(site)
        payment = buy(site, user, credits=50)
        spend(user, 45)
        sandbox_chargeback(provider_id=payment.provider_id)
        payment_sync(payment=payment)
        payment_sync(payment=payment)
        user = assert_balanced(user)
        assert (user.credits, user.credits_owed, user.credits_frozen) == (0, 45, True)
        assert ledger(user)[-1] == ("chargeback", -5, 45)
        with pytest.raises(ApplicationError) as raised:
            spend(user, 1)
        assert raised.value.code == "credits_frozen"
        with pytest.raises(ApplicationError) as raised:
            start(site, user)
        assert raised.value.code == "credits_frozen"
        assert refundable(Payment.objects.get(pk=payment.pk)) is None

    def test_partial_chargebacks_add_up_once(self, site):
        user = buyer(site)
        payment = buy(site, user, credits=20)
        for amount in (300, 300, 695):
            sandbox_chargeback(provider_id=payment.provider_id, amount=amount)
            payment_sync(payment=payment)
            payment_sync(payment=payment)
        payment.refresh_from_db()
        assert (payment.amount_charged_back, payment.credits_charged_back) == (1295, 20)
        assert [credits for kind, credits, _owed in ledger(user) if kind == "chargeback"] == [-5, -5, -10]

    def test_refunded_and_charged_back_never_exceed_what_was_bought(self, site, refund):
        user = buyer(site)
        payment = buy(site, user, credits=20)
        spend(user, 3)
        refund(payment)  # 17 credits, 1100 of 1295
        sandbox_chargeback(provider_id=payment.provider_id)  # the 195 left: 3.01 -> 4 credits by amount
        payment = payment_sync(payment=payment)
        assert (payment.credits_refunded, payment.credits_charged_back) == (17, 3)
        user = assert_balanced(user)
        assert (user.credits, user.credits_owed, user.credits_frozen) == (0, 3, True)
