"""The member's locale for dates and money (apps.common.locale): their language plus their
country, on the server's pages and for the islands (<meta name="locale">, Checkout's prop)."""

import json
import re
from datetime import UTC, date, datetime

import pytest
from django.conf import settings
from django.test import RequestFactory
from django.utils import translation

from apps.common import locale
from apps.payments.formatting import money_format
from apps.payments.models import Payment
from apps.payments.tests.test_pages import _old_member, _paid
from apps.profiles.tests.helpers_view import logged_in, member
from conftest import on_site

pytestmark = pytest.mark.django_db

DAY = datetime(2026, 11, 25, 12, 30, tzinfo=UTC)


class Member:
    is_authenticated = True

    def __init__(self, country: str):
        self.country = country


def request_from(country_header: str = "", user=None):
    request = RequestFactory().get("/", **({settings.GEOIP_COUNTRY_HEADER: country_header} if country_header else {}))
    request.user = user
    return request


class TestLocaleTag:
    def test_the_members_language_and_country(self):
        with translation.override("en"):
            assert locale.locale_tag(request_from("US", Member("GB"))) == "en-GB"
        with translation.override("fr"):
            assert locale.locale_tag(request_from("", Member("BE"))) == "fr-BE"

    def test_a_visitor_by_the_geoip_country_else_the_language_alone(self):
        with translation.override("de"):
            assert locale.locale_tag(request_from("CH")) == "de-CH"
            assert locale.locale_tag(request_from("")) == "de"
            assert locale.locale_tag(request_from("XX")) == "de"
            assert locale.locale_tag(None) == "de"


class TestFormats:
    def test_dates_of_a_uk_member_are_british_not_american(self):
        with translation.override("en"):
            assert locale.date_format(date(2026, 11, 25), "SHORT_DATE_FORMAT", "en-GB") == "25/11/2026"
            assert locale.date_format(date(2026, 11, 25), "DATE_FORMAT", "en-GB") == "25 Nov 2026"
            assert locale.date_format(date(2026, 11, 25), "SHORT_DATE_FORMAT", "en-US") == "11/25/2026"
            assert locale.date_format(date(2026, 11, 25), "SHORT_DATE_FORMAT", "nl-BE") == "25-11-2026"

    @pytest.mark.parametrize(
        ("tag", "amount", "currency", "text"),
        [
            ("en-GB", 123456, "GBP", "£1,234.56"),
            ("en-GB", 1495, "EUR", "€14.95"),
            ("fr-BE", 123456, "EUR", "1\xa0234,56\xa0€"),
            ("de-DE", 123456, "EUR", "1.234,56\xa0€"),
        ],
    )
    def test_money_by_the_locale(self, tag, amount, currency, text):
        assert money_format(amount, currency, tag) == text


class TestPages:
    def test_a_uk_members_pages_and_islands_get_en_gb(self, site, client_for):
        me = member(site, "Brit", user_fields={"country": "GB"})
        client = logged_in(site, client_for, me)
        html = client.get("/credits", HTTP_CF_IPCOUNTRY="US").content.decode()
        assert '<meta name="locale" content="en-GB">' in html
        props = [
            json.loads(found)
            for found in re.findall(
                r'<script id="island-Checkout-\d+-props" type="application/json">(.*?)</script>', html
            )
        ]
        assert props and props[0]["locale"] == "en-GB"

    def test_a_uk_members_transactions_show_british_dates(self, site, client_for):
        me = _old_member(site, "Buyer")
        with on_site(site):
            type(me.user).objects.filter(pk=me.user.pk).update(country="GB")
        payment = _paid(site, me.user, credits=20, list_amount=1295)
        with on_site(site):
            Payment.objects.filter(pk=payment.pk).update(created=DAY, paid_at=DAY)
        html = logged_in(site, client_for, me).get("/transactions").content.decode()
        assert "25/11/2026" in html or "25 Nov 2026" in html
        assert "11/25/2026" not in html and "Nov. 25, 2026" not in html
