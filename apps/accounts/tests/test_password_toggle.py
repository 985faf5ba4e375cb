"""The show-password toggle that signup has, on the login page and the settings' password
fields (the reset page's: test_password_reset.py); the page's script makes it work
(static_src/base/passwordToggle.ts)."""

import re

import pytest

from apps.profiles.tests.helpers_view import logged_in, member

pytestmark = pytest.mark.django_db


def _toggled(html: str) -> set[str]:
    return set(re.findall(r'data-password-toggle aria-controls="([^"]+)" aria-pressed="false"', html))


def test_show_password_toggle_on_login(site, client_for):
    html = client_for(site).get("/login").content.decode()
    assert _toggled(html) == {"login-password"}
    assert 'id="login-password"' in html


def test_show_password_toggle_on_every_password_field_of_the_settings(site, client_for):
    html = logged_in(site, client_for, member(site, "Anna")).get("/notifications").content.decode()
    fields = set(re.findall(r'<input[^>]*type="password"[^>]*id="([^"]+)"', html))
    assert fields and _toggled(html) == fields
