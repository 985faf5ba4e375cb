"""GET /api/discountcode.php and GET /api/timebonus.php (spec §7), and the time bonus on
pages: #app-state "timeBonus" and the TimeBonus island of the default layout."""

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.accounts.models import User
from apps.payments.models import CreditPackage, DiscountCode, DiscountCodeUse, Payment, PaymentStatus
from apps.profiles.tests.helpers_view import logged_in, member
from conftest import on_site

pytestmark = pytest.mark.django_db


def _member(site, name: str = "Anna", *, age: float = 60, **user_fields):
    joined = timezone.now() - timedelta(seconds=age)
    return member(site, name, user_fields={"date_joined": joined, **user_fields})


def _client(site, client_for, profile):
    return logged_in(site, client_for, profile)


def _use(site, user, code: str) -> None:
    with on_site(site):
        payment = Payment.objects.create(
            user=user,
            package_id=1,
            credits=20,
            currency="GBP",
            list_amount=1295,
            amount=971,
            discount_code=code,
            method="visa",
            gateway="sandbox",
            status=PaymentStatus.PAID,
        )
        DiscountCodeUse.objects.create(user=user, code=code, payment=payment)


def _package(site, credits: int = 20) -> CreditPackage:
    return CreditPackage.objects.get(site=site, credits=credits)


def _error(response) -> tuple[int, str, str]:
    error = response.json()["error"]
    return response.status_code, error["code"], error["message"]


# --- /api/timebonus.php -----------------------------------------------------------------


class TestTimeBonusApi:
    def test_a_new_member_gets_the_time_bonus(self, site, client_for):
        anna = _member(site, age=100)
        body = _client(site, client_for, anna).get("/api/timebonus.php").json()
        bonus = body["time_bonus"]
        assert (bonus["code"], bonus["percentage"]) == ("TIMEBONUS25", 25)
        assert bonus["expires"] == (anna.user.date_joined + timedelta(seconds=14400)).isoformat()
        assert 14290 <= bonus["seconds_left"] <= 14300

    @pytest.mark.parametrize(
        ("case", "fields"),
        [("paid", {"paid_user": True}), ("after 4 hours", {}), ("used", {})],
    )
    def test_none(self, site, client_for, case, fields):
        anna = _member(site, age=14401 if case == "after 4 hours" else 60, **fields)
        if case == "used":
            _use(site, anna.user, "TIMEBONUS25")
        answer = _client(site, client_for, anna).get("/api/timebonus.php")
        assert (answer.status_code, answer.json()) == (200, {"time_bonus": None})

    def test_visitors_must_log_in(self, site, client_for):
        answer = client_for(site).get("/api/timebonus.php")
        assert _error(answer) == (403, "authentication_required", "Please log in to continue.")


# --- /api/discountcode.php --------------------------------------------------------------


class TestDiscountCodeApi:
    def test_a_valid_code(self, site, client_for):
        DiscountCode.objects.create(site=site, code="SUMMER10", value_percentage=10)
        answer = _client(site, client_for, _member(site)).get("/api/discountcode.php", {"code": "summer10"})
        assert answer.status_code == 200
        payload = answer.json()["discount_code"]
        assert (payload["code"], payload["percentage"], payload["value_percentage"]) == ("SUMMER10", 10, 10)
        assert (payload["status"], payload["expired"], payload["kind"]) == ("active", False, "code")

    @pytest.mark.parametrize(
        ("fields", "params", "expected"),
        [
            ({}, {"code": "NOPE"}, (404, "code_not_found", "Code not found")),
            ({"status": "inactive"}, {"code": "C1"}, (400, "code_inactive", "This code is no longer valid.")),
            (
                {"country": "NL"},
                {"code": "C1"},
                (400, "code_wrong_country", "This code is not valid in United Kingdom."),
            ),
            (
                {"paymentmethods": ["ideal"]},
                {"code": "C1", "method": "visa"},
                (400, "code_wrong_method", "This code is only valid when you pay with iDEAL."),
            ),
            (
                {"currency": "EUR"},
                {"code": "C1", "package": "small"},
                (400, "code_wrong_currency", "This code is only valid for payments in EUR."),
            ),
            (
                {"minimum_order_value": 2000},
                {"code": "C1", "package": "small"},
                (400, "order_too_small", "This code is valid for orders of £20.00 or more."),
            ),
            ({}, {"code": ""}, (400, "code_required", "Enter a discount code.")),
        ],
    )
    def test_errors(self, site, client_for, fields, params, expected):
        DiscountCode.objects.create(site=site, code="C1", value_percentage=10, **fields)
        if params.get("package") == "small":
            params["package"] = _package(site, 20).pk  # 12.95 GBP on the demo site
        answer = _client(site, client_for, _member(site)).get("/api/discountcode.php", params)
        assert _error(answer) == expected
        assert answer.json()["error"]["fields"] == {"code": [expected[2]]}

    def test_expired(self, site, client_for):
        DiscountCode.objects.create(
            site=site, code="OLD", value_percentage=10, expires=timezone.now() - timedelta(days=1)
        )
        answer = _client(site, client_for, _member(site)).get("/api/discountcode.php", {"code": "old"})
        status, code, message = _error(answer)
        assert (status, code) == (400, "code_expired")
        assert message.startswith("This code expired on ")

    def test_already_used(self, site, client_for):
        DiscountCode.objects.create(site=site, code="ONCE", value_percentage=10)
        anna = _member(site)
        _use(site, anna.user, "ONCE")
        answer = _client(site, client_for, anna).get("/api/discountcode.php", {"code": "once"})
        assert _error(answer) == (409, "code_used", "Code already used")

    def test_the_minimum_is_met_by_a_bigger_package(self, site, client_for):
        DiscountCode.objects.create(site=site, code="BIG", value_percentage=20, minimum_order_value=2000)
        client = _client(site, client_for, _member(site))
        answer = client.get("/api/discountcode.php", {"code": "BIG", "package": _package(site, 50).pk})
        assert answer.status_code == 200
        assert answer.json()["discount_code"]["minimum_order_value"] == 2000

    def test_the_payment_country_decides_the_currency(self, site, client_for):
        DiscountCode.objects.create(site=site, code="EURO", value_percentage=10, currency="EUR")
        french = _member(site, "Amelie")
        with on_site(site):
            User.objects.filter(pk=french.user_id).update(country="FR")
        answer = _client(site, client_for, french).get(
            "/api/discountcode.php", {"code": "EURO", "package": _package(site).pk}
        )
        assert answer.status_code == 200

    def test_unknown_or_other_sites_package(self, site, gay_site, client_for):
        DiscountCode.objects.create(site=site, code="C1", value_percentage=10)
        client = _client(site, client_for, _member(site))
        for package in (987654, _package(gay_site).pk):
            answer = client.get("/api/discountcode.php", {"code": "C1", "package": package})
            assert _error(answer) == (404, "package_not_found", "This credit package is not available.")
        answer = client.get("/api/discountcode.php", {"code": "C1", "package": "abc"})
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid"

    def test_another_sites_code_is_not_found(self, site, gay_site, client_for):
        DiscountCode.objects.create(site=gay_site, code="GAY10", value_percentage=10)
        answer = _client(site, client_for, _member(site)).get("/api/discountcode.php", {"code": "GAY10"})
        assert _error(answer) == (404, "code_not_found", "Code not found")

    def test_visitors_must_log_in(self, site, client_for):
        for params in ({"code": "X"}, {"welcome": "true"}):
            answer = client_for(site).get("/api/discountcode.php", params)
            assert _error(answer) == (403, "authentication_required", "Please log in to continue.")

    def test_the_time_bonus_code_typed_in(self, site, client_for):
        client = _client(site, client_for, _member(site))
        payload = client.get("/api/discountcode.php", {"code": "timebonus25"}).json()["discount_code"]
        assert (payload["code"], payload["percentage"], payload["kind"]) == ("TIMEBONUS25", 25, "timebonus")
        old = _client(site, client_for, _member(site, "Old", age=14400))
        assert old.get("/api/discountcode.php", {"code": "TIMEBONUS25"}).json()["error"]["code"] == "code_expired"


class TestWelcome:
    def test_the_time_bonus_first(self, site, client_for):
        answer = _client(site, client_for, _member(site)).get("/api/discountcode.php", {"welcome": "true"})
        assert answer.json()["discount_code"]["code"] == "TIMEBONUS25"

    def test_then_the_welcome_discount(self, site, client_for):
        anna = _member(site, age=14400)
        payload = _client(site, client_for, anna).get("/api/discountcode.php", {"welcome": "true"}).json()
        assert payload["discount_code"]["code"] == "WELCOME25"
        assert payload["discount_code"]["kind"] == "welcome"
        assert payload["discount_code"]["expires"] == (anna.user.date_joined + timedelta(days=7)).isoformat()

    @pytest.mark.parametrize(("age", "fields"), [(60, {"paid_user": True}), (7 * 86400, {})])
    def test_none(self, site, client_for, age, fields):
        client = _client(site, client_for, _member(site, age=age, **fields))
        answer = client.get("/api/discountcode.php", {"welcome": "true"})
        assert (answer.status_code, answer.json()) == (200, {"discount_code": None})


class TestRateLimit:
    def test_20_checks_per_10_minutes_per_member(self, site, client_for):
        anna = _client(site, client_for, _member(site))
        for _ in range(20):
            assert anna.get("/api/discountcode.php", {"code": "GUESS"}).status_code == 404
        answer = anna.get("/api/discountcode.php", {"code": "GUESS"})
        assert _error(answer) == (
            429,
            "too_many_attempts",
            "Too many codes tried. Please wait a few minutes and try again.",
        )
        # The welcome discount is no guess; another member has their own count.
        assert anna.get("/api/discountcode.php", {"welcome": "true"}).status_code == 200
        ben = _client(site, client_for, _member(site, "Ben"))
        assert ben.get("/api/discountcode.php", {"code": "GUESS"}).status_code == 404


# --- Pages ------------------------------------------------------------------------------


def _app_state(body: str) -> dict:
    return json.loads(re.search(r'<script id="app-state" type="application/json">(.*?)</script>', body, re.S).group(1))


def _island(body: str) -> dict | None:
    found = re.search(r'<script id="island-TimeBonus-\d+-props" type="application/json">(.*?)</script>', body, re.S)
    return json.loads(found.group(1)) if found else None


class TestPages:
    def test_a_new_member_sees_the_time_bonus(self, site, client_for):
        client = _client(site, client_for, _member(site, age=100))
        body = client.get("/members").content.decode()
        state = _app_state(body)["timeBonus"]
        assert (state["code"], state["percentage"], state["isVisible"]) == ("TIMEBONUS25", 25, False)
        assert 14290 <= state["secondsLeft"] <= 14300
        props = _island(body)
        assert props["membersArea"] is True
        assert props["creditsUrl"] == "/credits"
        assert (props["dismissUrl"], props["dismissal"], props["dismissed"]) == (
            "/api/dismiss.php",
            "time_bonus",
            False,
        )
        assert props["modalDelaySeconds"] == 40
        assert props["strings"]["bannerText"] == "Time bonus: {percentage}% off your first credits!"
        assert props["strings"]["close"] == "Close"
        # The island sits right under the top bar.
        assert body.index('data-testid="topbar"') < body.index('data-island="TimeBonus"') < body.index('id="warnings"')

    def test_outside_the_members_area(self, site, client_for):
        client = _client(site, client_for, _member(site))
        assert _island(client.get("/").content.decode())["membersArea"] is False

    @pytest.mark.parametrize(("age", "fields"), [(60, {"paid_user": True}), (14400, {})])
    def test_no_time_bonus(self, site, client_for, age, fields):
        body = _client(site, client_for, _member(site, age=age, **fields)).get("/members").content.decode()
        assert _app_state(body)["timeBonus"] is None
        assert _island(body) is None

    def test_visitors_have_none(self, site, client_for):
        body = client_for(site).get("/").content.decode()
        assert "timeBonus" not in _app_state(body)
        assert _island(body) is None

    def test_the_modal_dismissal_is_stored(self, site, client_for):
        client = _client(site, client_for, _member(site))
        answer = client.post("/api/dismiss.php", {"alert": "time_bonus"}, content_type="application/json")
        assert answer.status_code == 200 and answer.json()["alert"] == "time_bonus"
        assert _island(client.get("/members").content.decode())["dismissed"] is True


def test_the_time_bonus_has_one_name_everywhere():
    """TIMEBONUS25 (spec §9 "Time bonus: 4 hours ... code TIMEBONUS25") is the "time bonus"
    in the banner, its modal, the credits page and checkout; WELCOME25 is the "welcome
    discount", another offer (7 days, first purchase)."""
    from apps.payments.discounts import time_bonus_strings
    from apps.payments.views_credits import checkout_strings

    banner = time_bonus_strings()
    checkout = checkout_strings()
    assert banner["bannerText"].startswith("Time bonus:")
    assert "time bonus" in banner["modalTitle"].lower()
    assert checkout["discountTimeBonus"].startswith("Time bonus:")
    assert checkout["discountWelcome"].startswith("Welcome discount:")
    texts = [*banner.values(), *checkout.values()]
    assert not [text for text in texts if "welcome bonus" in text.lower()]
