"""The member's buying screens (issue 6 items 4 and 7): /credits, the payment page
/credits/<id>[/<method>] with the return from the gateway, /api/payment.php (start,
status, ownership, CSRF, errors, rate limit) and the one-click repeat order. Payments go
through the real service and the sandbox gateway."""

import json
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.models import User
from apps.payments.api.payment import PAYMENT_RATE_LIMIT
from apps.payments.gateways.base import GatewayTimeout
from apps.payments.gateways.sandbox import SandboxGateway, sandbox_checkout_decide
from apps.payments.models import (
    CreditPackage,
    CreditPackagePrice,
    DiscountCode,
    Mandate,
    Payment,
    PaymentStatus,
    Sequence,
)
from apps.payments.tests.helpers_core import GBP_PRICES, buy, buyer, fresh, package, start
from conftest import on_site

pytestmark = pytest.mark.django_db

GB_METHODS = ["visa", "mastercard", "maestro", "applepay", "paypal"]
NL_METHODS = ["ideal", "creditcard", "applepay", "paypal", "directdebit", "banktransfer", "paysafecard"]


def client_of(site, client_for, user, **kwargs) -> Client:
    client = client_for(site, **kwargs)
    with on_site(site):
        client.force_login(user, backend="allauth.account.auth_backends.AuthenticationBackend")
    return client


def island_props(response) -> dict:
    """The Checkout island's props (json_script) of a page."""
    body = response.content.decode()
    found = re.search(r'<script id="island-Checkout-\d+-props" type="application/json">(.*?)</script>', body, re.S)
    assert found, "no Checkout island on the page"
    return json.loads(found.group(1))


def api_start(client, package_id: int, method: str = "visa", discount_code: str = ""):
    return client.post(
        "/api/payment.php",
        {"package": package_id, "method": method, "discount_code": discount_code},
        content_type="application/json",
    )


def api_status(client, public_id: str):
    return client.get("/api/payment.php", {"id": public_id})


def pkg_id(site, credits: int = 50) -> int:
    return package(site, credits).pk


# --- /credits ---------------------------------------------------------------------------


def test_pages_and_api_need_a_login(site, client_for):
    client = client_for(site)
    for path in ("/credits", f"/credits/{pkg_id(site)}", f"/credits/{pkg_id(site)}/visa", "/credits/repeat-order"):
        answer = client.get(path)
        assert answer.status_code == 302 and "/login" in answer["Location"], path
    answer = client.get("/api/payment.php", {"id": "x"})
    assert (answer.status_code, answer.json()["error"]["code"]) == (403, "authentication_required")


def test_credits_page_lists_the_packages_in_the_payment_currency(site, client_for):
    user = buyer(site)  # signed up a month ago: no discount
    answer = client_of(site, client_for, user).get("/credits")
    assert answer.status_code == 200
    props = island_props(answer)
    assert props["mode"] == "packages"
    assert [
        (p["credits"], p["currency"], p["listAmount"], p["amount"], p["highlighted"]) for p in props["packages"]
    ] == [
        (20, "GBP", GBP_PRICES[20], GBP_PRICES[20], False),
        (50, "GBP", GBP_PRICES[50], GBP_PRICES[50], True),
        (120, "GBP", GBP_PRICES[120], GBP_PRICES[120], False),
    ]
    assert [p["href"] for p in props["packages"]] == [f"/credits/{pkg_id(site, n)}" for n in (20, 50, 120)]
    assert props["discount"] is None and props["codeDiscount"] is None
    assert props["strings"]["buy"] == "Buy" and props["strings"]["perCredit"] == "{price} per credit"
    assert props["urls"]["payment"] == "/api/payment.php"
    assert props["urls"]["discount"] == "/api/discountcode.php"
    body = answer.content.decode()
    # A free member reads why premium is worth it; GB has no SEPA direct debit.
    assert 'data-testid="credits-premium-pitch"' in body and "46% higher chance of a match" in body
    assert 'data-testid="credits-transactions"' in body
    assert 'data-testid="credits-directdebit"' not in body
    assert 'data-testid="credits-repeat-order"' not in body


def test_a_new_member_sees_the_time_bonus_prices(site, client_for):
    user = buyer(site, new=True)
    props = island_props(client_of(site, client_for, user).get("/credits"))
    assert props["discount"]["code"] == "TIMEBONUS25"
    assert (props["discount"]["kind"], props["discount"]["percentage"]) == ("timebonus", 25)
    assert props["discount"]["expires"]
    # 25.95 - 25 % = 19.46 (rounded to the nearest penny).
    assert [(p["listAmount"], p["amount"]) for p in props["packages"]][1] == (2595, 1946)


def test_direct_debit_link_only_where_it_is_offered(gay_site, client_for):
    user = buyer(gay_site, country="NL")
    client = client_of(gay_site, client_for, user)
    assert 'href="/directdebit" data-testid="credits-directdebit"' in client.get("/credits").content.decode()
    gay_site.direct_debit_enabled = False
    gay_site.save(update_fields=["direct_debit_enabled"])
    from apps.tenants.middleware import site_cache_clear

    site_cache_clear()
    assert 'data-testid="credits-directdebit"' not in client.get("/credits").content.decode()


def test_a_frozen_member_sees_why_instead_of_buy_buttons(site, client_for):
    user = buyer(site, credits_frozen=True)
    answer = client_of(site, client_for, user).get("/credits")
    body = answer.content.decode()
    assert 'data-testid="credits-frozen"' in body
    assert "Your credits are on hold after a reversed payment" in body
    assert island_props(answer)["frozen"] is True


def test_a_code_in_the_address_is_checked(site, client_for):
    DiscountCode.objects.create(site=site, code="SPRING10", value_percentage=10)
    client = client_of(site, client_for, buyer(site))
    props = island_props(client.get("/credits", {"code": "spring10"}))
    assert props["code"] == "SPRING10"
    assert (props["codeDiscount"]["code"], props["codeDiscount"]["percentage"]) == ("SPRING10", 10)
    assert props["codeError"] == ""
    props = island_props(client.get("/credits", {"code": "NOPE"}))
    assert (props["code"], props["codeError"], props["codeDiscount"]) == ("NOPE", "Code not found", None)


def test_a_paid_member_with_a_mandate_sees_the_repeat_order_box(site, client_for):
    user = buyer(site)
    buy(site, user, credits=20, method="visa")
    body = client_of(site, client_for, user).get("/credits").content.decode()
    assert 'data-testid="credits-repeat-order"' in body
    assert 'href="/credits/repeat-order" data-testid="credits-repeat-order-link"' in body
    assert 'data-testid="credits-balance">You have 20 credits.' in body


def test_credits_page_queries_do_not_grow_with_the_packages(site, client_for):
    user = buyer(site)
    buy(site, user, credits=20, method="visa")  # a mandate: the repeat-order box too
    client = client_of(site, client_for, user)
    client.get("/credits")

    def queries() -> int:
        with CaptureQueriesContext(connection) as context:
            assert client.get("/credits").status_code == 200
        return len(context.captured_queries)

    before = queries()
    for credits in (200, 300, 400, 500):
        extra = CreditPackage.objects.create(site=site, credits=credits, position=9)
        CreditPackagePrice.objects.create(package=extra, currency="GBP", amount=credits * 40)
        CreditPackagePrice.objects.create(package=extra, currency="EUR", amount=credits * 45)
    assert len(island_props(client.get("/credits"))["packages"]) == 7
    assert queries() == before


# --- /credits/<id>[/<method>] ------------------------------------------------------------


def test_checkout_page_offers_the_payment_countrys_methods(site, client_for):
    client = client_of(site, client_for, buyer(site))
    answer = client.get(f"/credits/{pkg_id(site)}")
    assert answer.status_code == 200
    props = island_props(answer)
    assert props["mode"] == "checkout" and props["method"] is None and props["payment"] is None
    assert [m["code"] for m in props["methods"]] == GB_METHODS
    assert props["methods"][0] == {"code": "visa", "label": "Visa", "href": f"/credits/{pkg_id(site)}/visa"}
    assert (props["package"]["credits"], props["package"]["amount"], props["package"]["currency"]) == (50, 2595, "GBP")
    assert props["paypalUrl"] == f"/credits/{pkg_id(site)}/paypal"
    assert island_props(client.get(f"/credits/{pkg_id(site)}/paypal"))["method"] == "paypal"


def test_each_credits_page_loads_only_its_own_checkout_code(site, client_for):
    """/credits loads the Checkout island's packages entry (index.packages.tsx), /credits/<id>
    the payment page's (index.tsx): neither page carries the other's code (docs/bench.md, js)."""
    from apps.common.islands import manifest

    islands = manifest()["islands"]
    client = client_of(site, client_for, buyer(site))
    credits = client.get("/credits").content.decode()
    checkout = client.get(f"/credits/{pkg_id(site)}").content.decode()
    assert islands["Checkout.packages"]["file"] in credits and islands["Checkout"]["file"] not in credits
    assert islands["Checkout"]["file"] in checkout and islands["Checkout.packages"]["file"] not in checkout
    assert 'data-island="Checkout"' in credits and 'data-island="Checkout"' in checkout


def test_checkout_page_sends_unknown_methods_and_packages_away(site, client_for):
    client = client_of(site, client_for, buyer(site))
    answer = client.get(f"/credits/{pkg_id(site)}/ideal")  # not offered in GB
    assert (answer.status_code, answer["Location"]) == (302, f"/credits/{pkg_id(site)}")
    assert client.get("/credits/999999").status_code == 404
    assert client.get("/credits/999999/visa").status_code == 404


def test_direct_debit_goes_to_the_sms_page(gay_site, client_for):
    client = client_of(gay_site, client_for, buyer(gay_site, country="NL"))
    package_id = pkg_id(gay_site)
    props = island_props(client.get(f"/credits/{package_id}"))
    assert [m["code"] for m in props["methods"]] == NL_METHODS
    direct_debit = next(m for m in props["methods"] if m["code"] == "directdebit")
    assert direct_debit["href"] == f"/directdebit?package={package_id}"
    answer = client.get(f"/credits/{package_id}/directdebit")
    assert (answer.status_code, answer["Location"]) == (302, f"/directdebit?package={package_id}")


def test_the_return_page_shows_the_members_own_payment(site, client_for):
    user, other = buyer(site), buyer(site)
    payment = buy(site, user, credits=50, method="visa")
    url = f"/credits/{payment.package_id}/visa?payment={payment.public_id}"
    props = island_props(client_of(site, client_for, user).get(url))
    assert props["payment"]["id"] == payment.public_id
    assert (props["payment"]["status"], props["payment"]["balance"], props["payment"]["paid_user"]) == (
        "completed",
        50,
        True,
    )
    assert props["payment"]["credits_added_text"] == "50 credits added"
    assert props["recurring"] is False
    # Someone else's payment id shows nothing of it.
    assert island_props(client_of(site, client_for, other).get(url))["payment"] is None


# --- /api/payment.php ----------------------------------------------------------------------


def test_start_creates_the_payment_and_answers_the_checkout(site, client_for):
    user = buyer(site, new=True)  # time bonus
    answer = api_start(client_of(site, client_for, user), pkg_id(site), "paypal")
    assert answer.status_code == 201, answer.content
    data = answer.json()
    with on_site(site):
        payment = Payment.objects.get(user=user)
    assert data["checkout_url"] == payment.checkout_url == f"http://localhost/sandbox/checkout/{payment.provider_id}"
    assert data["payment"]["id"] == payment.public_id
    assert data["payment"]["status"] == "loading"
    assert (payment.method, payment.amount, payment.discount_code, payment.discount_percentage) == (
        "paypal",
        1946,
        "TIMEBONUS25",
        25,
    )


def test_start_with_a_code(site, client_for):
    DiscountCode.objects.create(site=site, code="SPRING10", value_percentage=10)
    user = buyer(site)
    client = client_of(site, client_for, user)
    assert api_start(client, pkg_id(site), "visa", "spring10").status_code == 201
    with on_site(site):
        assert Payment.objects.get(user=user).amount == 2595 - 260


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"method": "ideal"}, 409, "method_not_available"),
        ({"package": 999999}, 404, "package_not_found"),
        ({"discount_code": "NOPE"}, 404, "code_not_found"),
        ({"package": "abc"}, 400, "invalid"),
        ({"method": ""}, 400, "invalid"),
    ],
)
def test_start_errors(site, client_for, body, status, code):
    user = buyer(site)
    data = {"package": pkg_id(site), "method": "visa", "discount_code": "", **body}
    answer = client_of(site, client_for, user).post("/api/payment.php", data, content_type="application/json")
    assert answer.status_code == status, answer.content
    error = answer.json()["error"]
    assert error["code"] == code and error["message"]
    if code == "code_not_found":
        assert error["fields"] == {"code": ["Code not found"]}
    with on_site(site):
        assert not Payment.objects.filter(user=user).exists()


def test_a_used_code_and_a_frozen_member_are_refused(site, client_for):
    user = buyer(site, new=True)
    buy(site, user, credits=20, method="visa")  # uses TIMEBONUS25
    client = client_of(site, client_for, user)
    answer = api_start(client, pkg_id(site), "visa", "TIMEBONUS25")
    assert (answer.status_code, answer.json()["error"]["message"]) == (409, "Code already used")
    User.objects.filter(pk=user.pk).update(credits_frozen=True)
    answer = api_start(client, pkg_id(site), "visa")
    assert (answer.status_code, answer.json()["error"]["code"]) == (402, "credits_frozen")


def test_start_needs_the_csrf_token(site, client_for):
    user = buyer(site)
    client = client_of(site, client_for, user, enforce_csrf_checks=True)
    answer = api_start(client, pkg_id(site))
    assert answer.status_code == 403
    token = re.search(r'<meta name="csrf-token" content="([^"]+)"', client.get("/credits").content.decode()).group(1)
    answer = client.post(
        "/api/payment.php",
        {"package": pkg_id(site), "method": "visa"},
        content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert answer.status_code == 201, answer.content


def test_start_is_rate_limited_per_member(site, client_for):
    limit = int(PAYMENT_RATE_LIMIT.split("/")[0])
    user = buyer(site)
    client = client_of(site, client_for, user)
    for _ in range(limit):
        assert api_start(client, pkg_id(site)).status_code == 201
    answer = api_start(client, pkg_id(site))
    assert answer.status_code == 429
    assert answer.json()["error"] == {
        "code": "rate_limited",
        "message": "You have started many payments in a short time. Please wait a few minutes and try again.",
    }
    # Another member is not held back.
    assert api_start(client_of(site, client_for, buyer(site)), pkg_id(site)).status_code == 201


def test_status_fetches_the_gateways_state(site, client_for):
    user = buyer(site)
    client = client_of(site, client_for, user)
    public_id = api_start(client, pkg_id(site)).json()["payment"]["id"]
    with on_site(site):
        payment = Payment.objects.get(public_id=public_id)
        # Paid at the provider; no webhook has reached us (nothing listens in tests).
        sandbox_checkout_decide(provider_id=payment.provider_id, action="pay")
        Payment.objects.filter(pk=payment.pk).update(synced_at=None)
    answer = api_status(client, public_id)
    assert answer.status_code == 200
    data = answer.json()["payment"]
    assert (data["status"], data["credits"], data["balance"], data["paid_user"]) == ("completed", 50, 50, True)
    assert data["credits_added_text"] == "50 credits added"
    assert data["balance_text"] == "You now have 50 credits."
    assert fresh(user).credits == 50
    # A final payment is not fetched again.
    assert api_status(client, public_id).json()["payment"]["status"] == "completed"


def test_status_asks_the_gateway_at_most_every_few_seconds(site, client_for, monkeypatch):
    user = buyer(site)
    client = client_of(site, client_for, user)
    payment = start(site, user)
    fetches = []
    real_fetch = SandboxGateway.payment_fetch

    def counting_fetch(self, provider_id):
        fetches.append(provider_id)
        return real_fetch(self, provider_id)

    monkeypatch.setattr(SandboxGateway, "payment_fetch", counting_fetch)
    with on_site(site):
        Payment.objects.filter(pk=payment.pk).update(synced_at=timezone.now())
    assert api_status(client, payment.public_id).json()["payment"]["status"] == "loading"
    assert fetches == []
    with on_site(site):
        Payment.objects.filter(pk=payment.pk).update(synced_at=timezone.now() - timedelta(seconds=4))
    assert api_status(client, payment.public_id).json()["payment"]["status"] == "loading"
    assert fetches == [payment.provider_id]


def test_status_keeps_the_stored_state_when_the_gateway_does_not_answer(site, client_for, monkeypatch):
    user = buyer(site)
    payment = start(site, user)

    def timeout(self, provider_id):
        raise GatewayTimeout("no answer")

    monkeypatch.setattr(SandboxGateway, "payment_fetch", timeout)
    with on_site(site):
        Payment.objects.filter(pk=payment.pk).update(synced_at=None)
    answer = api_status(client_of(site, client_for, user), payment.public_id)
    assert (answer.status_code, answer.json()["payment"]["status"]) == (200, "loading")


def test_status_of_another_members_or_an_unknown_payment_is_404(site, client_for):
    payment = start(site, buyer(site))
    client = client_of(site, client_for, buyer(site))
    for public_id in (payment.public_id, "made-up-id", "", "x" * 200):
        answer = api_status(client, public_id)
        assert answer.status_code == 404, public_id
        assert answer.json()["error"] == {"code": "payment_not_found", "message": "This payment could not be found."}


# --- /credits/repeat-order --------------------------------------------------------------


def test_repeat_order_without_a_mandate_goes_to_the_packages(site, client_for):
    user = buyer(site)
    buy(site, user, credits=20, method="applepay")  # no mandate
    answer = client_of(site, client_for, user).get("/credits/repeat-order")
    assert (answer.status_code, answer["Location"]) == (302, "/credits")


def test_repeat_order_shows_the_last_package_and_the_mandate(site, client_for):
    user = buyer(site)
    buy(site, user, credits=120, method="mastercard")
    body = client_of(site, client_for, user).get("/credits/repeat-order").content.decode()
    chosen = re.search(r'name="package" value="(\d+)" checked', body)
    assert chosen and int(chosen.group(1)) == pkg_id(site, 120)
    assert "Paid with your stored Mastercard" in body and "•••• 4242" in body
    assert 'data-testid="repeat-order-buy"' in body
    assert "You have 120 credits." in body


def test_repeat_order_buys_again_in_one_click(site, client_for):
    user = buyer(site)
    first = buy(site, user, credits=20, method="visa")
    client = client_of(site, client_for, user)
    answer = client.post("/credits/repeat-order", {"package": pkg_id(site, 50)})
    with on_site(site):
        repeat = Payment.objects.filter(user=user).exclude(pk=first.pk).get()
    assert answer.status_code == 302
    assert answer["Location"] == f"/credits/{pkg_id(site, 50)}/visa?payment={repeat.public_id}"
    assert (repeat.sequence, repeat.status, repeat.credits) == (Sequence.RECURRING, PaymentStatus.PAID, 50)
    assert fresh(user).credits == 70
    props = island_props(client.get(answer["Location"]))
    assert (props["payment"]["status"], props["recurring"]) == ("completed", True)


def test_a_failed_repeat_order_offers_retry_and_paypal(site, client_for):
    user = buyer(site)
    buy(site, user, credits=20, method="visa", action="pay_decline")  # the card declines repeat orders
    client = client_of(site, client_for, user)
    answer = client.post("/credits/repeat-order", {"package": pkg_id(site, 20)})
    assert answer.status_code == 302
    props = island_props(client.get(answer["Location"]))
    assert props["payment"]["status"] == "failed"
    assert props["recurring"] is True
    assert props["paypalUrl"] == f"/credits/{pkg_id(site, 20)}/paypal"
    assert props["urls"]["repeatOrder"] == "/credits/repeat-order"
    assert props["strings"]["failed"] == "Payment failed or has been cancelled."
    assert fresh(user).credits == 20


def test_repeat_order_errors_stay_on_the_page(site, client_for):
    user = buyer(site)
    buy(site, user, credits=20, method="visa")
    client = client_of(site, client_for, user)
    answer = client.post("/credits/repeat-order", {"package": "999999"}, follow=True)
    assert "Please choose a package." in answer.content.decode()
    User.objects.filter(pk=user.pk).update(credits_frozen=True)
    answer = client.post("/credits/repeat-order", {"package": pkg_id(site, 20)}, follow=True)
    assert 'data-testid="repeat-order-frozen"' in answer.content.decode()
    with on_site(site):
        assert Payment.objects.filter(user=user).count() == 1
        assert Mandate.objects.filter(user=user).count() == 1


def test_repeat_order_needs_the_csrf_token(site, client_for):
    user = buyer(site)
    buy(site, user, credits=20, method="visa")
    client = client_of(site, client_for, user, enforce_csrf_checks=True)
    assert client.post("/credits/repeat-order", {"package": pkg_id(site, 20)}).status_code == 403
    with on_site(site):
        assert Payment.objects.filter(user=user).count() == 1
