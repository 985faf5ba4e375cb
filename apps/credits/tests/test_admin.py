"""The operators' admin (issue 6 item 3, public schema on admin.localhost): credit packages
with their prices and discount codes. The support tools on a member (credits, refunds)
are the support console's: apps/support/tests/test_console.py."""

import re

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.payments.models import CreditPackage, DiscountCode
from tests.staff import staff_client

pytestmark = pytest.mark.django_db

PASSWORD = "operator-Long-phrase-1"
OPERATOR_BACKEND = "django.contrib.auth.backends.ModelBackend"


@pytest.fixture
def operator(db) -> User:
    """A superuser in the public schema (where the admin runs)."""
    return User.objects.create_superuser(username="operator", email="ops@example.com", password=PASSWORD)


def admin_client(user: User | None = None, **defaults) -> Client:
    """Logged in with both steps (password and TOTP) when a user is given."""
    if user is not None:
        return staff_client(user, **defaults)
    return Client(HTTP_HOST="admin.localhost", **defaults)


@pytest.fixture
def admin(operator) -> Client:
    return admin_client(operator)


def body(response) -> str:
    return response.content.decode()


# --- Credit packages and discount codes ----------------------------------------------------


class TestCreditPackages:
    def test_the_list_filters_by_site_and_shows_the_prices(self, admin, two_sites):
        site, gay_site = two_sites
        response = admin.get("/admin/payments/creditpackage/", {"site__id__exact": site.pk})
        assert response.status_code == 200
        html = body(response)
        assert html.count('class="action-select"') == CreditPackage.objects.filter(site=site).count() == 3
        assert "14.95 EUR" in html and "29.95 EUR" in html
        assert f"?site__id__exact={gay_site.pk}" in html  # the site filter

    def test_the_change_page_has_the_prices_inline(self, admin, site):
        package = CreditPackage.objects.filter(site=site, credits=50).get()
        html = body(admin.get(f"/admin/payments/creditpackage/{package.pk}/change/"))
        assert 'name="prices-TOTAL_FORMS"' in html
        assert 'value="2995"' in html and 'value="EUR"' in html
        # The site list leaves out the operators' own (public) row.
        assert ">Operators<" not in html

    def test_a_package_is_added_with_its_prices(self, admin, site):
        data = {
            "site": site.pk,
            "credits": 300,
            "highlighted": "",
            "is_active": "on",
            "position": 9,
            "prices-TOTAL_FORMS": 2,
            "prices-INITIAL_FORMS": 0,
            "prices-MIN_NUM_FORMS": 1,
            "prices-MAX_NUM_FORMS": 1000,
            "prices-0-currency": "EUR",
            "prices-0-amount": 9995,
            "prices-1-currency": "GBP",
            "prices-1-amount": 8495,
        }
        response = admin.post("/admin/payments/creditpackage/add/", data)
        assert response.status_code == 302, body(response)
        package = CreditPackage.objects.get(site=site, credits=300)
        assert sorted(package.prices.values_list("currency", "amount")) == [("EUR", 9995), ("GBP", 8495)]

    def test_a_price_below_one_unit_is_refused(self, admin, site):
        data = {
            "site": site.pk,
            "credits": 5,
            "position": 0,
            "prices-TOTAL_FORMS": 1,
            "prices-INITIAL_FORMS": 0,
            "prices-MIN_NUM_FORMS": 1,
            "prices-MAX_NUM_FORMS": 1000,
            "prices-0-currency": "EUR",
            "prices-0-amount": 50,
        }
        response = admin.post("/admin/payments/creditpackage/add/", data)
        assert response.status_code == 200
        assert "Ensure this value is greater than or equal to 100." in body(response)
        assert not CreditPackage.objects.filter(site=site, credits=5).exists()


class TestDiscountCodes:
    @pytest.fixture
    def codes(self, two_sites):
        site, gay_site = two_sites
        return [
            DiscountCode.objects.create(site=site, code="SPRING10", value_percentage=10),
            DiscountCode.objects.create(site=site, code="OLD50", value_percentage=50, status="inactive"),
            DiscountCode.objects.create(site=gay_site, code="PRIDE20", value_percentage=20),
        ]

    def codes_listed(self, admin, **query) -> list[str]:
        response = admin.get("/admin/payments/discountcode/", query)
        assert response.status_code == 200
        return sorted(re.findall(r'<th class="field-code"><a [^>]*>([A-Z0-9_-]+)</a>', body(response)))

    def test_list_search_and_filters(self, admin, codes, site):
        assert {"SPRING10", "OLD50", "PRIDE20"} <= set(self.codes_listed(admin))
        assert self.codes_listed(admin, q="pride") == ["PRIDE20"]
        assert "SPRING10" in self.codes_listed(admin, site__id__exact=site.pk)
        assert "PRIDE20" not in self.codes_listed(admin, site__id__exact=site.pk)
        assert "OLD50" in self.codes_listed(admin, status__exact="inactive")
        assert "SPRING10" not in self.codes_listed(admin, status__exact="inactive")

    def test_a_code_is_added_with_its_payment_methods(self, admin, site):
        data = {
            "site": site.pk,
            "code": " summer25 ",
            "value_percentage": 25,
            "country": "NL",
            "currency": "EUR",
            "minimum_order_value": 2000,
            "status": "active",
            "paymentmethods": ["ideal", "paypal"],
        }
        response = admin.post("/admin/payments/discountcode/add/", data)
        assert response.status_code == 302, body(response)
        code = DiscountCode.objects.get(site=site, code="SUMMER25")
        assert (code.value_percentage, code.country.code, code.paymentmethods) == (25, "NL", ["ideal", "paypal"])

    def test_an_unknown_payment_method_is_refused(self, admin, site):
        data = {"site": site.pk, "code": "X123", "value_percentage": 5, "status": "active", "paymentmethods": ["cash"]}
        response = admin.post("/admin/payments/discountcode/add/", data)
        assert response.status_code == 200
        assert "Select a valid choice. cash is not one of the available choices." in body(response)
