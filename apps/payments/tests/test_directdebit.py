"""SMS direct debit (/directdebit, spec §2, §5, §8; issue 6 item 8): the form and each
field's message, the blocked member, the limits, the SMS code (sent through the locmem
SMS backend, single use, 10 minutes, tied to its request, rate-limited) and the
confirmed order: a mandate at the (sandbox) gateway, a payment on it, the status page."""

import io
import logging
import re
from datetime import timedelta

import pytest
from django.db import transaction
from django.test import Client
from django.utils import timezone

from apps.common.exceptions import ApplicationError
from apps.payments import directdebit, sms
from apps.payments.formatting import money_format
from apps.payments.models import CreditPackage, DirectDebitRequest, Mandate, Payment, PaymentStatus
from apps.payments.selectors import discounted
from apps.profiles.tests.helpers_view import logged_in, member
from conftest import on_site

pytestmark = pytest.mark.django_db

IBAN = "NL91ABNA0417164300"
IBAN_TYPED = "nl91 abna 0417 1643 00"
MOBILE_TYPED = "06 12345678"
MOBILE = "+31612345678"
# How the valid values of _data() are shown again, tidied.
SHOWN = {
    "account_holder": "Dirk de Vries",
    "iban": "NL91 ABNA 0417 1643 00",
    "street": "Lindengracht",
    "house_number": "12a",
    "postal_code": "1015 BS",
    "city": "Amsterdam",
    "mobile": "+31 6 12345678",
}


@pytest.fixture(autouse=True)
def _sms_outbox():
    sms.outbox.clear()
    yield
    sms.outbox.clear()


@pytest.fixture(autouse=True)
def _on_commit_runs_at_once(monkeypatch):
    """Each test runs in a transaction that never commits: send after-commit SMS at once."""
    monkeypatch.setattr(transaction, "on_commit", lambda func, using=None, robust=False: func())


@pytest.fixture
def limits(settings):
    settings.DIRECT_DEBIT_LIMIT_AMOUNT = 15000
    settings.DIRECT_DEBIT_LIMIT_COUNT = 3
    return settings


def _member(site, name="Dirk", country="NL", **user_fields):
    return member(site, name, user_fields={"country": country, **user_fields}, country=country)


def _package(site, credits=50) -> CreditPackage:
    return CreditPackage.objects.get(site=site, credits=credits)


def _data(package, **overrides) -> dict:
    data = {
        "package": str(package.pk),
        "account_holder": "Dirk de Vries",
        "iban": IBAN_TYPED,
        "street": "Lindengracht",
        "house_number": "12a",
        "postal_code": "1015 bs",
        "city": "Amsterdam",
        "mobile": MOBILE_TYPED,
        "authorization": "on",
    }
    data.update(overrides)
    return {key: value for key, value in data.items() if value is not None}


def _submit(client, package, **overrides):
    return client.post("/directdebit", _data(package, **overrides))


def _start(gay_site, client, package) -> tuple[DirectDebitRequest, str]:
    """A valid step 1: the new request and the code from its SMS."""
    count = len(sms.outbox)
    answer = _submit(client, package)
    assert answer.status_code == 302, answer.content.decode()[:2000]
    assert len(sms.outbox) == count + 1
    code = re.search(r"\b(\d{6})\b", sms.outbox[-1].text).group(1)
    with on_site(gay_site):
        dd_request = DirectDebitRequest.objects.get(pk=int(answer["Location"].split("/")[2]))
    assert answer["Location"] == f"/directdebit/{dd_request.pk}/code"
    return dd_request, code


def _wrong(code: str) -> str:
    return f"{(int(code) + 1) % 10**6:06d}"


def _payment(site, user, *, amount, status=PaymentStatus.PAID, method="directdebit", days_ago=0):
    with on_site(site):
        payment = Payment.objects.create(
            user=user,
            package_id=1,
            credits=20,
            currency="EUR",
            list_amount=amount,
            amount=amount,
            method=method,
            gateway="sandbox",
            status=status,
        )
        if days_ago:
            Payment.objects.filter(pk=payment.pk).update(created=timezone.now() - timedelta(days=days_ago))
    return payment


# --- Step 1: the page and the form ---------------------------------------------------


def test_page_needs_a_login(gay_site, client_for):
    answer = client_for(gay_site).get("/directdebit")
    assert answer.status_code == 302
    assert "/login" in answer["Location"]


def test_form_shows_the_package_with_the_discount_and_the_mandate(gay_site, client_for):
    client = logged_in(gay_site, client_for, _member(gay_site))
    package = _package(gay_site)
    answer = client.get(f"/directdebit?package={package.pk}")
    page = answer.content.decode()
    assert answer.status_code == 200
    assert 'data-state="form"' in page
    # A new member has the time bonus: 25 % off 29.95 EUR.
    price = money_format(discounted(2995, 25), "EUR")
    assert price == "€22.46"
    assert f'data-testid="dd-price">{price}<' in page
    assert 'data-testid="dd-list-price">€29.95<' in page
    assert "50 credits" in page
    mandate = re.search(r'data-testid="dd-mandate-text">([^<]*)<', page).group(1)
    assert "Demo Dating B.V." in mandate and price in mandate and "Manline" in mandate
    for name in ("account_holder", "iban", "street", "house_number", "postal_code", "city", "mobile", "authorization"):
        assert f'data-testid="field-{name}"' in page


def test_without_a_package_the_member_chooses_one(gay_site, client_for):
    client = logged_in(gay_site, client_for, _member(gay_site))
    page = client.get("/directdebit").content.decode()
    assert 'data-state="choose"' in page
    for package in CreditPackage.objects.filter(site=gay_site, is_active=True):
        assert f"/directdebit?package={package.pk}" in page
    answer = client.get("/directdebit?package=999999")
    assert answer.status_code == 400
    assert "This package is not available. Please choose a package." in answer.content.decode()
    # A package of another site is not on sale here.
    other = CreditPackage.objects.exclude(site=gay_site).first()
    assert client.get(f"/directdebit?package={other.pk}").status_code == 400


@pytest.mark.parametrize("country", ["GB"])
def test_not_offered_where_the_country_has_no_direct_debit(gay_site, client_for, country):
    client = logged_in(gay_site, client_for, _member(gay_site, country=country))
    answer = client.get(f"/directdebit?package={_package(gay_site).pk}")
    page = answer.content.decode()
    assert answer.status_code == 404
    assert 'data-testid="dd-unavailable"' in page and 'href="/credits"' in page
    assert 'data-testid="dd-form"' not in page


def test_not_offered_when_the_site_turned_it_off(gay_site, client_for):
    gay_site.direct_debit_enabled = False
    gay_site.save(update_fields=["direct_debit_enabled"])
    client = logged_in(gay_site, client_for, _member(gay_site))
    answer = client.get(f"/directdebit?package={_package(gay_site).pk}")
    assert answer.status_code == 404
    assert 'data-testid="dd-unavailable"' in answer.content.decode()
    assert _submit(client, _package(gay_site)).status_code == 404
    with on_site(gay_site):
        assert not DirectDebitRequest.objects.exists()


def test_every_field_is_required(gay_site, client_for):
    client = logged_in(gay_site, client_for, _member(gay_site))
    package = _package(gay_site)
    empty = dict.fromkeys(
        ("account_holder", "iban", "street", "house_number", "postal_code", "city", "mobile", "authorization")
    )
    answer = _submit(client, package, **empty)
    page = answer.content.decode()
    assert answer.status_code == 400
    for name, message in {
        "account_holder": "Enter the name of the account holder.",
        "iban": "Enter your IBAN.",
        "street": "Enter your street.",
        "house_number": "Enter your house number.",
        "postal_code": "Enter your postal code.",
        "city": "Enter your city.",
        "mobile": "Enter your mobile number.",
        "authorization": "Please tick the box to authorise the direct debit.",
    }.items():
        assert re.search(rf'data-testid="error-{name}"><div>{re.escape(message)}</div>', page), name
    # The page opens at the first field to correct.
    assert re.findall(r'<input[^>]*autofocus[^>]*data-testid="field-([a-z_]+)"', page) == ["account_holder"]
    assert sms.outbox == []


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("iban", "NL91ABNA0417164301", "This IBAN is not valid. Please check it for typing errors."),
        ("iban", "NL91ABNA041716430", "This IBAN has the wrong number of characters. Please check it."),
        ("iban", "XX91ABNA0417164300", "An IBAN starts with a country code such as NL, BE or DE. Please check it."),
        ("iban", "SA0380000000608010167519", "Direct debit is only possible from a bank account in the SEPA area."),
        ("mobile", "not a number", "Enter a valid mobile number."),
        ("mobile", "06 1234", "Enter a valid mobile number."),
        ("mobile", "020 123 4567", "This is not a mobile number. We send the code by SMS, so enter a mobile number."),
        ("postal_code", "10155", "Enter a valid postal code."),
        ("house_number", "bis", "Enter a valid house number, for example 12 or 12a."),
        ("account_holder", "1234", "Enter the name of the account holder."),
        ("city", "x" * 101, "Enter at most 100 characters."),
    ],
)
def test_field_messages_and_nothing_typed_is_lost(gay_site, client_for, field, value, message):
    client = logged_in(gay_site, client_for, _member(gay_site))
    answer = _submit(client, _package(gay_site), **{field: value})
    page = answer.content.decode()
    assert answer.status_code == 400
    assert f'data-testid="error-{field}"><div>{message}</div>' in page
    errors = re.findall(r'data-testid="error-([a-z_]+)"', page)
    assert errors == [field]
    # What the member typed is shown again: the wrong value as typed, valid ones tidied.
    assert f'value="{value}"' in page
    for name, shown in SHOWN.items():
        if name != field:
            assert f'value="{shown}"' in page, name
    assert "checked" in re.search(r'<input[^>]*data-testid="field-authorization"[^>]*>', page).group(0)
    with on_site(gay_site):
        assert not DirectDebitRequest.objects.exists()


def test_authorization_is_required(gay_site, client_for):
    client = logged_in(gay_site, client_for, _member(gay_site))
    answer = _submit(client, _package(gay_site), authorization=None)
    page = answer.content.decode()
    assert answer.status_code == 400
    assert re.findall(r'data-testid="error-([a-z_]+)"', page) == ["authorization"]
    assert "checked" not in re.search(r'<input[^>]*data-testid="field-authorization"[^>]*>', page).group(0)
    assert sms.outbox == []


def test_foreign_mobile_numbers_and_other_sepa_countries_are_taken(gay_site, client_for):
    client = logged_in(gay_site, client_for, _member(gay_site))
    answer = _submit(client, _package(gay_site), mobile="+49 151 23456789", iban="DE89 3704 0044 0532 0130 00")
    assert answer.status_code == 302
    with on_site(gay_site):
        dd_request = DirectDebitRequest.objects.get()
    assert dd_request.mobile == "+4915123456789"
    assert dd_request.iban == "DE89370400440532013000"


def test_blocked_member_sees_the_message_and_no_form(gay_site, client_for):
    profile = _member(gay_site, direct_debit_blocked=True)
    client = logged_in(gay_site, client_for, profile)
    package = _package(gay_site)
    answer = client.get(f"/directdebit?package={package.pk}")
    page = answer.content.decode()
    assert answer.status_code == 403
    assert "Your account is blocked for direct debit payments." in page
    assert 'data-testid="dd-form"' not in page
    answer = _submit(client, package)
    assert answer.status_code == 403
    assert "Your account is blocked for direct debit payments." in answer.content.decode()
    with on_site(gay_site):
        assert not DirectDebitRequest.objects.exists()
    assert sms.outbox == []


LIMIT_MESSAGE = "Your limit for direct debit payments has been reached. Please choose another payment method."


def test_limit_on_the_amount(gay_site, client_for, limits):
    profile = _member(gay_site)
    client = logged_in(gay_site, client_for, profile)
    package = _package(gay_site)  # €22.46 with the time bonus
    _payment(gay_site, profile.user, amount=12000)
    # Failed, cancelled, expired, older and other-method payments do not count.
    for status in (PaymentStatus.FAILED, PaymentStatus.CANCELED, PaymentStatus.EXPIRED):
        _payment(gay_site, profile.user, amount=5000, status=status)
    _payment(gay_site, profile.user, amount=5000, days_ago=31)
    _payment(gay_site, profile.user, amount=5000, method="ideal")
    page = client.get(f"/directdebit?package={package.pk}").content.decode()
    assert 'data-state="form"' in page  # 120.00 + 22.46 <= 150.00

    _payment(gay_site, profile.user, amount=800, status=PaymentStatus.PENDING)  # 128.00 + 22.46 > 150.00
    answer = client.get(f"/directdebit?package={package.pk}")
    page = answer.content.decode()
    assert answer.status_code == 403
    assert LIMIT_MESSAGE in page and 'data-testid="dd-form"' not in page
    assert f'href="/credits/{package.pk}"' in page
    # The smallest package still fits.
    assert 'data-state="form"' in client.get(f"/directdebit?package={_package(gay_site, 20).pk}").content.decode()
    assert _submit(client, package).status_code == 403
    with on_site(gay_site):
        assert not DirectDebitRequest.objects.exists()


def test_limit_on_the_number(gay_site, client_for, limits):
    profile = _member(gay_site)
    client = logged_in(gay_site, client_for, profile)
    package = _package(gay_site, 20)
    _payment(gay_site, profile.user, amount=100)
    _payment(gay_site, profile.user, amount=100, status=PaymentStatus.OPEN)
    assert 'data-state="form"' in client.get(f"/directdebit?package={package.pk}").content.decode()
    _payment(gay_site, profile.user, amount=100)
    answer = client.get(f"/directdebit?package={package.pk}")
    assert answer.status_code == 403
    assert LIMIT_MESSAGE in answer.content.decode()


# --- The SMS code ------------------------------------------------------------------


def test_valid_form_sends_the_code_by_sms(gay_site, client_for):
    profile = _member(gay_site)
    client = logged_in(gay_site, client_for, profile)
    dd_request, code = _start(gay_site, client, _package(gay_site))

    message = sms.outbox[0]
    assert message.to == MOBILE
    assert "Manline" in message.text and "€22.46" in message.text
    assert dd_request.user_id == profile.user.pk
    assert dd_request.iban == IBAN and dd_request.mobile == MOBILE
    assert dd_request.postal_code == "1015 BS" and dd_request.house_number == "12a"
    assert dd_request.authorized_at is not None and dd_request.confirmed_at is None
    assert code not in dd_request.code_hash and len(dd_request.code_hash) > 20
    assert timedelta(minutes=9) < dd_request.code_expires - timezone.now() <= timedelta(minutes=10)

    page = client.get(f"/directdebit/{dd_request.pk}/code").content.decode()
    assert 'data-state="open"' in page
    assert 'data-testid="dd-code-iban">NL** **** **** 4300<' in page
    assert IBAN not in page and "0417 1643" not in page and "612345678" not in page
    assert 'data-testid="field-code"' in page


def test_wrong_code_is_invalid(gay_site, client_for):
    client = logged_in(gay_site, client_for, _member(gay_site))
    dd_request, code = _start(gay_site, client, _package(gay_site))
    answer = client.post(f"/directdebit/{dd_request.pk}/code", {"code": _wrong(code)})
    page = answer.content.decode()
    assert answer.status_code == 400
    assert 'data-testid="error-code"><div>Code invalid</div>' in page
    assert "You can try 4 more times." in page
    assert f'value="{_wrong(code)}"' in page
    dd_request.refresh_from_db()
    assert dd_request.attempts == 1 and dd_request.confirmed_at is None
    # A badly typed code is not a try.
    answer = client.post(f"/directdebit/{dd_request.pk}/code", {"code": "12ab"})
    assert "The code has 6 digits. Please check the SMS." in answer.content.decode()
    dd_request.refresh_from_db()
    assert dd_request.attempts == 1


def test_expired_code_is_invalid_and_explained(gay_site, client_for):
    client = logged_in(gay_site, client_for, _member(gay_site))
    dd_request, code = _start(gay_site, client, _package(gay_site))
    with on_site(gay_site):
        DirectDebitRequest.objects.filter(pk=dd_request.pk).update(code_expires=timezone.now() - timedelta(seconds=1))
    answer = client.post(f"/directdebit/{dd_request.pk}/code", {"code": code})
    page = answer.content.decode()
    assert answer.status_code == 400
    assert "Code invalid" in page
    assert "This code has expired: a code is valid for 10 minutes. Please ask for a new code." in page
    assert 'data-testid="dd-resend"' in page
    dd_request.refresh_from_db()
    assert dd_request.confirmed_at is None
    # Also on a fresh look at the page.
    page = client.get(f"/directdebit/{dd_request.pk}/code").content.decode()
    assert 'data-state="expired"' in page and "This code has expired" in page


def test_expiry_is_ten_minutes(gay_site, client_for):
    client = logged_in(gay_site, client_for, _member(gay_site))
    dd_request, code = _start(gay_site, client, _package(gay_site))
    later = dd_request.code_expires
    with pytest.raises(ApplicationError) as error, on_site(gay_site):
        directdebit.directdebit_confirm(
            request=None, user=dd_request.user, request_id=dd_request.pk, code=code, now=later
        )
    assert error.value.code == "code_expired" and error.value.message == "Code invalid"
    assert directdebit.request_state(dd_request, now=later - timedelta(seconds=1)) == "open"


def test_code_of_another_request_does_not_work(gay_site, client_for, monkeypatch):
    # Two different codes for certain (random ones match once in a million).
    codes = iter(["111111", "222222"])
    monkeypatch.setattr(directdebit.secrets, "randbelow", lambda _bound: int(next(codes)))
    client = logged_in(gay_site, client_for, _member(gay_site))
    package = _package(gay_site)
    first, first_code = _start(gay_site, client, package)
    second, second_code = _start(gay_site, client, package)
    assert (first_code, second_code) == ("111111", "222222")
    answer = client.post(f"/directdebit/{second.pk}/code", {"code": first_code})
    assert answer.status_code == 400 and "Code invalid" in answer.content.decode()
    answer = client.post(f"/directdebit/{first.pk}/code", {"code": second_code})
    assert answer.status_code == 400 and "Code invalid" in answer.content.decode()


def test_another_members_request_is_not_found(gay_site, client_for):
    owner = logged_in(gay_site, client_for, _member(gay_site, "Owner"))
    dd_request, code = _start(gay_site, owner, _package(gay_site))
    other = logged_in(gay_site, client_for, _member(gay_site, "Other"))
    assert other.get(f"/directdebit/{dd_request.pk}/code").status_code == 404
    assert other.post(f"/directdebit/{dd_request.pk}/code", {"code": code}).status_code == 404
    assert other.post(f"/directdebit/{dd_request.pk}/resend").status_code == 404
    # Not through "Change my details" either.
    page = other.get(f"/directdebit?package={dd_request.package_id}&request={dd_request.pk}").content.decode()
    assert "Lindengracht" not in page
    dd_request.refresh_from_db()
    assert dd_request.confirmed_at is None and dd_request.attempts == 0
    assert len(sms.outbox) == 1


def test_too_many_wrong_codes_void_the_request(gay_site, client_for):
    client = logged_in(gay_site, client_for, _member(gay_site))
    dd_request, code = _start(gay_site, client, _package(gay_site))
    for _try in range(directdebit.WRONG_CODES_MAX - 1):
        assert client.post(f"/directdebit/{dd_request.pk}/code", {"code": _wrong(code)}).status_code == 400
    answer = client.post(f"/directdebit/{dd_request.pk}/code", {"code": _wrong(code)})
    assert answer.status_code == 429
    page = answer.content.decode()
    assert "Code invalid" in page and "a wrong code was entered too often" in page.lower()
    assert 'data-state="void"' in page
    # Even the right code no longer works.
    answer = client.post(f"/directdebit/{dd_request.pk}/code", {"code": code})
    assert answer.status_code == 429 and "Code invalid" in answer.content.decode()
    dd_request.refresh_from_db()
    assert dd_request.confirmed_at is None and dd_request.attempts == directdebit.WRONG_CODES_MAX

    # A new code is sent for a new request with the same details.
    answer = client.post(f"/directdebit/{dd_request.pk}/resend")
    assert answer.status_code == 302
    with on_site(gay_site):
        new = DirectDebitRequest.objects.exclude(pk=dd_request.pk).get()
    assert answer["Location"] == f"/directdebit/{new.pk}/code"
    assert (new.iban, new.mobile, new.package_id, new.attempts) == (IBAN, MOBILE, dd_request.package_id, 0)
    assert len(sms.outbox) == 2 and sms.outbox[-1].to == MOBILE


def test_resend_voids_the_old_code(gay_site, client_for):
    client = logged_in(gay_site, client_for, _member(gay_site))
    dd_request, code = _start(gay_site, client, _package(gay_site))
    answer = client.post(f"/directdebit/{dd_request.pk}/resend", follow=True)
    assert "We sent a new code to +31•••••••78." in answer.content.decode()
    answer = client.post(f"/directdebit/{dd_request.pk}/code", {"code": code})
    assert answer.status_code == 400 and "Code invalid" in answer.content.decode()


def test_at_most_three_codes_an_hour(gay_site, client_for):
    client = logged_in(gay_site, client_for, _member(gay_site))
    package = _package(gay_site)
    first, _code = _start(gay_site, client, package)
    second, _code = _start(gay_site, client, package)
    answer = client.post(f"/directdebit/{second.pk}/resend")  # the third code
    assert answer.status_code == 302
    answer = _submit(client, package)
    page = answer.content.decode()
    assert answer.status_code == 429
    assert "You have asked for too many codes. Please try again in 60 minutes." in page
    assert 'value="Dirk de Vries"' in page  # the form keeps what was typed
    answer = client.post(f"/directdebit/{second.pk}/resend")
    assert answer.status_code == 429 and "too many codes" in answer.content.decode()
    assert len(sms.outbox) == 3
    # An hour after the first code, one more may be sent.
    with on_site(gay_site):
        DirectDebitRequest.objects.filter(pk=first.pk).update(created=timezone.now() - timedelta(minutes=61))
    _start(gay_site, client, package)
    assert len(sms.outbox) == 4


def test_change_my_details_brings_them_back(gay_site, client_for):
    client = logged_in(gay_site, client_for, _member(gay_site))
    dd_request, _code = _start(gay_site, client, _package(gay_site))
    page = client.get(f"/directdebit?package={dd_request.package_id}&request={dd_request.pk}").content.decode()
    for value in SHOWN.values():
        assert f'value="{value}"' in page
    assert "checked" not in re.search(r'<input[^>]*data-testid="field-authorization"[^>]*>', page).group(0)


def test_forms_need_the_csrf_token(gay_site):
    profile = _member(gay_site)
    client = Client(HTTP_HOST="gay.localhost", enforce_csrf_checks=True)
    with on_site(gay_site):
        client.force_login(profile.user, backend="allauth.account.auth_backends.AuthenticationBackend")
    package = _package(gay_site)
    assert client.post("/directdebit", _data(package)).status_code == 403
    with on_site(gay_site):
        assert not DirectDebitRequest.objects.exists()
    page = client.get(f"/directdebit?package={package.pk}").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    assert client.post("/directdebit", {**_data(package), "csrfmiddlewaretoken": token}).status_code == 302
    with on_site(gay_site):
        dd_request = DirectDebitRequest.objects.get()
    code = re.search(r"\b(\d{6})\b", sms.outbox[-1].text).group(1)
    assert client.post(f"/directdebit/{dd_request.pk}/code", {"code": code}).status_code == 403
    assert client.post(f"/directdebit/{dd_request.pk}/resend").status_code == 403
    dd_request.refresh_from_db()
    assert dd_request.confirmed_at is None


# --- Confirmed: mandate, payment, status page -------------------------------------


def test_right_code_signs_the_mandate_charges_and_shows_the_status(gay_site, client_for, caplog):
    caplog.set_level(logging.DEBUG)
    profile = _member(gay_site)
    client = logged_in(gay_site, client_for, profile)
    package = _package(gay_site)
    dd_request, code = _start(gay_site, client, package)

    answer = client.post(f"/directdebit/{dd_request.pk}/code", {"code": f" {code[:3]} {code[3:]} "})
    assert answer.status_code == 302
    with on_site(gay_site):
        dd_request.refresh_from_db()
        payment = dd_request.payment
        mandate = Mandate.objects.get(user=profile.user)
    assert dd_request.confirmed_at is not None
    assert answer["Location"] == f"/credits/{package.pk}/directdebit?payment={payment.public_id}"
    assert (mandate.method, mandate.gateway, mandate.details) == ("directdebit", "sandbox", "NL** **** **** 4300")
    assert mandate.mandate_id and mandate.customer_id
    assert payment.user_id == profile.user.pk and payment.method == "directdebit"
    assert payment.mandate_id == mandate.pk and payment.package_id == package.pk
    assert payment.amount == discounted(2995, 25) and payment.credits == 50

    # The code is single use; the page now leads to the status page.
    answer = client.post(f"/directdebit/{dd_request.pk}/code", {"code": code})
    assert answer.status_code == 302 and answer["Location"].endswith(payment.public_id)
    with pytest.raises(ApplicationError) as error, on_site(gay_site):
        directdebit.directdebit_confirm(request=None, user=profile.user, request_id=dd_request.pk, code=code)
    assert error.value.message == "Code invalid"
    with on_site(gay_site):
        assert Payment.objects.filter(user=profile.user).count() == 1

    # Neither the full IBAN nor the code reach a log.
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert IBAN not in logged and "0417164300" not in logged and code not in logged


def test_a_failed_gateway_call_can_be_retried(gay_site, client_for, monkeypatch):
    from apps.payments.gateways.base import GatewayTimeout
    from apps.payments.gateways.sandbox import SandboxGateway

    def down(self, *args, **kwargs):
        raise GatewayTimeout("the provider did not answer")

    client = logged_in(gay_site, client_for, _member(gay_site))
    dd_request, code = _start(gay_site, client, _package(gay_site))
    with monkeypatch.context() as patch:
        patch.setattr(SandboxGateway, "mandate_create", down)
        answer = client.post(f"/directdebit/{dd_request.pk}/code", {"code": code})
    page = answer.content.decode()
    assert answer.status_code == 503
    assert "An error occured, please try again later." in page
    assert 'data-testid="dd-retry"' in page
    answer = client.post(f"/directdebit/{dd_request.pk}/code", {"action": "retry"})
    assert answer.status_code == 302 and "/directdebit?payment=" in answer["Location"]
    with on_site(gay_site):
        assert Mandate.objects.filter(user=dd_request.user).count() == 1


def test_limit_is_checked_again_when_confirming(gay_site, client_for, limits):
    profile = _member(gay_site)
    client = logged_in(gay_site, client_for, profile)
    dd_request, code = _start(gay_site, client, _package(gay_site))
    _payment(gay_site, profile.user, amount=14000)
    answer = client.post(f"/directdebit/{dd_request.pk}/code", {"code": code})
    assert answer.status_code == 403
    assert LIMIT_MESSAGE in answer.content.decode()
    with on_site(gay_site):
        assert not Mandate.objects.exists()


# --- SMS backends ---------------------------------------------------------------


def test_sms_backends(settings):
    sms.sms_send(to=MOBILE, text="hello")
    assert sms.outbox == [sms.SmsMessage(to=MOBILE, text="hello")]
    stream = io.StringIO()
    sms.ConsoleBackend(stream=stream).send(to=MOBILE, text="Your code is 123456")
    assert MOBILE in stream.getvalue() and "Your code is 123456" in stream.getvalue()
    settings.SMS_BACKEND = "apps.payments.sms.ConsoleBackend"
    assert isinstance(sms.sms_backend(), sms.ConsoleBackend)


def test_masks():
    assert directdebit.iban_mask(IBAN) == "NL** **** **** 4300"
    assert directdebit.mobile_mask(MOBILE) == "+31•••••••78"
    assert directdebit.iban_clean(IBAN_TYPED) == IBAN
    assert directdebit.mobile_clean(MOBILE_TYPED, country="NL") == MOBILE
    assert directdebit.mobile_clean("0470 12 34 56", country="BE") == "+32470123456"
