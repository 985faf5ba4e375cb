"""Issue 15 (operators): staff log in to the admin with a password and then a TOTP code
(apps.accounts.admin_login). Every admin view needs both; wrong codes count toward the
password's lockout; a code works once; a staff member without a second factor enrols
one through a one-time set-up link (test_staff_second_step) and never sees the secret
again."""

import re
import time

import pytest
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.test import Client
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.plugins.otp_totp.models import TOTPDevice

from apps.accounts.models import User
from tests.staff import STAFF_PASSWORD, staff_client, staff_member, staff_set_up_link, totp_code

pytestmark = pytest.mark.django_db

CODE_URL = "/admin/login/code/"
ENROL_URL = "/admin/login/enrol/"


def lockout_message() -> str:
    return f"Too many incorrect attempts, account blocked for {settings.LOGIN_LOCKOUT_MINUTES} min."


def password_step(client: Client, user: User, password: str = STAFF_PASSWORD):
    return client.post(
        "/admin/login/?next=/admin/tenants/site/",
        {"username": user.username, "password": password, "next": "/admin/tenants/site/"},
    )


def code_step(client: Client, code: str, url: str = CODE_URL, next_url: str = "/admin/tenants/site/"):
    return client.post(url, {"code": code, "next": next_url})


def in_admin(client: Client) -> bool:
    return client.get("/admin/").status_code == 200


def wrong_code(user: User) -> str:
    right = totp_code(user)
    return "000000" if right != "000000" else "111111"


@pytest.fixture
def operator() -> User:
    return staff_member("operators")


@pytest.fixture
def admin_client() -> Client:
    return Client(HTTP_HOST="admin.localhost", REMOTE_ADDR="10.1.0.1")


def test_the_password_alone_does_not_open_the_admin(operator, admin_client):
    response = password_step(admin_client, operator)
    assert response.status_code == 302
    assert response["Location"] == f"{CODE_URL}?next=%2Fadmin%2Ftenants%2Fsite%2F"
    for url in ("/admin/", "/admin/tenants/site/", "/admin/tenants/site/add/", "/admin/password_change/"):
        response = admin_client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/"), url
    # The login page sends a password-only session on to the code.
    assert admin_client.get("/admin/login/")["Location"].startswith(CODE_URL)
    # A POST to an admin page is refused too.
    assert admin_client.post("/admin/tenants/site/add/", {"name": "x"}).status_code == 302


def test_the_code_step_shows_a_code_form(operator, admin_client):
    password_step(admin_client, operator)
    body = admin_client.get(CODE_URL + "?next=/admin/").content.decode()
    assert 'name="code"' in body and 'autocomplete="one-time-code"' in body
    assert 'name="csrfmiddlewaretoken"' in body


def test_password_and_code_log_in_and_go_to_the_page_asked_for(operator, admin_client):
    password_step(admin_client, operator)
    response = code_step(admin_client, totp_code(operator))
    assert response.status_code == 302 and response["Location"] == "/admin/tenants/site/"
    assert in_admin(admin_client)
    assert admin_client.get("/admin/tenants/site/").status_code == 200
    # Done: the code step sends on to the admin.
    assert admin_client.get(CODE_URL)["Location"] == "/admin/"


def test_the_code_step_needs_the_password_first(operator, admin_client):
    response = code_step(admin_client, totp_code(operator))
    assert response.status_code == 302 and response["Location"] == "/admin/login/"
    assert not in_admin(admin_client)
    assert admin_client.get(ENROL_URL)["Location"] == "/admin/login/"


def test_a_wrong_code_is_refused(operator, admin_client):
    password_step(admin_client, operator)
    response = code_step(admin_client, wrong_code(operator))
    assert response.status_code == 200
    assert "This code is not correct" in response.content.decode()
    assert not in_admin(admin_client)
    assert "This field is required" in code_step(admin_client, "").content.decode()
    for bad in ("12345", "1234567", "abcdef", "12 34 5x", "١٢٣٤٥٦"):
        response = code_step(admin_client, bad)
        assert response.status_code == 200 and "Enter the 6 digits" in response.content.decode(), bad
    assert not in_admin(admin_client)


def test_the_code_is_accepted_once(operator, admin_client):
    code = totp_code(operator)
    password_step(admin_client, operator)
    assert code_step(admin_client, code).status_code == 302
    assert in_admin(admin_client)
    # Someone who saw the code (and knows the password) cannot use it again.
    other = Client(HTTP_HOST="admin.localhost", REMOTE_ADDR="10.1.0.2")
    password_step(other, operator)
    response = code_step(other, code)
    assert response.status_code == 200 and "This code is not correct" in response.content.decode()
    assert not in_admin(other)


def test_a_code_of_an_earlier_time_step_is_refused_after_a_later_one(operator, admin_client):
    now = time.time()
    password_step(admin_client, operator)
    assert code_step(admin_client, totp_code(operator, now)).status_code == 302
    other = Client(HTTP_HOST="admin.localhost", REMOTE_ADDR="10.1.0.3")
    password_step(other, operator)
    assert code_step(other, totp_code(operator, now - 30)).status_code == 200
    assert not in_admin(other)


def test_wrong_codes_count_toward_the_lockout(operator, admin_client):
    attempts = settings.LOGIN_LOCKOUT_ATTEMPTS
    # One wrong password and the rest wrong codes: the same count.
    assert password_step(admin_client, operator, "wrong").status_code == 200
    password_step(admin_client, operator)
    for _attempt in range(attempts - 2):
        assert "This code is not correct" in code_step(admin_client, wrong_code(operator)).content.decode()
    # The last allowed attempt is used up by this wrong code; the next attempt is locked out.
    code_step(admin_client, wrong_code(operator))
    response = code_step(admin_client, totp_code(operator))
    assert response.status_code == 200 and lockout_message() in response.content.decode()
    # Locked out: logged out, and neither the right password nor the right code helps.
    assert SESSION_KEY not in admin_client.session
    assert not in_admin(admin_client)
    body = password_step(admin_client, operator).content.decode()
    assert lockout_message() in body
    other = Client(HTTP_HOST="admin.localhost", REMOTE_ADDR="10.1.0.9")
    assert lockout_message() in password_step(other, operator).content.decode()


def test_a_right_code_does_not_count(operator):
    for _login in range(settings.LOGIN_LOCKOUT_ATTEMPTS + 1):
        client = Client(HTTP_HOST="admin.localhost")
        password_step(client, operator)
        TOTPDevice.objects.filter(user=operator).update(last_t=-1)  # a new code each time
        assert code_step(client, totp_code(operator)).status_code == 302


def test_csrf_is_checked_on_both_steps(operator):
    client = Client(HTTP_HOST="admin.localhost", enforce_csrf_checks=True)
    assert password_step(client, operator).status_code == 403
    staff = staff_client(operator, enforce_csrf_checks=True)
    session = staff.session
    del session[DEVICE_ID_SESSION_KEY]
    session.save()
    assert staff.post(CODE_URL, {"code": totp_code(operator)}).status_code == 403
    assert staff.post(ENROL_URL, {"code": totp_code(operator)}).status_code == 403


def test_a_next_address_elsewhere_is_not_followed(operator, admin_client):
    password_step(admin_client, operator)
    response = code_step(admin_client, totp_code(operator), next_url="https://evil.example/")
    assert response.status_code == 302 and response["Location"] == "/admin/"


def test_logging_out_ends_both_steps(operator):
    client = staff_client(operator)
    assert in_admin(client)
    client.post("/admin/logout/")
    assert not in_admin(client)


def test_log_in_as_someone_else_ends_the_password_step(operator, admin_client):
    password_step(admin_client, operator)
    body = admin_client.get(CODE_URL + "?next=/admin/").content.decode()
    assert 'action="/admin/login/cancel/" method="post"' in body
    assert admin_client.get("/admin/login/cancel/")["Location"] == "/admin/login/"
    assert SESSION_KEY in admin_client.session  # a GET logs nobody out
    response = admin_client.post("/admin/login/cancel/")
    assert response.status_code == 302 and response["Location"] == "/admin/login/"
    assert SESSION_KEY not in admin_client.session
    login_page = admin_client.get("/admin/login/")
    assert login_page.status_code == 200 and 'name="password"' in login_page.content.decode()


# --- Enrolment ---------------------------------------------------------------------


def secret_on(body: str) -> str:
    match = re.search(r'id="staff-enrol-secret"[^>]*>([A-Z2-7 ]+)</code>', body)
    assert match, body
    return match.group(1)


def test_a_new_staff_member_enrols_with_the_set_up_link_at_the_first_login(admin_client):
    newcomer = staff_member("support", enrolled=False)
    admin_client.get(staff_set_up_link(newcomer))
    response = password_step(admin_client, newcomer)
    assert response["Location"] == f"{ENROL_URL}?next=%2Fadmin%2Ftenants%2Fsite%2F"
    # The code step sends there too while nothing is enrolled.
    assert admin_client.get(CODE_URL)["Location"].startswith(ENROL_URL)
    body = admin_client.get(response["Location"]).content.decode()
    secret = secret_on(body)
    assert len(secret.replace(" ", "")) == 32
    assert 'src="data:image/svg+xml;base64,' in body  # the QR code
    assert not in_admin(admin_client)
    # A wrong code does not confirm it.
    response = code_step(admin_client, "000000" if totp_code(secret) != "000000" else "111111", ENROL_URL)
    assert response.status_code == 200 and "This code is not correct" in response.content.decode()
    assert secret_on(response.content.decode()) == secret  # the same secret while it is typed in
    assert not TOTPDevice.objects.filter(user=newcomer, confirmed=True).exists()
    # The right code confirms it and logs in.
    response = code_step(admin_client, totp_code(secret), ENROL_URL, next_url="/admin/")
    assert response.status_code == 302 and response["Location"] == "/admin/"
    index = admin_client.get("/admin/")
    assert index.status_code == 200 and "The second step is set up" in index.content.decode()
    device = TOTPDevice.objects.get(user=newcomer)
    assert device.confirmed
    # The secret is never shown again: not to this session, not at the next login.
    assert admin_client.get(ENROL_URL)["Location"] == "/admin/"
    other = Client(HTTP_HOST="admin.localhost")
    password_step(other, newcomer)
    response = other.get(ENROL_URL)
    assert response.status_code == 302 and response["Location"].startswith(CODE_URL)
    assert secret.replace(" ", "")[:8] not in other.get(CODE_URL).content.decode()


def test_each_showing_of_the_enrolment_page_has_a_new_secret(admin_client):
    newcomer = staff_member("operators", enrolled=False)
    admin_client.get(staff_set_up_link(newcomer))
    password_step(admin_client, newcomer)
    first = secret_on(admin_client.get(ENROL_URL).content.decode())
    second = secret_on(admin_client.get(ENROL_URL).content.decode())
    assert first != second
    assert code_step(admin_client, totp_code(first), ENROL_URL).status_code == 200  # the old one is gone
    assert code_step(admin_client, totp_code(second), ENROL_URL).status_code == 302
    assert TOTPDevice.objects.filter(user=newcomer).count() == 1


def test_wrong_enrolment_codes_count_toward_the_lockout(admin_client):
    newcomer = staff_member("operators", enrolled=False)
    admin_client.get(staff_set_up_link(newcomer))
    password_step(admin_client, newcomer)
    secret = secret_on(admin_client.get(ENROL_URL).content.decode())
    wrong = "000000" if totp_code(secret) != "000000" else "111111"
    for _attempt in range(settings.LOGIN_LOCKOUT_ATTEMPTS):
        code_step(admin_client, wrong, ENROL_URL)
    response = code_step(admin_client, totp_code(secret), ENROL_URL)
    assert lockout_message() in response.content.decode()
    assert not TOTPDevice.objects.filter(user=newcomer, confirmed=True).exists()
    assert not in_admin(admin_client)


def test_an_enrolled_staff_member_cannot_enrol_again(operator, admin_client):
    password_step(admin_client, operator)
    response = admin_client.get(ENROL_URL)
    assert response.status_code == 302 and response["Location"].startswith(CODE_URL)
    assert code_step(admin_client, totp_code(operator), ENROL_URL).status_code == 302
    assert TOTPDevice.objects.filter(user=operator).count() == 1


def test_django_otps_device_admin_is_not_offered():
    client = staff_client(staff_member("superuser"))
    assert client.get("/admin/otp_totp/totpdevice/").status_code == 404
