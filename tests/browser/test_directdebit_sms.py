"""The direct-debit code step in a real browser, at phone and desktop widths, with the SMS
going through Twilio's API (a local fake speaking it, tests/fake_twilio.py) as a member on
a site with its own Twilio account would meet it: Twilio refuses the number first (the
member reads why under the mobile field, with everything typed still there), sends the
code on the second try, then reports it undelivered through its signed status callback
on the operators' host; the open code page hears it on the member's live connection, says
so and offers a new code at once, which
arrives and confirms the payment. axe finds nothing on the failed-delivery page."""

import re
import uuid
from datetime import date

import pytest
from allauth.account.models import EmailAddress
from playwright.sync_api import expect

from apps.accounts.models import User
from apps.payments.models import CreditPackage, DirectDebitRequest, Payment, SmsState
from apps.profiles.models import Profile, ProfileStatus
from apps.tenants.middleware import site_cache_clear
from apps.tenants.models import Site
from conftest import on_site
from tests.browser.helpers import PASSWORD
from tests.browser.test_accessibility import assert_accessible, track_requests
from tests.fake_twilio import FakeTwilio
from tests.live import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

HOST = "gay.localhost"


def _dutch_member(site) -> tuple[str, User]:
    """A member whose payment country (the Netherlands) offers direct debit."""
    tag = uuid.uuid4().hex[:10]
    email = f"dd-{tag}@example.com"

    def create() -> User:
        with on_site(site):
            user = User.objects.create_user(username=f"Dirk{tag}", email=email, password=PASSWORD, country="NL")
            EmailAddress.objects.create(user=user, email=email, primary=True, verified=True)
            Profile.objects.create(
                user=user,
                name=f"Dirk{tag}",
                status=ProfileStatus.ACTIVE,
                gender="male",
                country="NL",
                city="Amsterdam",
                date_of_birth=date(1988, 5, 6),
            )
            return user

    return email, in_thread(create)


def _log_in(page, server, email: str) -> None:
    page.goto(server.url(HOST, "/login"))
    page.get_by_test_id("entry-warning-enter").click()
    page.get_by_test_id("entry-warning").wait_for(state="detached")
    page.locator("#login-email").fill(email)
    page.locator("#login-password").fill(PASSWORD)
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("topbar-name")).to_have_count(1)


@pytest.fixture
def twilio_site(gay_site, site_server, settings):
    """The gay site sends through its own (fake) Twilio account; receipts reach the live
    server's operators' host."""
    with FakeTwilio() as twilio:
        sid, token = twilio.account()
        settings.TWILIO_API_URL = twilio.url
        settings.SMS_STATUS_BASE_URL = f"http://admin.localhost:{site_server.port}"
        in_thread(
            lambda: Site.objects.filter(pk=gay_site.pk).update(
                sms_provider="twilio", twilio_account_sid=sid, twilio_auth_token=token, sms_sender="Manline"
            )
        )
        site_cache_clear()
        try:
            yield twilio
        finally:
            in_thread(
                lambda: Site.objects.filter(pk=gay_site.pk).update(
                    sms_provider="", twilio_account_sid="", twilio_auth_token="", sms_sender=""
                )
            )
            site_cache_clear()


def _fill(page) -> None:
    page.get_by_test_id("field-account_holder").fill("Dirk de Vries")
    page.get_by_test_id("field-iban").fill("NL91 ABNA 0417 1643 00")
    page.get_by_test_id("field-street").fill("Lindengracht")
    page.get_by_test_id("field-house_number").fill("12a")
    page.get_by_test_id("field-postal_code").fill("1015 BS")
    page.get_by_test_id("field-city").fill("Amsterdam")
    page.get_by_test_id("field-mobile").fill("06 12345678")
    page.get_by_test_id("field-authorization").check()


def _code(message) -> str:
    return re.search(r"\b(\d{6})\b", message.body).group(1)


def test_the_code_step_with_the_sms_provider(gay_site, site_server, page, twilio_site):
    email, user = _dutch_member(gay_site)
    try:
        _walk(gay_site, site_server, page, twilio_site, email, user)
    finally:

        def delete() -> None:
            # The member's committed rows go: other tests count the site's requests and payments.
            with on_site(gay_site):
                User.objects.filter(pk=user.pk).delete()

        in_thread(delete)


def _walk(gay_site, site_server, page, twilio, email, user) -> None:
    package = in_thread(lambda: CreditPackage.objects.get(site=gay_site, credits=50).pk)
    track_requests(page)
    _log_in(page, site_server, email)

    # Twilio refuses the number (400, 21211): the member reads why, nothing typed is lost.
    twilio.fail_next(400, 21211)
    page.goto(site_server.url(HOST, f"/directdebit?package={package}"))
    _fill(page)
    page.get_by_test_id("dd-submit").click()
    expect(page.get_by_test_id("error-mobile")).to_contain_text("We cannot send a text message to this number")
    expect(page.get_by_test_id("field-account_holder")).to_have_value("Dirk de Vries")
    expect(page.get_by_test_id("field-iban")).to_have_value(re.compile(r"NL91 ?ABNA"))
    expect(page.get_by_test_id("field-authorization")).to_be_checked()

    # Asked again, the code goes out from the site's sender.
    page.get_by_test_id("dd-submit").click()
    page.wait_for_url(re.compile(r"/directdebit/\d+/code$"))
    expect(page.get_by_test_id("dd-code-sent")).to_contain_text("+31")
    [message] = twilio.wait_for(1)
    assert message.to == "+31612345678" and message.sender == "Manline"

    # Twilio's signed receipt: undelivered. The open page hears it on the member's live
    # connection and offers a new code at once.
    expect(page.locator("[data-sms-watch]")).to_have_attribute("data-sms-watching", "open")
    status, _body = twilio.report(message, "undelivered", error_code=30003, connect_to=f"127.0.0.1:{site_server.port}")
    assert status == 204
    expect(page.get_by_test_id("dd-sms-failed")).to_contain_text("could not be delivered")
    expect(page.get_by_test_id("field-code")).to_have_count(0)
    assert_accessible(page, f"direct debit SMS failed {page.viewport_size['width']}")
    page.get_by_test_id("dd-resend").click()
    expect(page.get_by_test_id("dd-code-sent")).to_be_visible()
    new = twilio.wait_for(2)[-1]
    assert new.sid != message.sid

    # The new code confirms the order; the first request stays failed, nothing paid twice.
    page.get_by_test_id("field-code").fill(_code(new))
    page.get_by_test_id("dd-code-submit").click()
    page.wait_for_url(re.compile(r"/credits/\d+/directdebit\?payment="))

    def stored():
        with on_site(gay_site):
            states = list(
                DirectDebitRequest.objects.filter(user=user).order_by("pk").values_list("sms_state", flat=True)
            )
            return states, Payment.objects.filter(user=user).count()

    states, payments = in_thread(stored)
    assert states == [SmsState.FAILED, SmsState.FAILED, SmsState.SENT] and payments == 1
