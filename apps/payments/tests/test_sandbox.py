"""The sandbox gateway (issue 6 item 6): its hosted checkout page (pay, pay and decline
repeat orders, fail, cancel, leave pending), the webhook it sends and the return to the
site, refunds with an idempotency key, chargebacks (function, button, command)."""

import io
from urllib.parse import urlsplit

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from apps.payments import tasks
from apps.payments.gateways.base import GatewayError
from apps.payments.gateways.sandbox import SandboxGateway, sandbox_chargeback, sandbox_checkout_decide
from apps.payments.models import Mandate, Payment, SandboxPayment
from apps.payments.services import payment_sync
from apps.payments.tests.helpers_core import buy, buyer, fresh, ledger, start
from apps.tenants.middleware import site_cache_clear
from apps.tenants.models import Site
from conftest import on_site, site_client

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _site_schema(in_site):
    return in_site


@pytest.fixture
def webhooks(monkeypatch):
    """The sandbox's webhook calls reach the site through the test client (no server
    listens in these tests); after-commit work runs when the block ends."""
    calls: list[tuple[str, dict]] = []

    class Answer:
        def __init__(self, status_code: int) -> None:
            self.status_code = status_code

    def post(url, data, timeout, headers=None):
        calls.append((url, data))
        parts = urlsplit(url)
        response = Client(HTTP_HOST=parts.hostname).post(parts.path, data)
        return Answer(response.status_code)

    monkeypatch.setattr(tasks.httpx, "post", post)
    return calls


def checkout(client, payment, action: str | None = None, *, capture=None):
    path = f"/sandbox/checkout/{payment.provider_id}"
    if action is None:
        return client.get(path)
    if capture is None:
        return client.post(path, {"action": action})
    with capture(execute=True):
        return client.post(path, {"action": action})


class TestCheckoutPage:
    def test_the_page_shows_the_payment_and_the_choices(self, site):
        payment = start(site, buyer(site), credits=50, method="visa")
        response = checkout(site_client(site), payment)
        assert response.status_code == 200
        html = response.content.decode()
        assert "Test payment — no money moves" in html
        assert 'data-testid="sandbox-amount">£25.95<' in html
        assert 'data-testid="sandbox-currency">GBP<' in html
        assert 'data-testid="sandbox-method">Credit card<' in html
        for testid in ("sandbox-pay", "sandbox-pay-decline", "sandbox-fail", "sandbox-cancel", "sandbox-pending"):
            assert f'data-testid="{testid}"' in html
        assert "no-cache" in response["Cache-Control"]

    def test_a_one_off_payment_cannot_decline_repeat_orders(self, site):
        payment = start(site, buyer(site, country="BE"), method="bancontact")
        client = site_client(site)
        html = checkout(client, payment).content.decode()
        assert 'data-testid="sandbox-pay"' in html
        assert 'data-testid="sandbox-pay-decline"' not in html
        response = checkout(client, payment, "pay_decline")
        assert response.status_code == 409
        assert SandboxPayment.objects.get(id=payment.provider_id).status == "open"

    def test_pay_sends_the_webhook_and_returns_to_the_site(self, site, webhooks, django_capture_on_commit_callbacks):
        user = buyer(site)
        payment = start(site, user)
        response = checkout(site_client(site), payment, "pay", capture=django_capture_on_commit_callbacks)
        assert response.status_code == 302
        assert response["Location"] == (
            f"http://localhost/credits/{payment.package_id}/visa?payment={payment.public_id}"
        )
        assert webhooks == [("http://localhost/api/payment-webhook.php", {"id": payment.provider_id})]
        payment.refresh_from_db()
        assert payment.status == "paid"
        user = fresh(user)
        assert (user.credits, user.paid_user) == (50, True)
        assert Mandate.objects.filter(user=user, is_valid=True).count() == 1

    @pytest.mark.parametrize(("action", "status"), [("fail", "failed"), ("cancel", "canceled"), ("pending", "pending")])
    def test_the_other_choices(self, site, webhooks, django_capture_on_commit_callbacks, action, status):
        user = buyer(site)
        payment = start(site, user)
        response = checkout(site_client(site), payment, action, capture=django_capture_on_commit_callbacks)
        assert response.status_code == 302
        payment.refresh_from_db()
        assert (payment.status, fresh(user).credits) == (status, 0)
        assert not Mandate.objects.filter(user=user).exists()

    def test_a_pending_payment_can_still_be_decided(self, site):
        payment = start(site, buyer(site))
        client = site_client(site)
        checkout(client, payment, "pending")
        html = checkout(client, payment).content.decode()
        assert 'data-testid="sandbox-pay"' in html and 'data-testid="sandbox-pending"' not in html
        assert checkout(client, payment, "pay").status_code == 302
        assert SandboxPayment.objects.get(id=payment.provider_id).status == "paid"

    def test_a_decided_payment_cannot_be_decided_again(self, site):
        payment = start(site, buyer(site))
        client = site_client(site)
        checkout(client, payment, "fail")
        response = checkout(client, payment, "pay")
        assert response.status_code == 409
        assert "This test payment cannot be changed that way any more." in response.content.decode()
        assert SandboxPayment.objects.get(id=payment.provider_id).status == "failed"

    def test_an_unknown_action_changes_nothing(self, site):
        payment = start(site, buyer(site))
        assert checkout(site_client(site), payment, "steal").status_code == 409
        assert SandboxPayment.objects.get(id=payment.provider_id).status == "open"

    def test_pay_and_decline_repeat_orders(self, site):
        user = buyer(site)
        payment = buy(site, user, action="pay_decline")
        assert payment.status == "paid"
        mandate_row = SandboxPayment.objects.get(id=Mandate.objects.get(user=user).mandate_id)
        assert mandate_row.status == "decline"

    def test_unknown_ids_and_other_gateways_get_404(self, site, gay_site):
        payment = start(site, buyer(site))
        client = site_client(site)
        assert client.get("/sandbox/checkout/tr_sbx_madeup").status_code == 404
        # A customer or mandate row is not a checkout.
        customer = SandboxPayment.objects.get(id=payment.provider_id).customer_id
        assert client.get(f"/sandbox/checkout/{customer}").status_code == 404
        # Another site's schema does not hold the payment.
        assert site_client(gay_site).get(f"/sandbox/checkout/{payment.provider_id}").status_code == 404
        Site.objects.filter(pk=site.pk).update(payment_gateway="mollie")
        site_cache_clear()
        assert checkout(client, payment).status_code == 404
        assert checkout(client, payment, "pay").status_code == 404
        assert SandboxPayment.objects.get(id=payment.provider_id).status == "open"

    def test_the_chargeback_button(self, site, webhooks, django_capture_on_commit_callbacks):
        user = buyer(site)
        payment = buy(site, user)
        client = site_client(site)
        html = checkout(client, payment).content.decode()
        assert 'data-testid="sandbox-chargeback"' in html and 'data-testid="sandbox-pay"' not in html
        response = checkout(client, payment, "chargeback", capture=django_capture_on_commit_callbacks)
        assert response.status_code == 200
        assert "The chargeback was sent to the site." in response.content.decode()
        assert 'data-testid="sandbox-chargeback"' not in response.content.decode()
        user = fresh(user)
        assert (user.credits, user.credits_frozen) == (0, False)
        assert ledger(user) == [("purchase", 50, 0), ("chargeback", -50, 0)]


class TestGateway:
    def test_refunds_honour_the_idempotency_key(self, site):
        payment = buy(site, buyer(site))
        gateway = SandboxGateway(site)
        first = gateway.refund_create(
            provider_id=payment.provider_id, amount=1000, currency="GBP", description="r", idempotency_key="k1"
        )
        again = gateway.refund_create(
            provider_id=payment.provider_id, amount=1000, currency="GBP", description="r", idempotency_key="k1"
        )
        assert first == again and first.id.startswith("re_sbx_")
        assert SandboxPayment.objects.get(id=payment.provider_id).amount_refunded == 1000
        gateway.refund_create(
            provider_id=payment.provider_id, amount=1595, currency="GBP", description="r", idempotency_key="k2"
        )
        assert gateway.payment_fetch(payment.provider_id).amount_refunded == 2595
        with pytest.raises(GatewayError):
            gateway.refund_create(
                provider_id=payment.provider_id, amount=1, currency="GBP", description="r", idempotency_key="k3"
            )

    def test_only_paid_payments_are_refunded_or_charged_back(self, site):
        payment = start(site, buyer(site))
        gateway = SandboxGateway(site)
        with pytest.raises(GatewayError):
            gateway.refund_create(
                provider_id=payment.provider_id, amount=100, currency="GBP", description="r", idempotency_key="k"
            )
        with pytest.raises(GatewayError):
            sandbox_chargeback(provider_id=payment.provider_id)

    def test_a_chargeback_takes_at_most_what_is_left(self, site):
        payment = buy(site, buyer(site))
        sandbox_chargeback(provider_id=payment.provider_id, amount=500)
        with pytest.raises(GatewayError):
            sandbox_chargeback(provider_id=payment.provider_id, amount=2596 - 500)
        row = sandbox_chargeback(provider_id=payment.provider_id)
        assert row.amount_charged_back == 2595

    def test_a_fetch_of_an_unknown_payment_is_an_error(self, site):
        with pytest.raises(GatewayError):
            SandboxGateway(site).payment_fetch("tr_sbx_nothing")

    def test_a_decision_on_a_recurring_payment_is_refused(self, site):
        user = buyer(site)
        buy(site, user)
        from apps.payments.services import payment_charge_mandate
        from apps.payments.tests.helpers_core import package, site_request

        repeat = payment_charge_mandate(
            request=site_request(site, user),
            user=user,
            package_id=package(site, 20).pk,
            mandate=Mandate.objects.get(user=user),
        )
        with pytest.raises(GatewayError):
            sandbox_checkout_decide(provider_id=repeat.provider_id, action="fail")
        assert site_client(site).get(f"/sandbox/checkout/{repeat.provider_id}").status_code == 404


class TestWebhookSender:
    def test_no_listener_is_not_an_error_when_run_eagerly(self):
        assert (
            tasks.payment_webhook_send.delay(url="http://127.0.0.1:9/api/payment-webhook.php", provider_id="x").get()
            is False
        )

    def test_a_site_that_answers(self, site, webhooks):
        payment = start(site, buyer(site))
        sandbox_checkout_decide(provider_id=payment.provider_id, action="pay")
        result = tasks.payment_webhook_send.delay(
            url="http://localhost/api/payment-webhook.php", provider_id=payment.provider_id
        ).get()
        assert result is True
        assert Payment.objects.get(pk=payment.pk).status == "paid"


class TestChargebackCommand:
    def test_the_command_charges_back_and_applies_it(self, site):
        user = buyer(site)
        payment = buy(site, user, credits=20)
        out = io.StringIO()
        call_command("sandbox_chargeback", payment.provider_id, "647", stdout=out)
        assert "10 credits taken back" in out.getvalue()
        with on_site(site):
            assert Payment.objects.get(pk=payment.pk).amount_charged_back == 647
            assert fresh(user).credits == 10

    def test_an_unknown_payment(self):
        with pytest.raises(CommandError):
            call_command("sandbox_chargeback", "tr_sbx_madeup", stdout=io.StringIO())

    def test_too_much(self, site):
        payment = buy(site, buyer(site), credits=20)
        with pytest.raises(CommandError):
            call_command("sandbox_chargeback", payment.provider_id, "99999", stdout=io.StringIO())


def test_payment_sync_of_a_payment_never_accepted_is_a_no_op(site):
    user = buyer(site)
    payment = Payment.objects.create(
        user=user,
        package_id=1,
        credits=20,
        currency="GBP",
        list_amount=1295,
        amount=1295,
        method="visa",
        gateway="sandbox",
    )
    assert payment_sync(payment=payment).status == "created"
