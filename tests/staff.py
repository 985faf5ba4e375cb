"""Staff of the operators' admin (admin.localhost, public schema) for tests.

    user = staff_member("support")            # or "operators", "superuser"
    client = staff_client(user)               # a django.test.Client on admin.localhost, logged in
    staff_browser_login(page, site_server.url("admin.localhost", ""), user)

Every staff member gets the password STAFF_PASSWORD and is put in the Django group of its
role (apps.accounts.staff.ROLES), so it sees only what that role allows."""

from __future__ import annotations

import uuid

from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django_tenants.utils import schema_context

from apps.accounts.models import User

ADMIN_HOST = "admin.localhost"
STAFF_PASSWORD = "staff-Long-passphrase-7"
OPERATOR_BACKEND = "django.contrib.auth.backends.ModelBackend"
STAFF_ROLES = ("operators", "support", "superuser")


def staff_member(role: str, username: str | None = None) -> User:
    """A staff user in the public schema with the group of `role` ("operators", "support")
    or a superuser ("superuser"); password STAFF_PASSWORD."""
    if role not in STAFF_ROLES:
        raise ValueError(f"unknown staff role {role!r}; one of {STAFF_ROLES}")
    username = username or f"{role}-{uuid.uuid4().hex[:8]}"
    with schema_context("public"):
        connection.set_schema_to_public()
        if role == "superuser":
            user = User.objects.create_superuser(
                username=username, email=f"{username}@example.com", password=STAFF_PASSWORD
            )
        else:
            user = User.objects.create_user(
                username=username, email=f"{username}@example.com", password=STAFF_PASSWORD, is_staff=True
            )
            group, _created = Group.objects.get_or_create(name=role)
            user.groups.add(group)
    return user


def staff_client(user: User, **defaults) -> Client:
    """A test client on the operators' host, logged in as `user`."""
    client = Client(HTTP_HOST=ADMIN_HOST, **defaults)
    client.force_login(user, backend=OPERATOR_BACKEND)
    return client


def staff_browser_login(page, base_url: str, user: User) -> None:
    """Log `user` in through the admin's real login form. `base_url` is the operators'
    host on the live server, e.g. site_server.url("admin.localhost", "")."""
    base = base_url.rstrip("/")
    page.goto(f"{base}/admin/login/?next=/admin/")
    page.locator("#id_username").fill(user.username)
    page.locator("#id_password").fill(STAFF_PASSWORD)
    page.locator('#login-form [type="submit"]').click()
    page.wait_for_url(f"{base}/admin/")
