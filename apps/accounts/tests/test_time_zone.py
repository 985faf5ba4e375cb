"""Dates and times in the member's time zone: the browser's, reported by the member's pages
in a cookie and kept on the account; pages, API answers and account mails use it, and a
cookie that names no zone changes nothing."""

from datetime import UTC, datetime

import pytest

from apps.accounts.mail import mail_send_later
from apps.accounts.models import User
from apps.accounts.time_zone import COOKIE
from apps.notifications.models import Notice
from apps.payments.models import DiscountCode
from apps.profiles.tests.helpers_view import logged_in, member
from conftest import on_site

pytestmark = pytest.mark.django_db

# 20:30 on 2 January in London is 05:30 on 3 January in Tokyo.
EXPIRED = datetime(2026, 1, 2, 20, 30, tzinfo=UTC)
LONDON, TOKYO = "Jan. 2, 2026, 8:30 p.m.", "Jan. 3, 2026, 5:30 a.m."


def _expired_message(client) -> str:
    answer = client.get("/api/discountcode.php", {"code": "old"})
    assert answer.status_code == 400
    return answer.json()["error"]["message"]


def _kept(site, profile) -> str:
    with on_site(site):
        return User.objects.get(pk=profile.user_id).time_zone


class TestMemberTimeZone:
    def test_member_time_zone_from_the_browser_is_kept_and_shown(self, site, client_for):
        DiscountCode.objects.create(site=site, code="OLD", value_percentage=10, expires=EXPIRED)
        anna = member(site, "Anna")
        client = logged_in(site, client_for, anna)
        assert LONDON in _expired_message(client)  # nothing reported yet: UTC
        client.cookies[COOKIE] = "Asia/Tokyo"
        message = _expired_message(client)
        assert TOKYO in message and LONDON not in message
        assert _kept(site, anna) == "Asia/Tokyo"
        # Kept on the account: a browser that sends no cookie (another device) sees the same.
        other = logged_in(site, client_for, anna)
        assert TOKYO in _expired_message(other)

    def test_member_pages_ask_for_the_zone_and_visitors_pages_do_not(self, site, client_for):
        anna = member(site, "Anna")
        html = logged_in(site, client_for, anna).get("/notifications").content.decode()
        assert f'data-time-zone-cookie="{COOKIE}"' in html
        assert "data-time-zone-cookie" not in client_for(site).get("/login").content.decode()

    @pytest.mark.parametrize(
        "value", ["Mars/Olympus_Mons", "../../etc/passwd", "Europe/Berlin\x00", "A" * 500, "", "utc+2"]
    )
    def test_member_time_zone_cookie_naming_no_zone_changes_nothing(self, site, client_for, value):
        DiscountCode.objects.create(site=site, code="OLD", value_percentage=10, expires=EXPIRED)
        anna = member(site, "Anna", user_fields={"time_zone": "Europe/London"})
        client = logged_in(site, client_for, anna)
        client.cookies[COOKIE] = value
        assert LONDON in _expired_message(client)  # London in January is UTC
        assert _kept(site, anna) == "Europe/London"

    def test_member_time_zone_in_account_mails(self, site, tmp_path, settings, mailoutbox):
        (tmp_path / "zone").mkdir()
        (tmp_path / "zone" / "test_subject.txt").write_text("When")
        (tmp_path / "zone" / "test_message.txt").write_text('{{ when|date:"Y-m-d H:i" }}')
        settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [tmp_path, *settings.TEMPLATES[0]["DIRS"]]}]
        anna = member(site, "Anna", user_fields={"time_zone": "America/New_York"})
        with on_site(site):
            context = {"user": anna.user, "when": EXPIRED}
            mail_send_later(template_prefix="zone/test", email="anna@example.com", context=context)
            assert Notice.objects.filter(user=anna.user).exists()
        (message,) = [message for message in mailoutbox if message.to == ["anna@example.com"]]
        assert message.body == "2026-01-02 15:30"
