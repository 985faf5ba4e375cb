"""The Mollie gateway against recorded Mollie API v2 answers (mollie_responses/*.json,
replayed with `responses`): the requests we send (address, method, JSON body, the site's
own key, idempotency keys, timeout), how Mollie's payments, customers, mandates and
refunds map to ours, and how provider errors and timeouts surface."""

import json
from datetime import timedelta
from pathlib import Path

import pytest
import requests
import responses
from django.utils import timezone

from apps.accounts.models import User
from apps.payments.gateways.base import (
    GatewayError,
    GatewayTimeout,
    PaymentOrder,
    ProviderPayment,
    ProviderRefund,
    SignedMandate,
)
from apps.payments.gateways.mollie import (
    TIMEOUT,
    MollieGateway,
    amount_from_mollie,
    amount_to_mollie,
    mandate_details,
    mask_account,
)
from apps.payments.gateways.registry import gateway_for
from apps.payments.models import CreditPackage, Mandate, Payment
from apps.profiles.tests.helpers_view import logged_in, member
from apps.tenants.models import Site
from conftest import on_site

RECORDED = Path(__file__).parent / "mollie_responses"
API = "https://api.mollie.com/v2"
KEY = "test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM"
OTHER_KEY = "test_Gq8sBfJ2kN4mWx7yZ1cV3bT5rPd9Lh"


def recorded(name: str) -> dict:
    return json.loads((RECORDED / f"{name}.json").read_text())


def replay(method: str, path: str, name: str, status: int = 200) -> None:
    """Answer the next `method path` call with the recorded body, as Mollie sends it."""
    content_type = "application/problem+json" if status >= 400 else "application/hal+json"
    responses.add(
        method, f"{API}/{path}", body=(RECORDED / f"{name}.json").read_text(), status=status, content_type=content_type
    )


def sent(index: int = -1) -> tuple[str, str, dict | None, dict]:
    """(method, url, JSON body, headers) of a request we made."""
    request = responses.calls[index].request
    body = json.loads(request.body) if request.body else None
    return request.method, request.url, body, request.headers


@pytest.fixture
def gateway() -> MollieGateway:
    return MollieGateway(api_key=KEY)


def _create_oneoff(gateway, **overrides) -> ProviderPayment:
    arguments = {
        "amount": 1495,
        "currency": "EUR",
        "description": "20 credits",
        "method": "ideal",
        "redirect_url": "https://dates.example.com/credits/1/ideal?payment=q3Jb0vXk2mLr",
        "webhook_url": "https://dates.example.com/api/payment-webhook.php",
        "metadata": {"payment": "q3Jb0vXk2mLr"},
        "idempotency_key": "payment-q3Jb0vXk2mLr",
    }
    return gateway.payment_create(PaymentOrder(**(arguments | overrides)))


# --- amounts -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "currency", "value"),
    [
        (1495, "EUR", "14.95"),
        (5995, "eur", "59.95"),
        (5, "EUR", "0.05"),
        (50, "GBP", "0.50"),
        (0, "USD", "0.00"),
        (123456789, "SEK", "1234567.89"),
        (1500, "JPY", "1500"),  # no minor units
        (990, "ISK", "990"),
    ],
)
def test_amount_to_mollie(amount, currency, value):
    assert amount_to_mollie(amount, currency) == {"currency": currency.upper(), "value": value}
    assert amount_from_mollie({"currency": currency.upper(), "value": value}) == amount


@pytest.mark.parametrize(
    ("amount", "currency"),
    [(100, "XYZ"), (100, ""), (100, "BTC"), (-1, "EUR"), (12.5, "EUR"), (True, "EUR"), ("1495", "EUR")],
)
def test_amount_to_mollie_refuses_what_mollie_cannot_take(amount, currency):
    with pytest.raises(GatewayError):
        amount_to_mollie(amount, currency)


@pytest.mark.parametrize(
    "amount",
    [{"currency": "EUR", "value": "1.234"}, {"currency": "JPY", "value": "10.5"}, {"currency": "XYZ", "value": "1"}],
)
def test_amount_from_mollie_refuses_unreadable_amounts(amount):
    with pytest.raises(GatewayError):
        amount_from_mollie(amount)


def test_amount_from_mollie_missing_is_zero():
    assert amount_from_mollie(None) == 0


def test_masking_never_shows_the_whole_account():
    assert mask_account("NL91ABNA0417164300") == "NL** **** **** 4300"
    assert mask_account("NL91 ABNA 0417 1643 00") == "NL** **** **** 4300"
    assert mask_account("anna@example.org") == "a•••@example.org"
    assert mandate_details({"cardNumber": "6787", "cardLabel": "Mastercard"}) == "Mastercard •••• 6787"
    assert mandate_details({"consumerAccount": "DE89370400440532013000"}) == "DE** **** **** 3000"
    assert mandate_details(None) == ""


# --- payments ------------------------------------------------------------------------


@responses.activate
def test_payment_create_oneoff_sends_the_payment_and_returns_the_checkout(gateway):
    replay("POST", "payments", "payment_open")

    payment = _create_oneoff(gateway)

    assert payment == ProviderPayment(
        id="tr_WDqYK6vllg",
        status="open",
        amount=1495,
        currency="EUR",
        method="ideal",
        checkout_url="https://www.mollie.com/checkout/select-issuer/ideal/WDqYK6vllg",
        sequence="oneoff",
        extra={"mode": "test", "paid_at": None, "metadata": {"payment": "q3Jb0vXk2mLr"}},
    )
    assert len(responses.calls) == 1
    method, url, body, headers = sent()
    assert (method, url) == ("POST", f"{API}/payments")
    assert body == {
        "amount": {"currency": "EUR", "value": "14.95"},
        "description": "20 credits",
        "redirectUrl": "https://dates.example.com/credits/1/ideal?payment=q3Jb0vXk2mLr",
        "webhookUrl": "https://dates.example.com/api/payment-webhook.php",
        "metadata": {"payment": "q3Jb0vXk2mLr"},
        "sequenceType": "oneoff",
        "method": "ideal",
    }
    assert headers["Authorization"] == f"Bearer {KEY}"
    assert headers["Idempotency-Key"] == "payment-q3Jb0vXk2mLr"
    assert headers["Content-Type"] == "application/json"
    assert responses.calls[0].request.req_kwargs["timeout"] == TIMEOUT


@pytest.mark.parametrize(
    ("our_method", "mollie_method"),
    [("visa", "creditcard"), ("mastercard", "creditcard"), ("cartebancaire", "creditcard"), ("paypal", "paypal")],
)
@responses.activate
def test_payment_create_sends_mollies_method_id(gateway, our_method, mollie_method):
    replay("POST", "payments", "payment_open")
    _create_oneoff(gateway, method=our_method)
    assert sent()[2]["method"] == mollie_method


@pytest.mark.parametrize(
    "webhook_url",
    ["http://localhost:8000/api/payment-webhook.php", "http://gay.localhost:8000/api/payment-webhook.php"],
)
@responses.activate
def test_payment_create_leaves_out_a_webhook_mollie_cannot_reach(gateway, webhook_url):
    replay("POST", "payments", "payment_open")
    _create_oneoff(gateway, webhook_url=webhook_url)
    assert "webhookUrl" not in sent()[2]


@responses.activate
def test_payment_create_first_is_a_customer_payment(gateway):
    replay("POST", "customers/cst_stTC2WHAuS/payments", "payment_first_open")

    payment = gateway.payment_create(
        PaymentOrder(
            amount=2995,
            currency="EUR",
            description="50 credits",
            method="visa",
            redirect_url="https://dates.example.com/credits/2/visa?payment=Zx81LmQa0pTe",
            webhook_url="https://dates.example.com/api/payment-webhook.php",
            metadata={"payment": "Zx81LmQa0pTe"},
            sequence="first",
            customer_id="cst_stTC2WHAuS",
        )
    )

    assert (payment.id, payment.status, payment.sequence, payment.customer_id, payment.mandate_id) == (
        "tr_5B8cwPMGnU",
        "open",
        "first",
        "cst_stTC2WHAuS",
        None,
    )
    assert payment.checkout_url == "https://www.mollie.com/checkout/credit-card/embedded/5B8cwPMGnU"
    method, url, body, headers = sent()
    assert (method, url) == ("POST", f"{API}/customers/cst_stTC2WHAuS/payments")
    assert body["sequenceType"] == "first"
    assert body["method"] == "creditcard"
    assert body["amount"] == {"currency": "EUR", "value": "29.95"}
    # Without a key of ours the client still sends one, so a retried request is safe.
    assert headers["Idempotency-Key"]


@responses.activate
def test_payment_create_recurring_charges_the_mandate_without_checkout(gateway):
    replay("POST", "customers/cst_stTC2WHAuS/payments", "payment_recurring_pending")

    payment = gateway.payment_create(
        PaymentOrder(
            amount=2995,
            currency="EUR",
            description="50 credits",
            method="directdebit",
            redirect_url="",
            webhook_url="https://dates.example.com/api/payment-webhook.php",
            metadata={"payment": "Ab3dEf6hIj9k"},
            sequence="recurring",
            customer_id="cst_stTC2WHAuS",
            mandate_id="mdt_38HS4fsS",
            idempotency_key="payment-Ab3dEf6hIj9k",
        )
    )

    assert (payment.status, payment.checkout_url, payment.mandate_id) == ("pending", None, "mdt_38HS4fsS")
    assert payment.mandate_details == "NL** **** **** 4300"
    body = sent()[2]
    assert body["sequenceType"] == "recurring"
    assert body["mandateId"] == "mdt_38HS4fsS"
    assert "method" not in body  # the mandate decides
    assert sent()[3]["Idempotency-Key"] == "payment-Ab3dEf6hIj9k"


@pytest.mark.parametrize(
    ("sequence", "customer_id", "mandate_id"),
    [
        ("first", None, None),
        ("recurring", "cst_stTC2WHAuS", None),
        ("recurring", None, "mdt_38HS4fsS"),
        ("x", None, None),
    ],
)
@responses.activate
def test_payment_create_refuses_an_incomplete_sequence_without_calling_mollie(
    gateway, sequence, customer_id, mandate_id
):
    with pytest.raises(GatewayError):
        _create_oneoff(gateway, sequence=sequence, customer_id=customer_id, mandate_id=mandate_id)
    assert len(responses.calls) == 0


@responses.activate
def test_payment_create_refuses_an_unsupported_currency_without_calling_mollie(gateway):
    with pytest.raises(GatewayError, match="XYZ"):
        _create_oneoff(gateway, currency="XYZ")
    assert len(responses.calls) == 0


@pytest.mark.parametrize(
    ("recording", "expected"),
    [
        (
            "payment_open",
            {"status": "open", "amount": 1495, "amount_refunded": 0, "amount_charged_back": 0, "method": "ideal"},
        ),
        (
            "payment_paid",
            {
                "status": "paid",
                "amount": 2995,
                "currency": "EUR",
                "method": "creditcard",
                "checkout_url": None,
                "amount_refunded": 0,
                "amount_charged_back": 0,
                "customer_id": "cst_stTC2WHAuS",
                "mandate_id": "mdt_pWUnw6pkBN",
                "mandate_details": "Mastercard •••• 6787",
                "sequence": "first",
            },
        ),
        (
            "payment_paid_refunded",
            {"status": "paid", "amount": 2995, "amount_refunded": 1198, "amount_charged_back": 0, "mandate_id": None},
        ),
        (
            "payment_charged_back",
            {
                "status": "paid",
                "amount": 2995,
                "amount_refunded": 0,
                "amount_charged_back": 2995,
                "method": "directdebit",
                "sequence": "recurring",
                "mandate_details": "NL** **** **** 4300",
            },
        ),
        ("payment_failed", {"status": "failed", "amount": 5995, "method": "creditcard", "mandate_details": ""}),
        ("payment_canceled", {"status": "canceled", "amount": 1495, "method": None}),
        ("payment_expired", {"status": "expired", "amount": 1295, "currency": "GBP", "method": "paypal"}),
    ],
)
@responses.activate
def test_payment_fetch_maps_mollies_payment(gateway, recording, expected):
    payment_id = recorded(recording)["id"]
    replay("GET", f"payments/{payment_id}", recording)

    payment = gateway.payment_fetch(payment_id)

    assert payment.id == payment_id
    assert {name: getattr(payment, name) for name in expected} == expected
    method, url, body, headers = sent()
    assert (method, url, body) == ("GET", f"{API}/payments/{payment_id}", None)
    assert headers["Authorization"] == f"Bearer {KEY}"


@responses.activate
def test_payment_fetch_keeps_the_failure_reason_and_the_paid_time(gateway):
    replay("GET", "payments/tr_Kq2fV8dLpx", "payment_failed")
    replay("GET", "payments/tr_5B8cwPMGnU", "payment_paid")
    assert gateway.payment_fetch("tr_Kq2fV8dLpx").extra["failure_reason"] == "card_declined"
    assert gateway.payment_fetch("tr_5B8cwPMGnU").extra["paid_at"] == "2025-03-12T11:04:09+00:00"


@pytest.mark.parametrize("provider_id", ["", "re_4qqhO89gsT", "tr_../customers", "tr_x/refunds"])
@responses.activate
def test_payment_fetch_refuses_a_malformed_id_without_calling_mollie(gateway, provider_id):
    with pytest.raises(GatewayError):
        gateway.payment_fetch(provider_id)
    assert len(responses.calls) == 0


# --- customers, mandates, refunds ----------------------------------------------------


@responses.activate
def test_customer_create(gateway):
    replay("POST", "customers", "customer")

    customer_id = gateway.customer_create(name="Anna de Vries", email="anna@example.org", metadata={"member": "42"})

    assert customer_id == "cst_stTC2WHAuS"
    method, url, body, headers = sent()
    assert (method, url) == ("POST", f"{API}/customers")
    assert body == {"name": "Anna de Vries", "email": "anna@example.org", "metadata": {"member": "42"}}
    assert headers["Authorization"] == f"Bearer {KEY}"


@responses.activate
def test_mandate_create_signs_a_sepa_mandate(gateway):
    replay("POST", "customers/cst_stTC2WHAuS/mandates", "mandate")

    mandate = gateway.mandate_create(
        SignedMandate(
            customer_id="cst_stTC2WHAuS",
            consumer_name="Anna de Vries",
            consumer_account="nl91 abna 0417 1643 00",
            signature_date="2025-03-14",
            mandate_reference="DD-42-0001",
        )
    )

    assert mandate == ("mdt_38HS4fsS", "NL** **** **** 4300")
    method, url, body, headers = sent()
    assert (method, url) == ("POST", f"{API}/customers/cst_stTC2WHAuS/mandates")
    assert body == {
        "method": "directdebit",
        "consumerName": "Anna de Vries",
        "consumerAccount": "NL91ABNA0417164300",
        "signatureDate": "2025-03-14",
        "mandateReference": "DD-42-0001",
    }
    # Retrying the same mandate (after a timeout) sends the same key: Mollie creates it once.
    assert headers["Idempotency-Key"] == "mandate-cst_stTC2WHAuS-DD-42-0001"


@responses.activate
def test_refund_create_sends_our_idempotency_key(gateway):
    replay("POST", "payments/tr_WDqYK6vllg/refunds", "refund")

    refund = gateway.refund_create(
        provider_id="tr_WDqYK6vllg",
        amount=1198,
        currency="EUR",
        description="Refund of 8 unused credits",
        idempotency_key="Rk7pQ2mZs0aB",
    )

    assert refund == ProviderRefund(id="re_4qqhO89gsT", status="pending", amount=1198)
    assert len(responses.calls) == 1  # no fetch of the payment first
    method, url, body, headers = sent()
    assert (method, url) == ("POST", f"{API}/payments/tr_WDqYK6vllg/refunds")
    assert body == {"amount": {"currency": "EUR", "value": "11.98"}, "description": "Refund of 8 unused credits"}
    assert headers["Idempotency-Key"] == "Rk7pQ2mZs0aB"
    assert headers["Authorization"] == f"Bearer {KEY}"


@responses.activate
def test_refund_create_needs_an_idempotency_key(gateway):
    with pytest.raises(GatewayError):
        gateway.refund_create(
            provider_id="tr_WDqYK6vllg", amount=1198, currency="EUR", description="", idempotency_key=""
        )
    assert len(responses.calls) == 0


# --- errors --------------------------------------------------------------------------


@responses.activate
def test_a_mollie_error_is_a_gateway_error_with_mollies_detail(gateway):
    replay("POST", "payments", "error_422", status=422)

    with pytest.raises(GatewayError) as caught:
        _create_oneoff(gateway, method="sofort")

    assert not isinstance(caught.value, GatewayTimeout)
    assert str(caught.value) == "Mollie 422: The payment method is not enabled in your website profile (field method)"


@responses.activate
def test_an_unknown_payment_is_a_gateway_error(gateway):
    replay("GET", "payments/tr_Unkn0wn123", "error_404", status=404)

    with pytest.raises(GatewayError, match="No payment exists with token tr_Unkn0wn123") as caught:
        gateway.payment_fetch("tr_Unkn0wn123")
    assert not isinstance(caught.value, GatewayTimeout)


@responses.activate
def test_a_refused_key_is_a_gateway_error(gateway):
    replay("POST", "payments/tr_WDqYK6vllg/refunds", "error_401", status=401)
    with pytest.raises(GatewayError, match="Mollie 401: Missing authentication"):
        gateway.refund_create(
            provider_id="tr_WDqYK6vllg", amount=100, currency="EUR", description="", idempotency_key="k1"
        )


@responses.activate
def test_an_answer_that_is_not_mollies_json_is_a_gateway_error(gateway):
    responses.add("GET", f"{API}/payments/tr_WDqYK6vllg", body="<html>502 Bad Gateway</html>", status=502)
    with pytest.raises(GatewayError, match="unexpectedly") as caught:
        gateway.payment_fetch("tr_WDqYK6vllg")
    assert not isinstance(caught.value, GatewayTimeout)


@pytest.mark.parametrize(
    "failure",
    [
        requests.exceptions.ConnectTimeout("connect timed out"),
        requests.exceptions.ReadTimeout("read timed out"),
        requests.exceptions.ConnectionError("connection refused"),
    ],
)
@responses.activate
def test_no_answer_is_a_gateway_timeout(gateway, failure):
    responses.add("GET", f"{API}/payments/tr_WDqYK6vllg", body=failure)
    responses.add("POST", f"{API}/payments", body=failure)
    responses.add("POST", f"{API}/payments/tr_WDqYK6vllg/refunds", body=failure)

    with pytest.raises(GatewayTimeout):
        gateway.payment_fetch("tr_WDqYK6vllg")
    with pytest.raises(GatewayTimeout):
        _create_oneoff(gateway)
    with pytest.raises(GatewayTimeout):
        gateway.refund_create(
            provider_id="tr_WDqYK6vllg", amount=100, currency="EUR", description="", idempotency_key="k1"
        )


@pytest.mark.parametrize("api_key", ["", "sk_test_123", "live_", "test_with space"])
@responses.activate
def test_a_site_without_a_valid_key_gets_a_gateway_error_and_nothing_is_sent(api_key):
    gateway = MollieGateway(api_key=api_key)  # building it never fails: the service handles the error
    with pytest.raises(GatewayError, match="no valid Mollie API key"):
        gateway.payment_fetch("tr_WDqYK6vllg")
    assert len(responses.calls) == 0


# --- each site its own key -------------------------------------------------------------


@pytest.mark.django_db
@responses.activate
def test_each_site_uses_its_own_key(site, gay_site):
    site.payment_gateway, site.mollie_api_key = "mollie", KEY
    gay_site.payment_gateway, gay_site.mollie_api_key = "mollie", OTHER_KEY
    replay("GET", "payments/tr_5B8cwPMGnU", "payment_paid")
    replay("GET", "payments/tr_WDqYK6vllg", "payment_paid_refunded")

    first, second = gateway_for(site), gateway_for(gay_site)
    assert isinstance(first, MollieGateway)
    assert first.name == second.name == "mollie"
    first.payment_fetch("tr_5B8cwPMGnU")
    second.payment_fetch("tr_WDqYK6vllg")

    assert [call.request.headers["Authorization"] for call in responses.calls] == [
        f"Bearer {KEY}",
        f"Bearer {OTHER_KEY}",
    ]


# --- a Mollie site end to end --------------------------------------------------------


@pytest.mark.django_db
@responses.activate
def test_a_mollie_site_takes_a_payment_and_the_webhook_adds_the_credits(site, client_for):
    """payment_start asks Mollie (the recorded answers), the member pays at Mollie's
    checkout, Mollie calls the webhook with the id only, we fetch the paid payment with
    the site's key: credits once, premium, the card mandate stored for repeat orders."""
    Site.objects.filter(pk=site.pk).update(payment_gateway="mollie", mollie_api_key=KEY)
    package = CreditPackage.objects.get(site=site, credits=50)
    profile = member(
        site, "Mila", country="BE", user_fields={"country": "BE", "date_joined": timezone.now() - timedelta(days=30)}
    )
    client = logged_in(site, client_for, profile)
    with on_site(site):
        balance = User.objects.get(pk=profile.user_id).credits
    replay("POST", "customers", "customer")
    replay("POST", "customers/cst_stTC2WHAuS/payments", "payment_first_open")
    replay("GET", "payments/tr_5B8cwPMGnU", "payment_paid")

    answer = client.post(
        "/api/payment.php",
        data=json.dumps({"package": package.pk, "method": "creditcard"}),
        content_type="application/json",
    )

    assert answer.status_code == 201, answer.content
    assert answer.json()["checkout_url"] == "https://www.mollie.com/checkout/credit-card/embedded/5B8cwPMGnU"
    public_id = answer.json()["payment"]["id"]
    with on_site(site):
        payment = Payment.objects.get(public_id=public_id)
        assert (payment.gateway, payment.provider_id, payment.status) == ("mollie", "tr_5B8cwPMGnU", "open")
        assert (payment.amount, payment.currency, payment.sequence) == (2995, "EUR", "first")
    assert [(call.request.method, call.request.url) for call in responses.calls] == [
        ("POST", f"{API}/customers"),
        ("POST", f"{API}/customers/cst_stTC2WHAuS/payments"),
    ]
    _method, _url, body, headers = sent()
    assert body["amount"] == {"currency": "EUR", "value": "29.95"}
    assert (body["method"], body["sequenceType"], body["metadata"]) == ("creditcard", "first", {"payment": public_id})
    assert body["redirectUrl"].endswith(f"?payment={public_id}")
    assert headers["Authorization"] == f"Bearer {KEY}"
    assert headers["Idempotency-Key"] == f"payment-{public_id}"

    webhook = client_for(site)  # Mollie: no session, no CSRF token, only the id
    for _ in range(2):  # a repeated webhook changes nothing more
        assert webhook.post("/api/payment-webhook.php", {"id": "tr_5B8cwPMGnU"}).status_code == 200

    fetches = [call.request for call in responses.calls[2:]]
    assert [(request.method, request.url) for request in fetches] == [("GET", f"{API}/payments/tr_5B8cwPMGnU")] * 2
    assert {request.headers["Authorization"] for request in fetches} == {f"Bearer {KEY}"}
    with on_site(site):
        user = User.objects.get(pk=profile.user_id)
        payment.refresh_from_db()
        mandate = Mandate.objects.get(user=user)
        assert payment.status == "paid"
        assert (user.credits, user.paid_user) == (balance + 50, True)
        assert (mandate.gateway, mandate.customer_id, mandate.mandate_id, mandate.details) == (
            "mollie",
            "cst_stTC2WHAuS",
            "mdt_pWUnw6pkBN",
            "Mastercard •••• 6787",
        )
    status = client.get(f"/api/payment.php?id={public_id}").json()["payment"]
    assert (status["status"], status["balance"], status["paid_user"]) == ("completed", balance + 50, True)
    assert len(responses.calls) == 4  # a final payment is not fetched again
