"""POST /api/payment-webhook.php (issue 6 item 6): the webhook only names the payment and
the state is fetched server-side, so it is idempotent and safe when repeated, at once or
out of order; a made-up id changes nothing and reveals nothing; a gateway that does not
answer gets a 503 so the provider retries."""

import itertools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.test import Client

from apps.accounts.models import User
from apps.credits.models import CreditEntry
from apps.payments import views_gateway
from apps.payments.gateways.base import GatewayError, GatewayTimeout
from apps.payments.gateways.sandbox import SandboxGateway, sandbox_chargeback, sandbox_checkout_decide
from apps.payments.models import DiscountCodeUse, Mandate, Payment, Refund, SandboxPayment
from apps.payments.tests.helpers_core import assert_balanced, buy, buyer, fresh, ledger, start
from apps.profiles.models import Profile
from conftest import on_site, site_client

pytestmark = pytest.mark.django_db

URL = "/api/payment-webhook.php"


def webhook(client: Client, provider_id: str):
    return client.post(URL, {"id": provider_id})


def paid_at_the_sandbox(site, user) -> Payment:
    """A payment the member paid at the checkout; the site has not heard of it yet."""
    payment = start(site, user)
    with on_site(site):
        sandbox_checkout_decide(provider_id=payment.provider_id, action="pay")
    return payment


class TestWebhook:
    @pytest.fixture(autouse=True)
    def _site_schema(self, in_site):
        return in_site

    def test_the_same_webhook_five_times_grants_once(self, site):
        user = buyer(site, new=True)  # with the time bonus, whose use is recorded once
        payment = paid_at_the_sandbox(site, user)
        client = Client(HTTP_HOST="localhost", enforce_csrf_checks=True)  # no session, no CSRF token
        for _ in range(5):
            response = webhook(client, payment.provider_id)
            assert (response.status_code, response.content) == (200, b"")
        payment.refresh_from_db()
        assert payment.status == "paid"
        user = assert_balanced(user)
        assert (user.credits, user.paid_user) == (50, True)
        assert ledger(user) == [("purchase", 50, 0)]
        assert DiscountCodeUse.objects.filter(user=user).count() == 1
        assert Mandate.objects.filter(user=user).count() == 1

    def test_a_made_up_id_changes_nothing(self, site, monkeypatch):
        user = buyer(site)
        payment = paid_at_the_sandbox(site, user)
        fetched: list[str] = []
        real_fetch = SandboxGateway.payment_fetch
        monkeypatch.setattr(
            SandboxGateway,
            "payment_fetch",
            lambda self, provider_id: fetched.append(provider_id) or real_fetch(self, provider_id),
        )
        client = site_client(site)
        for made_up in ("tr_sbx_0000000000000000", "tr_WDqYK6vllg"):
            response = webhook(client, made_up)
            assert (response.status_code, response.content) == (200, b"")
        # Not an id at all: refused as bad input, in the JSON error shape.
        for malformed in ("'; DROP TABLE payments_payment; --", "tr_\x00x", "", "x" * 101):
            response = webhook(client, malformed)
            assert response.status_code == 400
            assert response.json()["error"]["code"] == "invalid"
        assert fetched == []  # nothing asked at the gateway for ids we never made
        assert Payment.objects.get(pk=payment.pk).status == "open"
        assert fresh(user).credits == 0

    def test_another_sites_payment_is_unknown_here(self, site, gay_site):
        user = buyer(site)
        payment = paid_at_the_sandbox(site, user)
        assert webhook(site_client(gay_site), payment.provider_id).status_code == 200
        with on_site(site):  # the request left the connection on the other site
            assert Payment.objects.get(pk=payment.pk).status == "open"

    @pytest.mark.parametrize("data", [{}, {"id": ""}, {"id": "x" * 101}])
    def test_a_missing_or_odd_id_is_a_bad_request(self, site, data):
        assert site_client(site).post(URL, data).status_code == 400

    def test_only_post(self, site):
        assert site_client(site).get(URL, {"id": "tr_sbx_x"}).status_code == 405

    def test_a_provider_timeout_asks_the_provider_to_retry(self, site, monkeypatch):
        user = buyer(site)
        payment = paid_at_the_sandbox(site, user)

        def timeout(self, provider_id):
            raise GatewayTimeout("read timeout")

        monkeypatch.setattr(SandboxGateway, "payment_fetch", timeout)
        client = site_client(site)
        assert webhook(client, payment.provider_id).status_code == 503
        assert Payment.objects.get(pk=payment.pk).status == "open"
        assert fresh(user).credits == 0
        monkeypatch.undo()
        # The provider's retry.
        assert webhook(client, payment.provider_id).status_code == 200
        assert fresh(user).credits == 50

    def test_a_gateway_error_is_not_a_success(self, site, monkeypatch):
        payment = paid_at_the_sandbox(site, buyer(site))

        def refused(self, provider_id):
            raise GatewayError("401 Unauthorized")

        monkeypatch.setattr(SandboxGateway, "payment_fetch", refused)
        assert webhook(site_client(site), payment.provider_id).status_code == 502

    def test_rate_limited_per_address(self, site, monkeypatch):
        monkeypatch.setattr(views_gateway, "WEBHOOK_RATE_LIMIT", "3/m/ip")
        payment = paid_at_the_sandbox(site, buyer(site))
        client = site_client(site, REMOTE_ADDR="203.0.113.9")
        assert [webhook(client, payment.provider_id).status_code for _ in range(4)] == [200, 200, 200, 429]
        other = site_client(site, REMOTE_ADDR="203.0.113.10")
        assert webhook(other, payment.provider_id).status_code == 200

    def test_shuffled_paid_refund_and_chargeback_webhooks_end_in_the_same_ledger(self, site, monkeypatch):
        """The gateway's answers can arrive in any order (parallel fetches finishing late):
        paid; paid and partly refunded at the provider; and then charged back. Every order
        ends in the same ledger."""
        gateway = SandboxGateway(site)
        outcomes = set()
        for order in itertools.permutations(range(3)):
            user = buyer(site)
            payment = paid_at_the_sandbox(site, user)
            views = [gateway.payment_fetch(payment.provider_id)]
            gateway.refund_create(
                provider_id=payment.provider_id, amount=1000, currency="GBP", description="r", idempotency_key="d"
            )
            views.append(gateway.payment_fetch(payment.provider_id))
            sandbox_chargeback(provider_id=payment.provider_id, send_webhook=False)
            views.append(gateway.payment_fetch(payment.provider_id))
            answers = [views[i] for i in order]
            monkeypatch.setattr(SandboxGateway, "payment_fetch", lambda self, provider_id, a=answers: a.pop(0))
            client = site_client(site)
            for _ in range(3):
                assert webhook(client, payment.provider_id).status_code == 200
            monkeypatch.undo()
            # And the webhooks the provider repeats later change nothing.
            for _ in range(2):
                webhook(client, payment.provider_id)
            payment.refresh_from_db()
            user = assert_balanced(user)
            outcomes.add(
                (
                    tuple(ledger(user)),
                    user.credits,
                    payment.status,
                    payment.credits_refunded,
                    payment.credits_charged_back,
                    payment.amount_refunded,
                    payment.amount_charged_back,
                )
            )
        # 1000 of 2595 refunded: 20 of 50 credits (19.3, rounded up); the rest charged
        # back: 31 by amount, but only the 30 that were not refunded.
        assert outcomes == {
            ((("purchase", 50, 0), ("refund", -20, 0), ("chargeback", -30, 0)), 0, "paid", 20, 30, 1000, 1595)
        }


class TestConcurrentWebhooks:
    """Two webhooks for the same payment at the same moment, each in a thread with its
    own connection on committed rows (the test's own transaction would hide them; not
    `transaction=True`, whose flush would empty the public schema's sites). Both fetch
    the state first, then race for the payment's row lock."""

    @pytest.fixture
    def committed(self, site, django_db_blocker):
        made: dict[str, list] = {"users": [], "sandbox": []}

        def in_thread(fn: Callable, *args):
            try:
                with on_site(site):
                    return fn(*args)
            finally:
                connection.close()

        def run(fn: Callable, *args):
            with ThreadPoolExecutor(max_workers=1) as pool:
                return pool.submit(in_thread, fn, *args).result()

        def parallel(fn: Callable, args: list) -> list:
            with ThreadPoolExecutor(max_workers=len(args)) as pool:
                return list(pool.map(lambda arg: in_thread(fn, arg), args))

        def cleanup() -> None:
            users = made["users"]
            CreditEntry.objects.filter(user_id__in=users).delete()
            DiscountCodeUse.objects.filter(user_id__in=users).delete()
            Refund.objects.filter(payment__user_id__in=users).delete()
            provider_ids = list(Payment.objects.filter(user_id__in=users).values_list("provider_id", flat=True))
            Payment.objects.filter(user_id__in=users).delete()
            Mandate.objects.filter(user_id__in=users).delete()
            customers = SandboxPayment.objects.filter(id__in=provider_ids).values_list("customer_id", flat=True)
            SandboxPayment.objects.filter(customer_id__in=list(customers)).delete()
            SandboxPayment.objects.filter(id__in=list(customers)).delete()
            Profile.objects.filter(user_id__in=users).delete()
            User.objects.filter(pk__in=users).delete()

        with django_db_blocker.unblock():
            run.parallel = parallel
            run.made = made
            try:
                yield run
            finally:
                run(cleanup)

    def test_two_webhooks_at_once_grant_once(self, site, committed, monkeypatch):
        def prepare() -> tuple[int, str]:
            user = buyer(site, new=True)
            payment = paid_at_the_sandbox(site, user)
            return user.pk, payment.provider_id

        user_id, provider_id = committed(prepare)
        committed.made["users"].append(user_id)

        both_fetched = threading.Barrier(2, timeout=10)
        real_fetch = SandboxGateway.payment_fetch

        def fetch_then_wait(self, provider_id):
            answer = real_fetch(self, provider_id)
            both_fetched.wait()  # neither applies before both have fetched "paid"
            return answer

        monkeypatch.setattr(SandboxGateway, "payment_fetch", fetch_then_wait)
        statuses = committed.parallel(
            lambda n: webhook(site_client(site, REMOTE_ADDR=f"198.51.100.{n}"), provider_id).status_code, [1, 2]
        )
        assert statuses == [200, 200]

        def outcome(user_id: int) -> dict:
            user = User.objects.get(pk=user_id)
            return {
                "credits": user.credits,
                "paid_user": user.paid_user,
                "ledger": ledger(user),
                "discount_uses": DiscountCodeUse.objects.filter(user=user).count(),
                "mandates": Mandate.objects.filter(user=user).count(),
                "status": Payment.objects.get(user=user).status,
            }

        assert committed(outcome, user_id) == {
            "credits": 50,
            "paid_user": True,
            "ledger": [("purchase", 50, 0)],
            "discount_uses": 1,
            "mandates": 1,
            "status": "paid",
        }

    def test_concurrent_refund_and_chargeback_webhooks_take_back_once(self, site, committed, monkeypatch):
        def prepare() -> tuple[int, str]:
            user = buyer(site)
            payment = buy(site, user)
            SandboxGateway(site).refund_create(
                provider_id=payment.provider_id, amount=2595, currency="GBP", description="r", idempotency_key="all"
            )
            return user.pk, payment.provider_id

        user_id, provider_id = committed(prepare)
        committed.made["users"].append(user_id)
        barrier = threading.Barrier(4, timeout=10)
        real_fetch = SandboxGateway.payment_fetch

        def fetch_then_wait(self, provider_id):
            answer = real_fetch(self, provider_id)
            barrier.wait()
            return answer

        monkeypatch.setattr(SandboxGateway, "payment_fetch", fetch_then_wait)
        statuses = committed.parallel(
            lambda n: webhook(site_client(site, REMOTE_ADDR=f"198.51.100.{n}"), provider_id).status_code, [1, 2, 3, 4]
        )
        assert statuses == [200] * 4
        assert committed(lambda: ledger(User.objects.get(pk=user_id))) == [("purchase", 50, 0), ("refund", -50, 0)]
        assert committed(lambda: User.objects.get(pk=user_id).credits) == 0
