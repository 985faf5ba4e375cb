"""Direct-debit codes sent through Twilio (apps.payments.sms.TwilioBackend, the official
SDK) against a local fake of Twilio's REST API (tests/fake_twilio.py): the site's own
account or the deployment's, Twilio's error answers and a slow provider (the member hears
so, with the details kept, nothing is charged, the code can be asked again), and the
signed delivery receipts on the operators' host (apps.payments.views_sms), bad input
included."""

import re

import pytest
from django.core.cache import cache
from django.test import Client

from apps.payments import directdebit, sms
from apps.payments.checks import sms_backend_check
from apps.payments.models import DirectDebitRequest, Payment, SmsState
from apps.payments.tests.test_directdebit import MOBILE, _data, _member, _package
from apps.profiles.tests.helpers_view import logged_in
from apps.tenants.middleware import site_cache_clear
from apps.tenants.models import Site
from conftest import on_site
from tests.fake_twilio import FakeTwilio, twilio_signature

pytestmark = pytest.mark.django_db

SENDER = "Manline"
STATUS_BASE = "https://admin.example.test"


@pytest.fixture
def twilio(settings):
    with FakeTwilio() as fake:
        settings.TWILIO_API_URL = fake.url
        settings.SMS_STATUS_BASE_URL = STATUS_BASE
        settings.SMS_TIMEOUT = 1.0
        yield fake


@pytest.fixture
def on_twilio(gay_site, twilio):
    """The gay site sends through its own Twilio account (set in the site admin)."""
    sid, token = twilio.account()
    Site.objects.filter(pk=gay_site.pk).update(
        sms_provider="twilio", twilio_account_sid=sid, twilio_auth_token=token, sms_sender=SENDER
    )
    site_cache_clear()
    yield Site.objects.get(pk=gay_site.pk)
    site_cache_clear()


def _request(site, pk) -> DirectDebitRequest:
    with on_site(site):
        return DirectDebitRequest.objects.get(pk=pk)


def _requests(site, user) -> list[DirectDebitRequest]:
    with on_site(site):
        return list(DirectDebitRequest.objects.filter(user=user).order_by("pk"))


def _payments(site, user) -> int:
    with on_site(site):
        return Payment.objects.filter(user=user).count()


def _code(message) -> str:
    return re.search(r"\b(\d{6})\b", message.body).group(1)


def _started(site, client, twilio) -> tuple[DirectDebitRequest, object]:
    count = len(twilio.messages)
    answer = client.post("/directdebit", _data(_package(site)))
    assert answer.status_code == 302, answer.content.decode()[:2000]
    message = twilio.wait_for(count + 1)[-1]
    return _request(site, int(answer["Location"].split("/")[2])), message


# --- Sending ------------------------------------------------------------------------


def test_the_code_goes_out_through_the_sites_twilio_account_and_confirms(on_twilio, twilio, client_for):
    profile = _member(on_twilio)
    client = logged_in(on_twilio, client_for, profile)
    dd_request, message = _started(on_twilio, client, twilio)

    assert message.account_sid == on_twilio.twilio_account_sid
    assert message.to == MOBILE and message.sender == SENDER
    assert "Manline" in message.body and "€22.46" in message.body
    assert message.status_callback == f"{STATUS_BASE}/hooks/sms/twilio/{on_twilio.schema_name}"
    assert dd_request.sms_state == SmsState.SENT and dd_request.sms_message_id == message.sid
    assert sms.outbox == []  # not the deployment's (locmem) backend

    answer = client.post(f"/directdebit/{dd_request.pk}/code", {"code": _code(message)})
    assert answer.status_code == 302 and _payments(on_twilio, profile.user) == 1


def test_the_deployments_twilio_account_is_the_default(gay_site, twilio, client_for, settings):
    sid, token = twilio.account()
    settings.SMS_BACKEND = "apps.payments.sms.TwilioBackend"
    settings.TWILIO_ACCOUNT_SID, settings.TWILIO_AUTH_TOKEN, settings.TWILIO_SENDER = sid, token, "Dating"
    profile = _member(gay_site)
    client = logged_in(gay_site, client_for, profile)
    dd_request, message = _started(gay_site, client, twilio)
    assert message.account_sid == sid and message.sender == "Dating"
    assert sms.twilio_auth_token(gay_site) == token
    assert dd_request.sms_message_id == message.sid


# Twilio's answers that mean this number cannot get it: under the mobile field.
NUMBER_REFUSED = [(400, 21211), (400, 21614), (400, 21610)]
# The deployment's or Twilio's trouble: the member may ask again in a moment.
PROVIDER_TROUBLE = [(401, 20003), (429, 20429), (500, None), (503, None)]


@pytest.mark.parametrize(("status", "code"), NUMBER_REFUSED + PROVIDER_TROUBLE)
def test_an_error_answer_tells_the_member_keeps_the_details_and_charges_nothing(
    on_twilio, twilio, client_for, status, code
):
    profile = _member(on_twilio)
    client = logged_in(on_twilio, client_for, profile)
    twilio.fail_next(status, code)
    answer = client.post("/directdebit", _data(_package(on_twilio)))
    page = answer.content.decode()

    refused = (status, code) in NUMBER_REFUSED
    assert answer.status_code == (400 if refused else 503)
    message = directdebit.MESSAGE_SMS_NUMBER if refused else directdebit.MESSAGE_SMS_UNAVAILABLE
    assert str(message).replace("'", "&#x27;") in page
    if refused:
        assert 'data-testid="error-mobile"' in page or 'id="id_mobile-error"' in page or "is-invalid" in page
    # Nothing typed is lost; nothing is charged.
    assert 'value="Dirk de Vries"' in page and 'value="Lindengracht"' in page
    assert _payments(on_twilio, profile.user) == 0
    [failed] = _requests(on_twilio, profile.user)
    assert failed.sms_state == SmsState.FAILED and failed.sms_message_id == ""
    assert failed.sms_error.startswith(str(status))

    # Asked again (the provider answers now): the code comes and works.
    dd_request, message = _started(on_twilio, client, twilio)
    assert dd_request.sms_state == SmsState.SENT
    assert client.post(f"/directdebit/{dd_request.pk}/code", {"code": _code(message)}).status_code == 302


def test_wrong_credentials_are_a_401_from_twilio(on_twilio, twilio, client_for):
    Site.objects.filter(pk=on_twilio.pk).update(twilio_auth_token="0" * 32)
    site_cache_clear()
    profile = _member(on_twilio)
    client = logged_in(on_twilio, client_for, profile)
    answer = client.post("/directdebit", _data(_package(on_twilio)))
    assert answer.status_code == 503 and twilio.messages == [] and twilio.requests == 1
    [failed] = _requests(on_twilio, profile.user)
    assert failed.sms_state == SmsState.FAILED and failed.sms_error == "401 20003"


def test_a_slow_provider_ends_at_the_timeout_with_a_message(on_twilio, twilio, client_for, settings):
    settings.SMS_TIMEOUT = 0.3
    twilio.delay = 2
    profile = _member(on_twilio)
    client = logged_in(on_twilio, client_for, profile)
    answer = client.post("/directdebit", _data(_package(on_twilio)))
    assert answer.status_code == 503
    assert str(directdebit.MESSAGE_SMS_UNAVAILABLE) in answer.content.decode()
    [failed] = _requests(on_twilio, profile.user)
    assert failed.sms_state == SmsState.FAILED and "Timeout" in failed.sms_error
    assert _payments(on_twilio, profile.user) == 0


def test_an_absent_provider_is_a_message_too(on_twilio, client_for, settings):
    with FakeTwilio() as gone:
        address = gone.url  # a port nobody listens on once it is closed
    settings.TWILIO_API_URL = address
    profile = _member(on_twilio)
    client = logged_in(on_twilio, client_for, profile)
    answer = client.post("/directdebit", _data(_package(on_twilio)))
    assert answer.status_code == 503
    [failed] = _requests(on_twilio, profile.user)
    assert failed.sms_state == SmsState.FAILED and failed.sms_error == "ConnectionError"


def test_a_failed_new_code_leaves_the_old_one_working(on_twilio, twilio, client_for):
    profile = _member(on_twilio)
    client = logged_in(on_twilio, client_for, profile)
    dd_request, message = _started(on_twilio, client, twilio)
    twilio.fail_next(500)
    answer = client.post(f"/directdebit/{dd_request.pk}/resend")
    assert answer.status_code == 503
    assert str(directdebit.MESSAGE_SMS_UNAVAILABLE) in answer.content.decode()
    assert client.post(f"/directdebit/{dd_request.pk}/code", {"code": _code(message)}).status_code == 302


# --- Delivery receipts ------------------------------------------------------------------


def _receipt(site, message, status, *, error_code=None, token=None, **overrides) -> tuple[dict, str]:
    url = f"{STATUS_BASE}/hooks/sms/twilio/{site.schema_name}"
    params = {
        "AccountSid": message.account_sid,
        "MessageSid": message.sid,
        "MessageStatus": status,
        "To": message.to,
        "From": message.sender,
        "ApiVersion": "2010-04-01",
    }
    if error_code:
        params["ErrorCode"] = str(error_code)
    params.update(overrides)
    return params, twilio_signature(url, params, token or site.twilio_auth_token)


def _post_receipt(site, params, signature, **extra):
    from urllib.parse import urlencode

    body = extra.pop("body", None)
    content_type = extra.pop("content_type", "application/x-www-form-urlencoded")
    return Client(HTTP_HOST="admin.localhost").post(
        f"/hooks/sms/twilio/{site.schema_name}",
        data=body if body is not None else urlencode(params),
        content_type=content_type,
        HTTP_X_TWILIO_SIGNATURE=signature,
        **extra,
    )


def test_receipts_record_delivered_and_keep_it(on_twilio, twilio, client_for):
    profile = _member(on_twilio)
    client = logged_in(on_twilio, client_for, profile)
    dd_request, message = _started(on_twilio, client, twilio)
    answer = _post_receipt(on_twilio, *_receipt(on_twilio, message, "delivered"))
    assert answer.status_code == 204
    assert _request(on_twilio, dd_request.pk).sms_state == SmsState.DELIVERED
    # A late "sent" (receipts arrive out of order) changes nothing; a repeat neither.
    assert _post_receipt(on_twilio, *_receipt(on_twilio, message, "sent")).status_code == 204
    assert _post_receipt(on_twilio, *_receipt(on_twilio, message, "delivered")).status_code == 204
    assert _request(on_twilio, dd_request.pk).sms_state == SmsState.DELIVERED


def test_a_failed_delivery_offers_a_new_code_at_once(on_twilio, twilio, client_for):
    profile = _member(on_twilio)
    client = logged_in(on_twilio, client_for, profile)
    dd_request, message = _started(on_twilio, client, twilio)
    answer = _post_receipt(on_twilio, *_receipt(on_twilio, message, "undelivered", error_code=30003))
    assert answer.status_code == 204
    stored = _request(on_twilio, dd_request.pk)
    assert stored.sms_state == SmsState.FAILED and stored.sms_error == "undelivered 30003"

    page = client.get(f"/directdebit/{dd_request.pk}/code").content.decode()
    assert 'data-testid="dd-sms-failed"' in page and 'data-testid="dd-resend"' in page
    assert 'data-testid="field-code"' not in page
    answer = client.post(f"/directdebit/{dd_request.pk}/resend")
    assert answer.status_code == 302
    new = twilio.wait_for(2)[-1]
    assert new.to == MOBILE and _payments(on_twilio, profile.user) == 0


def test_the_deployments_account_signs_the_receipts_of_a_site_without_its_own(gay_site, twilio, client_for, settings):
    sid, token = twilio.account()
    settings.SMS_BACKEND = "apps.payments.sms.TwilioBackend"
    settings.TWILIO_ACCOUNT_SID, settings.TWILIO_AUTH_TOKEN, settings.TWILIO_SENDER = sid, token, "Dating"
    profile = _member(gay_site)
    client = logged_in(gay_site, client_for, profile)
    dd_request, message = _started(gay_site, client, twilio)
    assert _post_receipt(gay_site, *_receipt(gay_site, message, "delivered", token=token)).status_code == 204
    assert _request(gay_site, dd_request.pk).sms_state == SmsState.DELIVERED


@pytest.fixture
def sent(on_twilio, twilio, client_for):
    profile = _member(on_twilio)
    client = logged_in(on_twilio, client_for, profile)
    dd_request, message = _started(on_twilio, client, twilio)
    return dd_request, message


def _unchanged(site, dd_request) -> None:
    stored = _request(site, dd_request.pk)
    assert stored.sms_state == SmsState.SENT and stored.sms_error == ""


def test_bad_signatures_are_403(on_twilio, sent):
    dd_request, message = sent
    params, signature = _receipt(on_twilio, message, "failed")
    for wrong in ("", "x", signature[:-2] + "AA", "é" + signature):
        answer = _post_receipt(on_twilio, params, wrong)
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "invalid_signature"
    # Signed with another account's token, or over other parameters.
    _params, foreign = _receipt(on_twilio, message, "failed", token="f" * 32)
    assert _post_receipt(on_twilio, params, foreign).status_code == 403
    assert _post_receipt(on_twilio, {**params, "MessageStatus": "delivered"}, signature).status_code == 403
    _unchanged(on_twilio, dd_request)


def test_bad_bodies_are_4xx_and_change_nothing(on_twilio, sent):
    dd_request, message = sent
    # NUL bytes, signed: no well-formed message id or status.
    for overrides in ({"MessageSid": message.sid + "\x00"}, {"MessageStatus": "failed\x00"}, {"MessageSid": ""}):
        params, signature = _receipt(on_twilio, message, "failed", **overrides)
        answer = _post_receipt(on_twilio, params, signature)
        assert answer.status_code == 400, overrides
        assert answer.json()["error"]["message"]
    params, signature = _receipt(on_twilio, message, "exploded")
    assert _post_receipt(on_twilio, params, signature).status_code == 400
    # A lying content type, JSON, and bytes that are not UTF-8.
    params, signature = _receipt(on_twilio, message, "failed")
    assert _post_receipt(on_twilio, params, signature, content_type="application/json").status_code == 415
    assert (
        _post_receipt(on_twilio, params, signature, body='{"MessageSid": 1}', content_type="text/plain").status_code
        == 415
    )
    assert _post_receipt(on_twilio, params, signature, body=b"MessageSid=\xff\xfe").status_code == 400
    # Too large.
    assert _post_receipt(on_twilio, params, signature, body="a=" + "b" * 20000).status_code == 413
    # GET is not a receipt.
    assert Client(HTTP_HOST="admin.localhost").get(f"/hooks/sms/twilio/{on_twilio.schema_name}").status_code == 405
    _unchanged(on_twilio, dd_request)


def test_unknown_messages_and_sites_are_404(on_twilio, sent, gay_site, site):
    dd_request, message = sent
    params, signature = _receipt(on_twilio, message, "failed", MessageSid="SM" + "0" * 32)
    answer = _post_receipt(on_twilio, params, signature)
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"
    params, signature = _receipt(on_twilio, message, "failed")
    # Another site (no Twilio account there), the public schema, no such schema.
    for schema in (site.schema_name, "public", "no_such_site", "x" * 300):
        answer = Client(HTTP_HOST="admin.localhost").post(
            f"/hooks/sms/twilio/{schema}",
            data="a=b",
            content_type="application/x-www-form-urlencoded",
            HTTP_X_TWILIO_SIGNATURE=signature,
        )
        assert answer.status_code == 404, schema
    _unchanged(on_twilio, dd_request)


def test_the_support_console_shows_the_sms_state(on_twilio, sent):
    from apps.tenants.models import MemberDirectoryEntry
    from tests.staff import staff_client, staff_member

    dd_request, message = sent
    _post_receipt(on_twilio, *_receipt(on_twilio, message, "undelivered", error_code=30005))
    from apps.accounts.services.directory import directory_sync

    with on_site(on_twilio):  # written after commit, which a test's transaction never reaches
        directory_sync(user=dd_request.user)
    entry = MemberDirectoryEntry.objects.get(site=on_twilio, member_id=dd_request.user_id)
    client = staff_client(staff_member("support", "agent"))
    page = client.get(f"/admin/support/member/{entry.pk}/change/").content.decode()
    assert page.count('data-testid="support-dd-request"') == 1
    assert 'data-testid="support-dd-sms">failed (undelivered 30005)' in page
    assert "+31…78" in page and MOBILE not in page


# --- Settings ---------------------------------------------------------------------------


def test_a_twilio_deployment_default_needs_its_account(settings):
    settings.ALLOW_TEST_PAYMENTS = False
    settings.SMS_BACKEND = "apps.payments.sms.TwilioBackend"
    settings.TWILIO_ACCOUNT_SID = settings.TWILIO_AUTH_TOKEN = settings.TWILIO_SENDER = ""
    [error] = sms_backend_check()
    assert error.id == "payments.E005" and "TWILIO_AUTH_TOKEN" in error.msg
    settings.TWILIO_ACCOUNT_SID, settings.TWILIO_AUTH_TOKEN, settings.TWILIO_SENDER = "AC" + "a" * 32, "b" * 32, "Site"
    assert sms_backend_check() == []


def test_production_starts_with_twilio_as_the_default_without_test_payments():
    from cryptography.fernet import Fernet

    from apps.tenants.tests.test_stored_keys import production

    started = production(
        SECRETS_KEYS=Fernet.generate_key().decode(),
        ALLOW_TEST_PAYMENTS=None,
        SMS_BACKEND="apps.payments.sms.TwilioBackend",
        TWILIO_ACCOUNT_SID="AC" + "a" * 32,
        TWILIO_AUTH_TOKEN="b" * 32,
        TWILIO_SENDER="Dating",
    )
    assert started.returncode == 0 and "started" in started.stdout, started.stderr


def test_an_unconfigured_backend_refuses_without_a_request(settings, twilio):
    settings.TWILIO_ACCOUNT_SID = settings.TWILIO_AUTH_TOKEN = settings.TWILIO_SENDER = ""
    with pytest.raises(sms.SmsError):
        sms.TwilioBackend().send(to=MOBILE, text="x")
    assert twilio.requests == 0


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"twilio_account_sid": ""}, "twilio_account_sid"),
        ({"twilio_account_sid": "AC123"}, "twilio_account_sid"),
        ({"twilio_auth_token": "short"}, "twilio_auth_token"),
        ({"sms_sender": "Twelve chars"}, "sms_sender"),
        ({"sms_sender": "12345"}, "sms_sender"),
        ({"sms_sender": "Site\n"}, "sms_sender"),
    ],
)
def test_a_sites_twilio_settings_are_checked(gay_site, changes, field):
    from django.core.exceptions import ValidationError

    gay_site.sms_provider = "twilio"
    gay_site.twilio_account_sid, gay_site.twilio_auth_token, gay_site.sms_sender = "AC" + "a" * 32, "b" * 32, "Site"
    gay_site.full_clean()
    for name, value in changes.items():
        setattr(gay_site, name, value)
    with pytest.raises(ValidationError) as raised:
        gay_site.full_clean()
    assert field in raised.value.message_dict


@pytest.fixture(autouse=True)
def _fresh_hourly_counts():
    cache.clear()
