"""The operators' admin login is limited like members' (issue 3 item 4): failed attempts
per username and per address, through allauth's rate limit `admin_login_failed`. The
password is the first step; the second (TOTP) is tested in test_admin_totp."""

import pytest
from django.conf import settings
from django.contrib import admin
from django.test import Client

from apps.accounts.admin_login import OperatorAdminSite
from apps.accounts.models import User
from tests.staff import STAFF_PASSWORD, staff_member, totp_code

pytestmark = pytest.mark.django_db

PASSWORD = STAFF_PASSWORD
IP_LIMIT = int(settings.ADMIN_LOGIN_RATE_LIMIT.split(",")[0].split("/")[0])


def lockout_message() -> str:
    return f"Too many incorrect attempts, account blocked for {settings.LOGIN_LOCKOUT_MINUTES} min."


@pytest.fixture
def operator(db) -> User:
    return staff_member("superuser", "operator")


def admin_client(ip: str = "10.0.0.1") -> Client:
    return Client(HTTP_HOST="admin.localhost", REMOTE_ADDR=ip)


def admin_login(client: Client, username: str = "operator", password: str = PASSWORD):
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": password, "next": "/admin/"})


def logged_in(client: Client, username: str = "operator") -> bool:
    """Whether the client passed the password: the second step is then open to it, and
    its code gets it into the admin."""
    if client.get("/admin/login/code/").status_code != 200:
        return False
    user = User.objects.get(username=username)
    client.post("/admin/login/code/", {"code": totp_code(user), "next": "/admin/"})
    return client.get("/admin/").status_code == 200


def test_the_admin_site_is_the_throttled_one():
    assert isinstance(admin.site, OperatorAdminSite)
    assert settings.ACCOUNT_RATE_LIMITS["admin_login_failed"] == settings.ADMIN_LOGIN_RATE_LIMIT


def test_the_login_page_keeps_the_admins_look(operator):
    body = admin_client().get("/admin/login/").content.decode()
    assert 'id="login-form"' in body and settings.PRODUCT_NAME in body
    assert "Django administration" not in body


def test_a_correct_login_works(operator):
    client = admin_client()
    response = admin_login(client)
    assert response.status_code == 302 and response.headers["Location"] == "/admin/login/code/?next=%2Fadmin%2F"
    assert logged_in(client)


def test_lockout_per_username_after_too_many_failures(operator):
    client = admin_client()
    for _attempt in range(settings.LOGIN_LOCKOUT_ATTEMPTS):
        body = admin_login(client, password="wrong").content.decode()
        assert "Please enter the correct username and password" in body
    response = admin_login(client)  # even the right password
    assert response.status_code == 200 and lockout_message() in response.content.decode()
    assert not logged_in(client)
    # From another address too: the username is locked, not only the address.
    other = admin_client("10.0.0.2")
    assert lockout_message() in admin_login(other).content.decode()
    assert not logged_in(other)


def test_the_username_is_matched_case_insensitively(operator):
    client = admin_client()
    for _attempt in range(settings.LOGIN_LOCKOUT_ATTEMPTS):
        admin_login(client, username="OPERATOR", password="wrong")
    assert lockout_message() in admin_login(client).content.decode()


def test_lockout_per_address(operator):
    attacker = admin_client("10.0.0.9")
    for number in range(IP_LIMIT):
        admin_login(attacker, username=f"guess{number}", password="wrong")
    assert lockout_message() in admin_login(attacker).content.decode()
    assert not logged_in(attacker)
    # Other addresses are not affected.
    assert admin_login(admin_client("10.0.0.10")).status_code == 302


def test_successful_logins_do_not_count(operator):
    for _login in range(settings.LOGIN_LOCKOUT_ATTEMPTS + 2):
        client = admin_client()
        assert admin_login(client).status_code == 302


def test_a_member_account_of_a_site_cannot_log_in_to_the_admin(site, operator):
    from apps.accounts.tests.helpers_login import PASSWORD as MEMBER_PASSWORD
    from apps.accounts.tests.helpers_login import member_create

    member_create(site, name="operator2", email="op2@example.com", is_staff=True, is_superuser=True)
    client = admin_client()
    assert admin_login(client, username="operator2", password=MEMBER_PASSWORD).status_code == 200
    assert not logged_in(client)
