"""Test money and console SMS in production: the sandbox gateway (every site's default)
and the console or in-memory SMS backend are development tools. Production settings
refuse to start with an SMS backend that sends nothing, and the sandbox takes no payment,
unless the deployment sets ALLOW_TEST_PAYMENTS; while a site is on the sandbox its money
pages and the operators' admin say so with a "Test payments" badge."""

import pytest
from cryptography.fernet import Fernet
from django.contrib.messages import get_messages
from django.test import override_settings

from apps.payments.checks import sms_backend_check
from apps.payments.gateways.base import SignedMandate
from apps.payments.gateways.sandbox import SandboxGateway, SandboxRefused, sandbox_checkout_decide
from apps.payments.models import Payment, SandboxPayment
from apps.payments.sms import ConsoleBackend
from apps.payments.tests.helpers_core import buyer, package, start
from apps.payments.tests.test_credits_pages import api_start, client_of
from apps.tenants.middleware import site_cache_clear
from apps.tenants.models import Site
from apps.tenants.tests.test_site_admin_payments import change_data, post
from apps.tenants.tests.test_stored_keys import production
from conftest import on_site
from tests.staff import staff_client, staff_member

pytestmark = pytest.mark.django_db

NO_TEST_PAYMENTS = override_settings(ALLOW_TEST_PAYMENTS=False)


class QuietBackend(ConsoleBackend):
    """A console backend under another name."""


class SendingBackend:
    """Stands for a provider's backend (it is never called here)."""

    def send(self, *, to: str, text: str) -> None:
        raise AssertionError("no text message is sent by the checks")


@pytest.fixture
def on_mollie(site):
    Site.objects.filter(pk=site.pk).update(payment_gateway="mollie", mollie_api_key="test_" + "m" * 30)
    site_cache_clear()
    yield Site.objects.get(pk=site.pk)
    Site.objects.filter(pk=site.pk).update(payment_gateway="sandbox", mollie_api_key="")
    site_cache_clear()


def test_console_sms_in_production_the_settings_refuse_to_start():
    fernet_key = Fernet.generate_key().decode()
    refused = production(SECRETS_KEYS=fernet_key, ALLOW_TEST_PAYMENTS=None)
    assert refused.returncode != 0
    assert "SMS_BACKEND" in refused.stderr and "ALLOW_TEST_PAYMENTS" in refused.stderr
    locmem = production(SECRETS_KEYS=fernet_key, ALLOW_TEST_PAYMENTS="0", SMS_BACKEND="apps.payments.sms.LocmemBackend")
    assert locmem.returncode != 0 and "SMS_BACKEND" in locmem.stderr
    # A deployment that says it takes test payments (a demo, a staging copy) starts.
    allowed = production(SECRETS_KEYS=fernet_key, ALLOW_TEST_PAYMENTS="1")
    assert allowed.returncode == 0 and "started" in allowed.stdout, allowed.stderr


def test_console_sms_in_production_the_check_finds_a_development_backend_under_any_name():
    quiet = f"{__name__}.QuietBackend"
    with override_settings(ALLOW_TEST_PAYMENTS=False, SMS_BACKEND=quiet):
        assert [message.id for message in sms_backend_check()] == ["payments.E002"]
    with override_settings(ALLOW_TEST_PAYMENTS=False, SMS_BACKEND="apps.payments.sms.ConsoleBackend"):
        assert [message.id for message in sms_backend_check()] == ["payments.E002"]
    with override_settings(ALLOW_TEST_PAYMENTS=False, SMS_BACKEND=f"{__name__}.SendingBackend"):
        assert sms_backend_check() == []
    with override_settings(ALLOW_TEST_PAYMENTS=False, SMS_BACKEND=f"{__name__}.NoSuchBackend"):
        assert [message.id for message in sms_backend_check()] == ["payments.E001"]
    with override_settings(ALLOW_TEST_PAYMENTS=True, SMS_BACKEND=quiet):
        assert sms_backend_check() == []


def test_test_money_in_production_the_sandbox_takes_no_payment(site, client_for):
    user = buyer(site)
    client = client_of(site, client_for, user)
    with on_site(site):
        payments, sandbox_rows = Payment.objects.count(), SandboxPayment.objects.count()
    with NO_TEST_PAYMENTS:
        answer = api_start(client, package(site).pk)
    assert answer.status_code == 503
    assert answer.json()["error"]["code"] == "gateway_unavailable"
    with on_site(site):
        # Not even a payment row that could only expire.
        assert (Payment.objects.count(), SandboxPayment.objects.count()) == (payments, sandbox_rows)
    # Allowed (development, tests), the same request starts a payment.
    assert api_start(client, package(site).pk).status_code == 201


def test_test_money_in_production_the_sandbox_checkout_is_gone(site, client_for):
    payment = start(site, buyer(site))
    client = client_for(site)
    path = f"/sandbox/checkout/{payment.provider_id}"
    assert client.get(path).status_code == 200
    with NO_TEST_PAYMENTS:
        assert client.get(path).status_code == 404
        assert client.post(path, {"action": "pay"}).status_code == 404
        with on_site(site):
            # Behind the page, the sandbox itself refuses whatever would give credits.
            with pytest.raises(SandboxRefused):
                sandbox_checkout_decide(provider_id=payment.provider_id, action="pay")
            gateway = SandboxGateway(site=site)
            with pytest.raises(SandboxRefused):
                gateway.customer_create(name="x", email="x@example.com", metadata={})
            with pytest.raises(SandboxRefused):
                gateway.mandate_create(
                    SignedMandate(
                        customer_id="cst_sbx_x",
                        consumer_name="x",
                        consumer_account="NL91ABNA0417164300",
                        signature_date="2026-01-01",
                        mandate_reference="x",
                    )
                )
            # What the sandbox holds can still be read (reconciliation, support).
            assert gateway.payment_fetch(payment.provider_id).status == "open"
    with on_site(site):
        assert SandboxPayment.objects.get(id=payment.provider_id).status == "open"


def test_test_money_in_production_the_site_pages_show_the_badge(site, client_for):
    user = buyer(site)
    client = client_of(site, client_for, user)
    pages = ("/credits", f"/credits/{package(site).pk}", "/pricing", "/credits/repeat-order")
    for path in pages:
        answer = client.get(path, follow=True)
        body = answer.content.decode()
        assert answer.status_code == 200, path
        assert 'role="note" data-testid="test-payments"' in body, path
        assert ">Test payments<" in body and "nothing is charged" in body, path
    with NO_TEST_PAYMENTS:
        body = client.get("/credits").content.decode()
        assert ">Test payments<" in body and "Payments are not possible on this site" in body


def test_test_money_in_production_no_badge_on_a_live_gateway(on_mollie, client_for):
    client = client_of(on_mollie, client_for, buyer(on_mollie))
    for path in ("/credits", "/pricing"):
        body = client.get(path).content.decode()
        assert 'data-testid="test-payments"' not in body and "Test payments" not in body, path


def test_test_money_in_production_the_admin_shows_the_badge_and_warns(site, gay_site, rf):
    Site.objects.filter(pk=gay_site.pk).update(payment_gateway="mollie", mollie_api_key="test_" + "g" * 30)
    user = staff_member("operators")
    client = staff_client(user)
    listing = client.get("/admin/tenants/site/").content.decode()
    rows = [row for row in listing.split("<tr") if "test-payments-badge" in row]
    assert any(f"/admin/tenants/site/{site.pk}/change/" in row for row in rows)
    assert not any(f"/admin/tenants/site/{gay_site.pk}/change/" in row for row in rows)
    change = client.get(f"/admin/tenants/site/{site.pk}/change/").content.decode()
    assert 'data-testid="test-payments-badge">Test payments<' in change
    with NO_TEST_PAYMENTS:
        change = client.get(f"/admin/tenants/site/{site.pk}/change/").content.decode()
        assert "This deployment takes no test payments" in change
        # Saved (an operator may not have the Mollie key yet), with a warning.
        answer = post(client, site, change_data(rf, user, site, index_title="Still on the sandbox"))
        assert answer.status_code == 302, answer.content.decode()[:2000]
        warnings = [str(message) for message in get_messages(answer.wsgi_request)]
        assert any("takes no payments until you choose Mollie" in text for text in warnings), warnings
    assert Site.objects.get(pk=site.pk).index_title == "Still on the sandbox"
    site_cache_clear()
