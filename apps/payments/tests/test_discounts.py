"""Discount codes, the time bonus and the welcome discount (spec §3, §4, §9):
apps.payments.discounts."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import formats, timezone, translation

from apps.accounts.models import User
from apps.common.exceptions import ApplicationError
from apps.payments.discounts import (
    KIND_CODE,
    KIND_TIME_BONUS,
    KIND_WELCOME,
    TIME_BONUS_CODE,
    TIME_BONUS_PERCENTAGE,
    TIME_BONUS_SECONDS,
    WELCOME_CODE,
    WELCOME_DISCOUNT_DAYS,
    WELCOME_PERCENTAGE,
    Discount,
    active_discount,
    discount_check,
    discount_for_payment,
    discount_payload,
    discount_use_record,
    time_bonus,
    time_bonus_page_state,
    time_bonus_payload,
    welcome_discount,
)
from apps.payments.models import DiscountCode, DiscountCodeStatus, DiscountCodeUse, Payment, PaymentStatus
from conftest import on_site

pytestmark = pytest.mark.django_db

WELCOME_SECONDS = WELCOME_DISCOUNT_DAYS * 86400


def test_the_constants_of_spec_9():
    assert (TIME_BONUS_CODE, TIME_BONUS_SECONDS, TIME_BONUS_PERCENTAGE) == ("TIMEBONUS25", 14400, 25)
    assert (WELCOME_CODE, WELCOME_PERCENTAGE, WELCOME_DISCOUNT_DAYS) == ("WELCOME25", 25, 7)


@pytest.fixture
def now():
    return timezone.now()


def _member(site, *, age: float = 60, now=None, name: str = "anna", **fields) -> User:
    """A member of `site` who signed up `age` seconds before `now`."""
    now = now or timezone.now()
    with on_site(site):
        user = User.objects.create_user(username=name, email=f"{name}@example.com", password="x-Long-passphrase-1")
        User.objects.filter(pk=user.pk).update(date_joined=now - timedelta(seconds=age), **fields)
        return User.objects.get(pk=user.pk)


def _used(site, user, code: str) -> DiscountCodeUse:
    with on_site(site):
        payment = Payment.objects.create(
            user=user,
            package_id=1,
            credits=20,
            currency="EUR",
            list_amount=1495,
            amount=1121,
            discount_code=code,
            discount_percentage=25,
            method="ideal",
            gateway="sandbox",
            status=PaymentStatus.PAID,
        )
        return DiscountCodeUse.objects.create(user=user, code=code, payment=payment)


def _selects(queries) -> list[str]:
    """The queries made, without django-tenants' search_path switches."""
    return [query["sql"] for query in queries if not query["sql"].startswith("SET search_path")]


def _code(site, code: str = "SUMMER10", **fields) -> DiscountCode:
    return DiscountCode.objects.create(
        site=site, code=code, value_percentage=fields.pop("value_percentage", 10), **fields
    )


def _check(site, user, code: str, **kwargs) -> Discount:
    kwargs.setdefault("country", "GB")
    with on_site(site):
        return discount_check(site=site, user=user, code=code, **kwargs)


def _error(site, user, code: str, **kwargs) -> ApplicationError:
    with pytest.raises(ApplicationError) as caught:
        _check(site, user, code, **kwargs)
    error = caught.value
    assert error.extra == {"fields": {"code": [str(error.message)]}}
    return error


# --- Time bonus -------------------------------------------------------------------------


class TestTimeBonus:
    def test_a_new_non_paying_member_gets_it_until_signup_plus_4_hours(self, site, now):
        anna = _member(site, age=14399, now=now)
        with on_site(site):
            bonus = time_bonus(anna, now=now)
        assert bonus == Discount(
            code="TIMEBONUS25", percentage=25, expires=anna.date_joined + timedelta(seconds=14400), kind=KIND_TIME_BONUS
        )
        assert bonus.seconds_left(now) == 1

    def test_signup_of_14400_seconds_ago_is_too_old(self, site, now):
        anna = _member(site, age=14400, now=now)
        with on_site(site):
            assert time_bonus(anna, now=now) is None
            assert time_bonus(anna, now=now - timedelta(seconds=1)) is not None

    def test_paying_members_get_none(self, site, now):
        anna = _member(site, age=10, now=now, paid_user=True)
        with on_site(site):
            assert time_bonus(anna, now=now) is None
            assert welcome_discount(anna, now=now) is None
            assert active_discount(anna, now=now) is None
            assert time_bonus_page_state(anna, now=now) is None

    def test_once_per_member(self, site, now):
        anna = _member(site, age=10, now=now)
        ben = _member(site, age=10, now=now, name="ben")
        _used(site, anna, TIME_BONUS_CODE)
        with on_site(site):
            assert time_bonus(anna, now=now) is None
            assert time_bonus(ben, now=now) is not None

    def test_visitors_get_none(self, site):
        from django.contrib.auth.models import AnonymousUser

        assert time_bonus(AnonymousUser()) is None
        assert time_bonus(None) is None
        assert active_discount(AnonymousUser()) is None

    def test_no_query_outside_the_4_hours_one_inside(self, site, now):
        old = _member(site, age=14400, now=now)
        new = _member(site, age=10, now=now, name="ben")
        with on_site(site), CaptureQueriesContext(connection) as queries:
            time_bonus(old, now=now)
        assert len(_selects(queries)) == 0
        with on_site(site), CaptureQueriesContext(connection) as queries:
            time_bonus(new, now=now)
        assert len(_selects(queries)) == 1

    def test_payload(self, site, now):
        anna = _member(site, age=100, now=now)
        with on_site(site):
            payload = time_bonus_payload(time_bonus(anna, now=now), now=now)
        assert payload == {
            "code": "TIMEBONUS25",
            "percentage": 25,
            "expires": (anna.date_joined + timedelta(seconds=14400)).isoformat(),
            "seconds_left": 14300,
        }
        assert time_bonus_payload(None) is None


class TestPageState:
    def test_the_page_state_costs_no_query(self, site, now):
        anna = _member(site, age=100, now=now)
        with CaptureQueriesContext(connection) as queries:
            state = time_bonus_page_state(anna, now=now)
        assert len(_selects(queries)) == 0
        expires = anna.date_joined + timedelta(seconds=14400)
        assert state == {
            "code": "TIMEBONUS25",
            "percentage": 25,
            "expiresAt": int(expires.timestamp() * 1000),
            "secondsLeft": 14300,
            "isVisible": False,
        }

    @pytest.mark.parametrize(("age", "present"), [(0, True), (14399, True), (14400, False), (86400, False)])
    def test_boundaries(self, site, now, age, present):
        anna = _member(site, age=age, now=now)
        assert (time_bonus_page_state(anna, now=now) is not None) is present


# --- Welcome discount and the active discount -------------------------------------------


class TestWelcome:
    def test_25_percent_until_7_days_after_signup(self, site, now):
        anna = _member(site, age=WELCOME_SECONDS - 1, now=now)
        with on_site(site):
            welcome = welcome_discount(anna, now=now)
            assert welcome == Discount(
                code="WELCOME25",
                percentage=25,
                expires=anna.date_joined + timedelta(days=7),
                kind=KIND_WELCOME,
            )
            assert welcome_discount(anna, now=now + timedelta(seconds=1)) is None

    def test_once(self, site, now):
        anna = _member(site, age=20000, now=now)
        _used(site, anna, WELCOME_CODE)
        with on_site(site):
            assert welcome_discount(anna, now=now) is None


class TestActiveDiscount:
    def test_the_time_bonus_first(self, site, now):
        anna = _member(site, age=60, now=now)
        with on_site(site), CaptureQueriesContext(connection) as queries:
            assert active_discount(anna, now=now).kind == KIND_TIME_BONUS
        assert len(_selects(queries)) == 1

    def test_then_the_welcome_discount(self, site, now):
        anna = _member(site, age=14400, now=now)
        with on_site(site):
            assert active_discount(anna, now=now).code == WELCOME_CODE

    def test_the_welcome_discount_when_the_time_bonus_was_used(self, site, now):
        anna = _member(site, age=60, now=now)
        _used(site, anna, TIME_BONUS_CODE)
        with on_site(site):
            assert active_discount(anna, now=now).code == WELCOME_CODE

    def test_nothing_after_the_welcome_period_and_no_query(self, site, now):
        anna = _member(site, age=WELCOME_SECONDS, now=now)
        with on_site(site), CaptureQueriesContext(connection) as queries:
            assert active_discount(anna, now=now) is None
        assert len(_selects(queries)) == 0

    def test_nothing_when_both_were_used(self, site, now):
        anna = _member(site, age=60, now=now)
        _used(site, anna, TIME_BONUS_CODE)
        _used(site, anna, WELCOME_CODE)
        with on_site(site):
            assert active_discount(anna, now=now) is None


# --- Site codes -------------------------------------------------------------------------


class TestDiscountCheck:
    def test_a_valid_code_any_case_and_spaces(self, site):
        anna = _member(site)
        _code(site, "SUMMER10", value_percentage=15)
        discount = _check(site, anna, "  summer10 ", currency="GBP", amount=2595, method="visa")
        assert discount == Discount(code="SUMMER10", percentage=15, expires=None, kind=KIND_CODE)

    def test_empty_restrictions_mean_any(self, site):
        anna = _member(site)
        _code(site)
        for country, currency, method in [("GB", "GBP", "visa"), ("FR", "EUR", "ideal"), ("US", "USD", "paypal")]:
            assert _check(site, anna, "SUMMER10", country=country, currency=currency, method=method).percentage == 10

    def test_not_found(self, site):
        anna = _member(site)
        error = _error(site, anna, "NOPE")
        assert (error.code, error.message, error.status_code) == ("code_not_found", "Code not found", 404)
        assert _error(site, anna, "X" * 41).code == "code_not_found"

    def test_empty(self, site):
        error = _error(site, _member(site), "   ")
        assert (error.code, error.message, error.status_code) == ("code_required", "Enter a discount code.", 400)

    def test_another_sites_code_never_matches(self, site, gay_site):
        anna = _member(site)
        _code(gay_site, "GAYONLY")
        assert _error(site, anna, "gayonly").code == "code_not_found"
        _code(site, "GAYONLY", value_percentage=30)
        assert _check(site, anna, "GAYONLY").percentage == 30

    def test_each_member_uses_a_code_once(self, site):
        anna = _member(site)
        ben = _member(site, name="ben")
        _code(site)
        _used(site, anna, "SUMMER10")
        error = _error(site, anna, "summer10")
        assert (error.code, error.message, error.status_code) == ("code_used", "Code already used", 409)
        assert _check(site, ben, "SUMMER10").code == "SUMMER10"

    def test_a_members_own_code(self, site):
        anna = _member(site)
        ben = _member(site, name="ben")
        _code(site, "ANNA50", value_percentage=50, member_id=anna.pk)
        assert _check(site, anna, "ANNA50").percentage == 50
        error = _error(site, ben, "ANNA50")
        assert (error.code, error.message) == ("code_not_for_you", "This code is not valid for your account.")

    def test_inactive(self, site):
        _code(site, status=DiscountCodeStatus.INACTIVE)
        error = _error(site, _member(site), "SUMMER10")
        assert (error.code, error.message, error.status_code) == ("code_inactive", "This code is no longer valid.", 400)

    def test_expired(self, site):
        expires = timezone.now() - timedelta(minutes=1)
        _code(site, expires=expires)
        error = _error(site, _member(site), "SUMMER10")
        when = formats.date_format(timezone.localtime(expires), "DATETIME_FORMAT")
        # One full stop, also after a time ending in "a.m." or "p.m.".
        assert (error.code, error.message) == ("code_expired", f"This code expired on {when.rstrip('.')}.")
        assert not error.message.endswith("..")
        _code(site, "LATER", expires=timezone.now() + timedelta(minutes=1))
        assert _check(site, _member(site, name="ben"), "LATER").expires is not None

    def test_expired_in_the_afternoon_ends_with_one_full_stop(self, site):
        # English times end in "p.m.": the sentence's own full stop is not doubled.
        _code(site, "AFTERNOON", expires=datetime(2020, 1, 2, 14, 30, tzinfo=UTC))
        with timezone.override("UTC"), translation.override("en"):
            error = _error(site, _member(site), "AFTERNOON")
        assert error.message.startswith("This code expired on ") and "2020" in error.message
        assert error.message.endswith(" p.m.") and not error.message.endswith("..")

    def test_wrong_country(self, site):
        _code(site, country="NL")
        error = _error(site, _member(site), "SUMMER10", country="GB")
        assert (error.code, error.message) == ("code_wrong_country", "This code is not valid in United Kingdom.")
        assert _check(site, _member(site, name="ben"), "SUMMER10", country="nl").country == "NL"

    def test_wrong_currency(self, site):
        _code(site, currency="EUR")
        error = _error(site, _member(site), "SUMMER10", currency="GBP")
        assert (error.code, error.message) == ("code_wrong_currency", "This code is only valid for payments in EUR.")
        assert _check(site, _member(site, name="ben"), "SUMMER10", currency="EUR").currency == "EUR"

    def test_wrong_method(self, site):
        _code(site, paymentmethods=["ideal", "creditcard"])
        error = _error(site, _member(site), "SUMMER10", method="paypal")
        assert (error.code, error.message) == (
            "code_wrong_method",
            "This code is only valid when you pay with iDEAL, Credit card.",
        )
        discount = _check(site, _member(site, name="ben"), "SUMMER10", method="ideal")
        assert discount.paymentmethods == ("ideal", "creditcard")

    def test_minimum_order_value_before_the_discount(self, site):
        _code(site, minimum_order_value=2595, currency="GBP")
        anna = _member(site)
        error = _error(site, anna, "SUMMER10", currency="GBP", amount=2594)
        assert (error.code, error.message) == ("order_too_small", "This code is valid for orders of £25.95 or more.")
        assert _check(site, anna, "SUMMER10", currency="GBP", amount=2595).minimum_order_value == 2595
        # Without a package (no amount yet) the minimum is checked at payment.
        assert _check(site, anna, "SUMMER10").code == "SUMMER10"

    def test_minimum_order_value_of_a_code_for_any_currency(self, site):
        _code(site, minimum_order_value=3000)
        error = _error(site, _member(site), "SUMMER10", currency="EUR", amount=2995)
        assert error.message == "This code is valid for orders of €30.00 or more."


class TestOwnOffersTypedIn:
    def test_the_time_bonus_code_within_4_hours(self, site):
        anna = _member(site, age=60)
        discount = _check(site, anna, "timebonus25")
        assert (discount.code, discount.percentage, discount.kind) == ("TIMEBONUS25", 25, KIND_TIME_BONUS)

    def test_the_time_bonus_code_after_4_hours(self, site):
        anna = _member(site, age=14400)
        error = _error(site, anna, "TIMEBONUS25")
        assert error.code == "code_expired"
        assert error.message.startswith("This code expired on ")

    def test_the_time_bonus_code_for_a_paying_member(self, site):
        error = _error(site, _member(site, age=60, paid_user=True), "TIMEBONUS25")
        assert error.code == "code_not_for_you"

    def test_the_time_bonus_code_twice(self, site):
        anna = _member(site, age=60)
        _used(site, anna, TIME_BONUS_CODE)
        assert _error(site, anna, "TIMEBONUS25").code == "code_used"

    def test_the_welcome_code(self, site):
        anna = _member(site, age=WELCOME_SECONDS - 60)
        assert _check(site, anna, "welcome25").kind == KIND_WELCOME
        assert _error(site, _member(site, age=WELCOME_SECONDS, name="ben"), "WELCOME25").code == "code_expired"
        assert _error(site, _member(site, age=60, name="cleo", paid_user=True), "WELCOME25").code == "code_not_for_you"
        _used(site, anna, WELCOME_CODE)
        assert _error(site, anna, "WELCOME25").code == "code_used"


class TestForPayment:
    def test_no_code_gives_the_active_discount(self, site):
        anna = _member(site, age=60)
        with on_site(site):
            discount = discount_for_payment(
                site=site, user=anna, code=" ", country="GB", currency="GBP", amount=2595, method="visa"
            )
        assert discount.code == TIME_BONUS_CODE

    def test_no_code_and_no_offer(self, site):
        paid = _member(site, age=60, paid_user=True)
        with on_site(site):
            assert (
                discount_for_payment(site=site, user=paid, code="", country="GB", currency="GBP", amount=1, method="x")
                is None
            )

    def test_a_code_is_checked(self, site):
        anna = _member(site, age=60)
        _code(site, minimum_order_value=5000)
        with on_site(site), pytest.raises(ApplicationError) as caught:
            discount_for_payment(
                site=site, user=anna, code="summer10", country="GB", currency="GBP", amount=2595, method="visa"
            )
        assert caught.value.code == "order_too_small"
        with on_site(site):
            discount = discount_for_payment(
                site=site, user=anna, code="summer10", country="GB", currency="GBP", amount=5195, method="visa"
            )
        assert discount.code == "SUMMER10"


class TestUseRecord:
    def _payment(self, site, user, code: str) -> Payment:
        with on_site(site):
            return Payment.objects.create(
                user=user,
                package_id=1,
                credits=20,
                currency="GBP",
                list_amount=1295,
                amount=971,
                discount_code=code,
                discount_percentage=25,
                method="visa",
                gateway="sandbox",
                status=PaymentStatus.PAID,
            )

    def test_records_once_and_ignores_repeats_quietly(self, site):
        anna = _member(site)
        first = self._payment(site, anna, "timebonus25")
        second = self._payment(site, anna, "TIMEBONUS25")
        with on_site(site):
            discount_use_record(payment=first)
            discount_use_record(payment=first)
            discount_use_record(payment=second)
            assert list(DiscountCodeUse.objects.values_list("user_id", "code", "payment_id")) == [
                (anna.pk, "TIMEBONUS25", first.pk)
            ]
            assert time_bonus(anna) is None

    def test_no_code_no_use(self, site):
        anna = _member(site)
        with on_site(site):
            discount_use_record(payment=self._payment(site, anna, ""))
            assert not DiscountCodeUse.objects.exists()


def test_discount_payload_has_the_fields_of_spec_3(site):
    expires = timezone.now() + timedelta(days=2)
    _code(
        site,
        "FULL20",
        value_percentage=20,
        country="GB",
        currency="GBP",
        minimum_order_value=1000,
        paymentmethods=["visa"],
        expires=expires,
    )
    anna = _member(site)
    now = timezone.now()
    payload = discount_payload(_check(site, anna, "full20", currency="GBP", amount=2595, method="visa"), now=now)
    when = formats.date_format(timezone.localtime(expires), "DATETIME_FORMAT")
    assert payload == {
        "code": "FULL20",
        "kind": "code",
        "value_percentage": 20,
        "percentage": 20,
        "country": "GB",
        "user_id": None,
        "expires": expires.isoformat(),
        "expired": False,
        "seconds_left": pytest.approx(2 * 86400, abs=5),
        "validity": f"Valid until {when}",
        "status": "active",
        "currency": "GBP",
        "minimum_order_value": 1000,
        "paymentmethods": ["visa"],
    }
    assert discount_payload(None) is None
    no_end = discount_payload(Discount(code="X", percentage=5, expires=None, kind=KIND_CODE))
    assert (no_end["validity"], no_end["expires"], no_end["expired"], no_end["seconds_left"]) == (
        "Valid without an end date",
        None,
        False,
        None,
    )
