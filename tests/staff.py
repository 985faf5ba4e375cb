"""Staff of the operators' admin (admin.localhost, public schema) for tests.

    user = staff_member("support")            # or "operators", "superuser"
    client = staff_client(user)               # a django.test.Client on admin.localhost,
                                              # logged in with both steps (password, TOTP)
    staff_browser_login(page, site_server.url("admin.localhost", ""), user)

Browser tests need the staff member committed (the live server reads it on its own
connection): `user = staff_member_committed("operators")`, and `staff_delete_committed(user)`
afterwards.

Every staff member gets the password STAFF_PASSWORD, the Django group of its role
(apps.accounts.staff.ROLES, so it sees only what that role allows) and a confirmed TOTP
device (totp_code(user) is its current code). `staff_member(role, enrolled=False)` makes
one who has not set up the second step yet; `staff_set_up_link(user)` is the path of a
one-time link with which they can (followed before the password step)."""

from __future__ import annotations

import time
import uuid

from django.contrib.auth.models import Group
from django.test import Client
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_tenants.utils import schema_context

from apps.accounts.admin_login import DEVICE_NAME, OPERATOR_BACKEND, totp_device
from apps.accounts.models import User

ADMIN_HOST = "admin.localhost"
STAFF_PASSWORD = "staff-Long-passphrase-7"
STAFF_ROLES = ("operators", "support", "superuser")


def staff_member(role: str, username: str | None = None, *, enrolled: bool = True) -> User:
    """A staff user in the public schema with the group of `role` ("operators", "support")
    or a superuser ("superuser"); password STAFF_PASSWORD; a confirmed TOTP device
    unless `enrolled` is False."""
    if role not in STAFF_ROLES:
        raise ValueError(f"unknown staff role {role!r}; one of {STAFF_ROLES}")
    username = username or f"{role}-{uuid.uuid4().hex[:8]}"
    with schema_context("public"):
        if role == "superuser":
            user = User.objects.create_superuser(
                username=username, email=f"{username}@example.com", password=STAFF_PASSWORD
            )
        else:
            user = User.objects.create_user(
                username=username, email=f"{username}@example.com", password=STAFF_PASSWORD, is_staff=True
            )
            user.groups.add(Group.objects.get(name=role))
        if enrolled:
            _enrol(user)
    return user


def _enrol(user: User) -> TOTPDevice:
    return TOTPDevice.objects.create(user=user, name=DEVICE_NAME, confirmed=True)


def staff_set_up_link(user: User) -> str:
    """The path of a new one-time set-up link of `user`'s second step, as
    `manage.py staff_create` makes it (/admin/login/enrol/<token>/)."""
    from apps.accounts.services.staff_enrolment import CAUSE_CREATED, enrolment_link_make, enrolment_path

    return enrolment_path(enrolment_link_make(user=user, by=None, cause=CAUSE_CREATED))


def staff_set_up_link_committed(user: User) -> str:
    """staff_set_up_link() committed on a connection of its own, for the live server."""
    return _in_thread(staff_set_up_link, user)


def staff_device(user: User) -> TOTPDevice:
    with schema_context("public"):
        return TOTPDevice.objects.get(user=user, confirmed=True)


def totp_code(source: User | TOTPDevice | str, at: float | None = None) -> str:
    """The TOTP code of a staff member's confirmed device, of a device, or of a base32
    secret as the enrolment page shows it, at time `at` (now by default)."""
    if isinstance(source, str):
        import base64

        secret = source.replace(" ", "")
        key, step, t0, digits = base64.b32decode(secret + "=" * (-len(secret) % 8)), 30, 0, 6
    else:
        device = source if isinstance(source, TOTPDevice) else staff_device(source)
        key, step, t0, digits = device.bin_key, device.step, device.t0, device.digits
    totp = TOTP(key, step, t0, digits)
    totp.time = at if at is not None else time.time()
    return f"{totp.token():0{digits}d}"


def fresh_totp_code(user: User) -> str:
    """A code the device has not accepted yet: waits for the next time step when this
    step's code was used (a code is accepted once)."""
    device = staff_device(user)
    while TOTP(device.bin_key, device.step, device.t0, device.digits).t() <= device.last_t:
        time.sleep(0.5)
    return totp_code(device)


def staff_client(user: User, **defaults) -> Client:
    """A test client on the operators' host, logged in as `user` with both steps (a
    user without a confirmed TOTP device gets one)."""
    client = Client(HTTP_HOST=ADMIN_HOST, **defaults)
    with schema_context("public"):
        client.force_login(user, backend=OPERATOR_BACKEND)
        device = totp_device(user) or _enrol(user)
        session = client.session
        session[DEVICE_ID_SESSION_KEY] = device.persistent_id
        session.save()
    return client


def staff_browser_login(page, base_url: str, user: User) -> None:
    """Log `user` in through the admin's real login form: the password, then the
    current TOTP code. `base_url` is the operators' host on the live server, e.g.
    site_server.url("admin.localhost", "")."""
    base = base_url.rstrip("/")
    page.goto(f"{base}/admin/login/?next=/admin/")
    page.locator("#id_username").fill(user.username)
    page.locator("#id_password").fill(STAFF_PASSWORD)
    page.locator('#login-form [type="submit"]').click()
    page.wait_for_url(f"{base}/admin/login/code/**")
    page.locator("#id_code").fill(fresh_totp_code(user))
    page.locator('#login-form [type="submit"]').click()
    page.wait_for_url(f"{base}/admin/")


def _in_thread(func, *args, **kwargs):
    from tests.live import in_thread

    return in_thread(func, *args, **kwargs)


def staff_member_committed(role: str, username: str | None = None, *, enrolled: bool = True) -> User:
    """staff_member() committed on a connection of its own, for the live server."""
    return _in_thread(staff_member, role, username, enrolled=enrolled)


def staff_delete_committed(user: User) -> None:
    """Delete a committed staff member (its device and sessions' rights go with it)."""

    def delete() -> None:
        with schema_context("public"):
            User.objects.filter(pk=user.pk).delete()

    _in_thread(delete)
