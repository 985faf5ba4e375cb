"""The payments service (issue 6 items 3, 6, 7): starting a payment at the sandbox
gateway, following its state (forward only, credits once, premium on the first purchase,
the discount's use, the mandate), repeat orders on a mandate, SEPA debits that settle
later, the screens' view of a payment, and the reconcile task."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.common.exceptions import ApplicationError
from apps.credits.models import EntryKind
from apps.credits.services import credits_take_back
from apps.payments.discounts import TIME_BONUS_CODE
from apps.payments.gateways.base import GatewayError, GatewayTimeout, ProviderPayment, SignedMandate
from apps.payments.gateways.sandbox import (
    SandboxGateway,
    sandbox_chargeback,
    sandbox_checkout_decide,
    sandbox_mandate_set,
)
from apps.payments.models import CreditPackage, DiscountCodeUse, Mandate, Payment, SandboxPayment, Sequence
from apps.payments.services import (
    payment_charge_mandate,
    payment_payload,
    payment_start,
    payment_sync,
    payment_view_status,
    payments_reconcile,
)
from apps.payments.tasks import payments_reconcile as payments_reconcile_task
from apps.payments.tests.helpers_core import (
    EUR_PRICES,
    GBP_PRICES,
    assert_balanced,
    buy,
    buyer,
    fresh,
    ledger,
    package,
    site_request,
    start,
)
from conftest import on_site

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _site_schema(in_site):
    """Each test reads and writes in the demo site's schema (another site's in on_site)."""
    return in_site


def _payments(user) -> list[tuple[str, str]]:
    return list(Payment.objects.filter(user=user).values_list("status", "sequence"))


class TestStart:
    def test_a_card_payment_is_a_first_payment_open_at_the_sandbox(self, site):
        user = buyer(site)
        payment = start(site, user, credits=50, method="visa")
        with on_site(site):
            row = SandboxPayment.objects.get(id=payment.provider_id)
            assert payment.provider_id.startswith("tr_sbx_")
            assert (payment.status, payment.sequence, payment.gateway) == ("open", "first", "sandbox")
            assert (payment.credits, payment.currency, payment.amount, payment.list_amount) == (
                50,
                "GBP",
                GBP_PRICES[50],
                GBP_PRICES[50],
            )
            assert (payment.method, payment.country, payment.discount_code) == ("visa", "GB", "")
            assert payment.checkout_url == f"http://localhost/sandbox/checkout/{payment.provider_id}"
            assert row.redirect_url == f"http://localhost/credits/{payment.package_id}/visa?payment={payment.public_id}"
            assert row.webhook_url == "http://localhost/api/payment-webhook.php"
            # Visa is a card: Mollie's method "creditcard", for a customer made first.
            assert (row.method, row.sequence, row.amount, row.currency) == ("creditcard", "first", 2595, "GBP")
            assert row.customer_id.startswith("cst_sbx_")
            assert fresh(user).credits == 0

    def test_a_method_without_mandate_pays_one_off_in_euros(self, site):
        user = buyer(site, country="BE")
        payment = start(site, user, credits=20, method="bancontact")
        assert (payment.sequence, payment.currency, payment.amount, payment.status) == (
            "oneoff",
            "EUR",
            EUR_PRICES[20],
            "open",
        )
        with on_site(site):
            assert SandboxPayment.objects.get(id=payment.provider_id).customer_id == ""

    def test_the_time_bonus_lowers_the_price_and_is_used_once_paid(self, site):
        user = buyer(site, new=True)
        payment = start(site, user, credits=50, method="visa")
        assert (payment.discount_code, payment.discount_percentage) == (TIME_BONUS_CODE, 25)
        assert (payment.list_amount, payment.amount) == (2595, 1946)
        with on_site(site):
            assert not DiscountCodeUse.objects.filter(user=user).exists()
            sandbox_checkout_decide(provider_id=payment.provider_id, action="pay")
            payment_sync(payment=payment)
            assert list(DiscountCodeUse.objects.filter(user=user).values_list("code", "payment_id")) == [
                (TIME_BONUS_CODE, payment.pk)
            ]
            payment_sync(payment=payment)
            assert DiscountCodeUse.objects.filter(user=user).count() == 1
        # Used: the next purchase pays the list price.
        assert start(site, fresh(user), credits=20).amount == GBP_PRICES[20]

    def test_a_typed_code_that_does_not_exist_is_refused(self, site):
        user = buyer(site)
        with pytest.raises(ApplicationError) as raised:
            start(site, user, discount_code="NOSUCHCODE")
        assert (raised.value.code, str(raised.value.message)) == ("code_not_found", "Code not found")
        assert _payments(user) == []

    @pytest.mark.parametrize(
        ("case", "code", "message", "status"),
        [
            ("unknown_package", "package_not_found", "This credit package is not available.", 404),
            ("inactive_package", "package_not_found", "This credit package is not available.", 404),
            ("other_sites_package", "package_not_found", "This credit package is not available.", 404),
            (
                "method_of_another_country",
                "method_not_available",
                "This payment method is not available in your country.",
                409,
            ),
            ("unknown_method", "method_not_available", "This payment method is not available in your country.", 409),
            (
                "frozen",
                "credits_frozen",
                "Your credits are on hold after a reversed payment. Please contact customer service.",
                402,
            ),
            ("direct_debit_blocked", "direct_debit_blocked", "Your account is blocked for direct debit payments.", 403),
        ],
    )
    def test_refusals_create_nothing(self, site, gay_site, case, code, message, status):
        user = buyer(site, country="BE")
        package_id, method = package(site, 50).pk, "creditcard"
        if case == "unknown_package":
            package_id = 987654
        elif case == "inactive_package":
            CreditPackage.objects.filter(pk=package_id).update(is_active=False)
        elif case == "other_sites_package":
            package_id = package(gay_site, 50).pk
        elif case == "method_of_another_country":
            method = "blik"  # offered in Poland, not in Belgium
        elif case == "unknown_method":
            method = "bitcoin"
        elif case == "frozen":
            with on_site(site):
                credits_take_back(user=user, credits=5, kind=EntryKind.CHARGEBACK, key="test-freeze")
        elif case == "direct_debit_blocked":
            method = "directdebit"
            user.direct_debit_blocked = True
            user.save(update_fields=["direct_debit_blocked"])
        with on_site(site):
            at_the_gateway = SandboxPayment.objects.count()
            with pytest.raises(ApplicationError) as raised:
                payment_start(request=site_request(site, user), user=user, package_id=package_id, method=method)
            assert (raised.value.code, str(raised.value.message), raised.value.status_code) == (code, message, status)
            assert _payments(user) == []
            assert SandboxPayment.objects.count() == at_the_gateway

    def test_a_gateway_that_does_not_answer_loses_nothing(self, site, monkeypatch):
        user = buyer(site)

        def timeout(self, order):
            raise GatewayTimeout("read timeout")

        monkeypatch.setattr(SandboxGateway, "payment_create", timeout)
        with pytest.raises(ApplicationError) as raised:
            start(site, user)
        assert (raised.value.code, str(raised.value.message), raised.value.status_code) == (
            "gateway_unavailable",
            "An error occured, please try again later.",
            503,
        )
        with on_site(site):
            payment = Payment.objects.get(user=user)
            assert (payment.status, payment.provider_id, payment.checkout_url) == ("created", None, "")
            # The reconcile task expires it after an hour, not before.
            assert payments_reconcile(now=timezone.now() + timedelta(minutes=59))["expired"] == 0
            assert payments_reconcile(now=timezone.now() + timedelta(minutes=61))["expired"] == 1
            assert Payment.objects.get(pk=payment.pk).status == "expired"
        assert fresh(user).credits == 0


class TestSync:
    def test_paid_grants_the_credits_once_and_makes_the_member_premium(self, site):
        user = buyer(site)
        assert (user.paid_user, user.premium_since) == (False, None)
        payment = buy(site, user, credits=50)
        assert payment.status == "paid" and payment.paid_at is not None
        with on_site(site):
            for _ in range(4):
                payment_sync(payment=payment)
            user = assert_balanced(user)
            assert ledger(user) == [("purchase", 50, 0)]
        assert (user.credits, user.paid_user, user.premium_since) == (50, True, payment.paid_at)

    def test_premium_dates_from_the_first_purchase(self, site):
        user = buyer(site)
        first = buy(site, user, credits=20)
        buy(site, user, credits=50, method="applepay")
        user = fresh(user)
        assert (user.credits, user.premium_since) == (70, first.paid_at)

    @pytest.mark.parametrize(("action", "status"), [("fail", "failed"), ("cancel", "canceled"), ("pending", "pending")])
    def test_a_payment_not_paid_grants_nothing(self, site, action, status):
        user = buyer(site)
        payment = buy(site, user, action=action)
        assert payment.status == status
        user = fresh(user)
        assert (user.credits, user.paid_user, ledger(user)) == (0, False, [])

    def test_the_status_only_moves_forward(self, site, monkeypatch):
        user = buyer(site)
        payment = buy(site, user)
        with on_site(site):
            paid_at = payment.paid_at
            for late in ("open", "pending", "failed", "canceled", "expired", "something-new"):
                old_view = ProviderPayment(id=payment.provider_id, status=late, amount=2595, currency="GBP")
                monkeypatch.setattr(SandboxGateway, "payment_fetch", lambda self, provider_id, v=old_view: v)
                payment = payment_sync(payment=payment)
                assert (payment.status, payment.paid_at) == ("paid", paid_at)
            assert ledger(user) == [("purchase", 50, 0)]

    def test_a_final_failure_is_not_turned_into_paid(self, site, monkeypatch):
        user = buyer(site)
        payment = buy(site, user, action="cancel")
        late = ProviderPayment(id=payment.provider_id, status="paid", amount=2595, currency="GBP")
        monkeypatch.setattr(SandboxGateway, "payment_fetch", lambda self, provider_id: late)
        with on_site(site):
            assert payment_sync(payment=payment).status == "canceled"
        assert fresh(user).credits == 0

    def test_pending_then_paid(self, site):
        user = buyer(site)
        payment = buy(site, user, action="pending")
        with on_site(site):
            sandbox_checkout_decide(provider_id=payment.provider_id, action="pay")
            assert payment_sync(payment=payment).status == "paid"
        assert fresh(user).credits == 50

    def test_a_gateway_timeout_on_fetch_changes_nothing(self, site, monkeypatch):
        user = buyer(site)
        payment = start(site, user)
        with on_site(site):
            sandbox_checkout_decide(provider_id=payment.provider_id, action="pay")

            def timeout(self, provider_id):
                raise GatewayTimeout("read timeout")

            monkeypatch.setattr(SandboxGateway, "payment_fetch", timeout)
            with pytest.raises(GatewayTimeout):
                payment_sync(payment=payment)
            assert Payment.objects.get(pk=payment.pk).status == "open"
            monkeypatch.undo()
            assert payment_sync(payment=payment).status == "paid"
        assert fresh(user).credits == 50

    def test_a_first_payment_stores_the_mandate_and_the_customer_is_reused(self, site):
        user = buyer(site)
        payment = buy(site, user, method="visa")
        with on_site(site):
            mandate = Mandate.objects.get(user=user)
            assert (mandate.gateway, mandate.method, mandate.details, mandate.is_valid) == (
                "sandbox",
                "visa",
                "•••• 4242",
                True,
            )
            assert mandate.mandate_id.startswith("mdt_sbx_") and mandate.customer_id.startswith("cst_sbx_")
            assert payment.mandate_id == mandate.pk
            customers = SandboxPayment.objects.filter(sequence="customer").count()
        second = start(site, user, credits=20, method="mastercard")
        with on_site(site):
            assert SandboxPayment.objects.get(id=second.provider_id).customer_id == mandate.customer_id
            assert SandboxPayment.objects.filter(sequence="customer").count() == customers

    def test_a_one_off_payment_stores_no_mandate(self, site):
        user = buyer(site, country="BE")
        buy(site, user, method="bancontact")
        with on_site(site):
            assert not Mandate.objects.filter(user=user).exists()

    def test_view_status_and_payload(self, site):
        user = buyer(site)
        payment = start(site, user, credits=20)
        statuses = {
            "created": "loading",
            "open": "loading",
            "pending": "pending",
            "paid": "completed",
            "failed": "failed",
            "canceled": "failed",
            "expired": "failed",
        }
        for status, shown in statuses.items():
            payment.status = status
            assert payment_view_status(payment) == shown
        payment = buy(site, user, credits=20)
        with on_site(site):
            assert payment_payload(payment) == {
                "id": payment.public_id,
                "status": "completed",
                "credits": 20,
                "amount": 1295,
                "currency": "GBP",
                "method": "visa",
                "package_id": package(site, 20).pk,
                "balance": 20,
                "paid_user": True,
            }


class TestRepeatOrders:
    def _mandate(self, site, user, *, action="pay") -> Mandate:
        buy(site, user, credits=20, action=action)
        with on_site(site):
            return Mandate.objects.get(user=user)

    def _repeat(self, site, user, mandate, *, credits=50) -> Payment:
        with on_site(site):
            return payment_charge_mandate(
                request=site_request(site, user), user=user, package_id=package(site, credits).pk, mandate=mandate
            )

    def test_a_repeat_order_is_paid_at_once(self, site):
        user = buyer(site)
        mandate = self._mandate(site, user)
        payment = self._repeat(site, user, mandate)
        assert (payment.status, payment.sequence, payment.mandate_id, payment.method, payment.checkout_url) == (
            "paid",
            Sequence.RECURRING,
            mandate.pk,
            "visa",
            "",
        )
        user = assert_balanced(user)
        assert user.credits == 70
        with on_site(site):
            assert payment_sync(payment=payment).status == "paid"
        assert fresh(user).credits == 70

    def test_a_declined_repeat_order_fails_and_changes_no_credits(self, site):
        user = buyer(site)
        mandate = self._mandate(site, user, action="pay_decline")
        payment = self._repeat(site, user, mandate)
        assert payment.status == "failed"
        assert fresh(user).credits == 20
        with on_site(site):
            assert Mandate.objects.get(pk=mandate.pk).is_valid  # the card works; this order failed

    def test_a_revoked_mandate_fails_the_order_and_is_marked_invalid(self, site):
        user = buyer(site)
        mandate = self._mandate(site, user)
        with on_site(site):
            sandbox_mandate_set(mandate_id=mandate.mandate_id, status="invalid")
        payment = self._repeat(site, user, mandate)
        assert (payment.status, payment.provider_id) == ("failed", None)
        with on_site(site):
            assert Mandate.objects.get(pk=mandate.pk).is_valid is False
            mandate.refresh_from_db()
        with pytest.raises(ApplicationError) as raised:
            self._repeat(site, user, mandate)
        assert raised.value.code == "mandate_not_valid"

    def test_another_members_mandate_is_refused(self, site):
        owner, other = buyer(site), buyer(site)
        mandate = self._mandate(site, owner)
        with pytest.raises(ApplicationError) as raised:
            self._repeat(site, other, mandate)
        assert raised.value.code == "mandate_not_valid"
        with on_site(site):
            assert _payments(other) == []

    def test_a_repeat_order_when_the_gateway_does_not_answer(self, site, monkeypatch):
        user = buyer(site)
        mandate = self._mandate(site, user)

        def timeout(self, order):
            raise GatewayTimeout("connect timeout")

        monkeypatch.setattr(SandboxGateway, "payment_create", timeout)
        with pytest.raises(ApplicationError) as raised:
            self._repeat(site, user, mandate)
        assert raised.value.code == "gateway_unavailable"
        with on_site(site):
            assert Payment.objects.filter(user=user, sequence="recurring").get().status == "created"
            assert Mandate.objects.get(pk=mandate.pk).is_valid

    def test_a_gateway_refusal_not_about_the_mandate_keeps_it(self, site, monkeypatch):
        user = buyer(site)
        mandate = self._mandate(site, user)

        def refuse(self, order):
            raise GatewayError("The amount is higher than the maximum")

        monkeypatch.setattr(SandboxGateway, "payment_create", refuse)
        assert self._repeat(site, user, mandate).status == "failed"
        with on_site(site):
            assert Mandate.objects.get(pk=mandate.pk).is_valid


class TestDirectDebit:
    def _sepa_mandate(self, site, user) -> Mandate:
        with on_site(site):
            gateway = SandboxGateway(site)
            customer = gateway.customer_create(name="Dirk", email="d@example.com", metadata={})
            mandate_id, details = gateway.mandate_create(
                SignedMandate(
                    customer_id=customer,
                    consumer_name="Dirk",
                    consumer_account="BE68539007547034",
                    signature_date="2025-01-01",
                    mandate_reference="TEST-1",
                )
            )
            assert details == "BE** **** **** 7034"
            return Mandate.objects.create(
                user=user, gateway="sandbox", customer_id=customer, mandate_id=mandate_id, method="directdebit"
            )

    def test_a_sepa_debit_is_pending_then_settles(self, site, settings):
        settings.SANDBOX_DIRECT_DEBIT_SETTLE_SECONDS = 5
        user = buyer(site, country="BE")
        mandate = self._sepa_mandate(site, user)
        with on_site(site):
            payment = payment_charge_mandate(
                request=site_request(site, user), user=user, package_id=package(site, 20).pk, mandate=mandate
            )
            assert (payment.status, payment.currency, payment.amount) == ("pending", "EUR", 1495)
            assert payment_sync(payment=payment).status == "pending"
            assert fresh(user).credits == 0
            SandboxPayment.objects.filter(id=payment.provider_id).update(created=timezone.now() - timedelta(seconds=6))
            assert payment_sync(payment=payment).status == "paid"
        user = fresh(user)
        assert (user.credits, user.paid_user, user.direct_debit_blocked) == (20, True, False)

    def test_a_failed_sepa_debit_blocks_direct_debit(self, site):
        user = buyer(site, country="BE")
        mandate = self._sepa_mandate(site, user)
        with on_site(site):
            sandbox_mandate_set(mandate_id=mandate.mandate_id, status="decline")
            payment = payment_charge_mandate(
                request=site_request(site, user), user=user, package_id=package(site, 20).pk, mandate=mandate
            )
        assert payment.status == "failed"
        assert fresh(user).direct_debit_blocked is True
        with on_site(site), pytest.raises(ApplicationError) as raised:
            payment_charge_mandate(
                request=site_request(site, user), user=user, package_id=package(site, 20).pk, mandate=mandate
            )
        assert str(raised.value.message) == "Your account is blocked for direct debit payments."

    def test_a_charged_back_sepa_debit_blocks_direct_debit(self, site, settings):
        settings.SANDBOX_DIRECT_DEBIT_SETTLE_SECONDS = 0
        user = buyer(site, country="BE")
        mandate = self._sepa_mandate(site, user)
        with on_site(site):
            payment = payment_charge_mandate(
                request=site_request(site, user), user=user, package_id=package(site, 20).pk, mandate=mandate
            )
            payment = payment_sync(payment=payment)
            assert payment.status == "paid" and not fresh(user).direct_debit_blocked
            sandbox_chargeback(provider_id=payment.provider_id)
            payment_sync(payment=payment)
        assert fresh(user).direct_debit_blocked is True

    def test_a_card_chargeback_does_not_block_direct_debit(self, site):
        user = buyer(site)
        payment = buy(site, user)
        with on_site(site):
            sandbox_chargeback(provider_id=payment.provider_id)
            payment_sync(payment=payment)
        assert fresh(user).direct_debit_blocked is False


class TestReconcile:
    def test_payments_left_open_are_fetched_after_two_minutes(self, site):
        user = buyer(site)
        payment = start(site, user)
        with on_site(site):
            # Paid at the checkout, but the webhook was lost.
            sandbox_checkout_decide(provider_id=payment.provider_id, action="pay")
            assert payments_reconcile()["synced"] == 0
            assert Payment.objects.get(pk=payment.pk).status == "open"
            counts = payments_reconcile(now=timezone.now() + timedelta(minutes=3))
            assert counts["synced"] >= 1
            assert Payment.objects.get(pk=payment.pk).status == "paid"
        assert fresh(user).credits == 50

    def test_a_gateway_error_on_one_payment_does_not_stop_the_others(self, site, monkeypatch):
        user = buyer(site)
        first, second = start(site, user), start(site, user, credits=20)
        with on_site(site):
            sandbox_checkout_decide(provider_id=second.provider_id, action="pay")
            real_fetch = SandboxGateway.payment_fetch

            def flaky(self, provider_id):
                if provider_id == first.provider_id:
                    raise GatewayTimeout("read timeout")
                return real_fetch(self, provider_id)

            monkeypatch.setattr(SandboxGateway, "payment_fetch", flaky)
            counts = payments_reconcile(now=timezone.now() + timedelta(minutes=3))
            assert counts["errors"] == 1
            assert Payment.objects.get(pk=second.pk).status == "paid"

    def test_open_checkouts_expire_at_the_sandbox_after_an_hour(self, site):
        user = buyer(site)
        payment = start(site, user)
        with on_site(site):
            SandboxPayment.objects.filter(id=payment.provider_id).update(created=timezone.now() - timedelta(hours=2))
            payments_reconcile(now=timezone.now() + timedelta(minutes=3))
            assert Payment.objects.get(pk=payment.pk).status == "expired"

    def test_the_periodic_task_visits_every_site(self, site, gay_site):
        here, there = buyer(site), buyer(gay_site, country="NL")
        paid_here = start(site, here)
        paid_there = start(gay_site, there, method="ideal")
        for some_site, payment in ((site, paid_here), (gay_site, paid_there)):
            with on_site(some_site):
                sandbox_checkout_decide(provider_id=payment.provider_id, action="pay")
                Payment.objects.filter(pk=payment.pk).update(created=timezone.now() - timedelta(minutes=3))
        totals = payments_reconcile_task.delay().get()
        assert totals["synced"] >= 2
        with on_site(site):
            assert fresh(here).credits == 50
        with on_site(gay_site):
            assert fresh(there).credits == 50
            assert Payment.objects.get(pk=paid_there.pk).currency == "EUR"

    def test_the_task_is_scheduled(self, settings):
        entry = settings.CELERY_BEAT_SCHEDULE["payments-reconcile"]
        assert (entry["task"], entry["schedule"]) == ("apps.payments.tasks.payments_reconcile", 300)
