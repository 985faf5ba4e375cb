"""The operators' admin (issue 6 item 3, public schema on admin.localhost): credit packages
with their prices, discount codes, and the support tools on a member-directory entry
that read and change the member's credits in the member's site schema."""

import re

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.test import Client
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.tests.helpers_settings import member_create
from apps.credits.models import CreditEntry, EntryKind
from apps.credits.services import credits_grant, credits_spend, credits_take_back
from apps.payments.models import Payment, Refund
from apps.tenants.models import CreditPackage, DiscountCode, MemberDirectoryEntry
from conftest import on_site
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


def staff(*permissions: str) -> User:
    user = User.objects.create_user(username="helper", email="helper@example.com", password=PASSWORD, is_staff=True)
    for codename in permissions:
        user.user_permissions.add(Permission.objects.get(codename=codename))
    return user


def body(response) -> str:
    return response.content.decode()


def directory_entry(site, user: User) -> MemberDirectoryEntry:
    return MemberDirectoryEntry.objects.get(site=site, member_id=user.pk)


def credits_url(entry: MemberDirectoryEntry, action: str = "") -> str:
    return f"/admin/tenants/memberdirectoryentry/{entry.pk}/credits/{action}"


def stored(site, user: User) -> User:
    with on_site(site):
        return User.objects.get(pk=user.pk)


def paid_payment(user: User, *, credits: int = 20, amount: int = 1495) -> Payment:
    return Payment.objects.create(
        user=user,
        package_id=1,
        credits=credits,
        currency="EUR",
        list_amount=amount,
        amount=amount,
        method="ideal",
        gateway="sandbox",
        provider_id=f"sbx_{user.pk}_{credits}",
        status="paid",
        paid_at=timezone.now(),
    )


@pytest.fixture
def anna(site) -> User:
    """A member of the general site with a purchase, a message and a signup bonus."""
    anna = member_create(site)
    with on_site(site):
        payment = paid_payment(anna)
        credits_grant(user=anna, credits=20, kind=EntryKind.PURCHASE, key=f"purchase:{payment.pk}", payment=payment)
        credits_grant(user=anna, credits=10, kind=EntryKind.SIGNUP_BONUS, key=f"signup_bonus:{anna.pk}")
        credits_spend(user=anna, credits=3, kind=EntryKind.MESSAGE, reference="message:42")
    return anna


# --- Credit packages and discount codes ----------------------------------------------------


class TestCreditPackages:
    def test_the_list_filters_by_site_and_shows_the_prices(self, admin, two_sites):
        site, gay_site = two_sites
        response = admin.get("/admin/tenants/creditpackage/", {"site__id__exact": site.pk})
        assert response.status_code == 200
        html = body(response)
        assert html.count('class="action-select"') == CreditPackage.objects.filter(site=site).count() == 3
        assert "14.95 EUR" in html and "29.95 EUR" in html
        assert f"?site__id__exact={gay_site.pk}" in html  # the site filter

    def test_the_change_page_has_the_prices_inline(self, admin, site):
        package = CreditPackage.objects.filter(site=site, credits=50).get()
        html = body(admin.get(f"/admin/tenants/creditpackage/{package.pk}/change/"))
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
        response = admin.post("/admin/tenants/creditpackage/add/", data)
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
        response = admin.post("/admin/tenants/creditpackage/add/", data)
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
        response = admin.get("/admin/tenants/discountcode/", query)
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
        response = admin.post("/admin/tenants/discountcode/add/", data)
        assert response.status_code == 302, body(response)
        code = DiscountCode.objects.get(site=site, code="SUMMER25")
        assert (code.value_percentage, code.country.code, code.paymentmethods) == (25, "NL", ["ideal", "paypal"])

    def test_an_unknown_payment_method_is_refused(self, admin, site):
        data = {"site": site.pk, "code": "X123", "value_percentage": 5, "status": "active", "paymentmethods": ["cash"]}
        response = admin.post("/admin/tenants/discountcode/add/", data)
        assert response.status_code == 200
        assert "Select a valid choice. cash is not one of the available choices." in body(response)


# --- Support tools -------------------------------------------------------------------------


class TestSupportPage:
    def test_the_directory_links_to_the_members_credits(self, admin, site, anna):
        entry = directory_entry(site, anna)
        assert credits_url(entry) in body(admin.get("/admin/tenants/memberdirectoryentry/"))
        assert credits_url(entry) in body(admin.get(f"/admin/tenants/memberdirectoryentry/{entry.pk}/change/"))

    def test_shows_balance_ledger_and_payments_from_the_members_site(self, admin, site, anna):
        with on_site(site):
            payment = Payment.objects.get(user=anna)
        html = body(admin.get(credits_url(directory_entry(site, anna))))
        assert 'data-testid="support-balance">27<' in html
        assert 'data-testid="support-ledger">27<' in html and "support-ledger-differs" not in html
        assert 'data-testid="support-frozen">no<' in html and 'data-testid="support-owed">0<' in html
        assert html.count('data-testid="support-entry"') == 3
        assert "message:42" in html and "Signup bonus" in html and "Purchase" in html
        assert html.count('data-testid="support-payment"') == 1
        assert payment.public_id in html and "14.95 EUR" in html
        assert 'name="csrfmiddlewaretoken"' in html

    def test_the_same_member_id_on_another_site_shows_that_sites_member(self, admin, gay_site, anna):
        twin = member_create(gay_site, email="twin@example.com", name="Twin", pk=anna.pk)
        html = body(admin.get(credits_url(directory_entry(gay_site, twin))))
        assert 'data-testid="support-balance">0<' in html
        assert "message:42" not in html and "No payments." in html

    def test_a_frozen_member_shows_the_debt_and_the_unfreeze_form(self, admin, site, anna):
        with on_site(site):
            credits_take_back(user=anna, credits=40, kind=EntryKind.CHARGEBACK, key="cb")
        html = body(admin.get(credits_url(directory_entry(site, anna))))
        assert 'data-testid="support-frozen">yes<' in html and 'data-testid="support-owed">13<' in html
        assert 'data-testid="support-unfreeze-form"' in html

    def test_the_unfreeze_form_only_when_frozen(self, admin, site, anna):
        assert 'data-testid="support-unfreeze-form"' not in body(admin.get(credits_url(directory_entry(site, anna))))

    def test_a_cache_that_differs_from_the_ledger_is_flagged(self, admin, site, anna):
        with on_site(site):
            User.objects.filter(pk=anna.pk).update(credits=99)
        assert "support-ledger-differs" in body(admin.get(credits_url(directory_entry(site, anna))))

    def test_a_member_gone_from_the_site_is_404(self, admin, site, anna):
        entry = directory_entry(site, anna)
        with on_site(site):
            CreditEntry.objects.filter(user=anna).delete()
            Payment.objects.filter(user=anna).delete()
            User.objects.filter(pk=anna.pk).delete()
        assert admin.get(credits_url(entry)).status_code == 404
        assert admin.get("/admin/tenants/memberdirectoryentry/987654/credits/").status_code == 404


class TestAdjust:
    def test_adds_credits_with_the_note_and_the_operators_name(self, admin, site, anna):
        entry = directory_entry(site, anna)
        response = admin.post(credits_url(entry, "adjust/"), {"credits": "15", "note": "Goodwill after an outage"})
        assert response.status_code == 302 and response.headers["Location"] == credits_url(entry)
        assert stored(site, anna).credits == 42
        with on_site(site):
            last = CreditEntry.objects.filter(user=anna).first()
        assert (last.kind, last.credits, last.note, last.staff_name) == (
            "adjustment",
            15,
            "Goodwill after an outage",
            "operator",
        )
        log = LogEntry.objects.get(object_id=str(entry.pk))
        assert "Credits +15: Goodwill after an outage" in log.get_change_message()
        assert "+15 credits for Anna. Balance: 42." in body(admin.get(credits_url(entry)))

    def test_takes_credits(self, admin, site, anna):
        admin.post(credits_url(directory_entry(site, anna), "adjust/"), {"credits": "-7", "note": "Double purchase"})
        assert stored(site, anna).credits == 20

    @pytest.mark.parametrize(
        ("data", "message"),
        [
            ({"credits": "5", "note": ""}, "This field is required."),
            ({"credits": "5", "note": "   "}, "This field is required."),
            ({"credits": "0", "note": "Nothing"}, "Enter a number of credits other than 0."),
            ({"credits": "ten", "note": "Typo"}, "Enter a whole number."),
            ({"credits": "-28", "note": "Too much"}, "You do not have enough credits"),
        ],
    )
    def test_bad_input_changes_nothing_and_keeps_what_was_typed(self, admin, site, anna, data, message):
        entry = directory_entry(site, anna)
        response = admin.post(credits_url(entry, "adjust/"), data)
        assert response.status_code == 400
        html = body(response)
        assert message in html
        if data["note"].strip():
            assert f'value="{data["note"]}"' in html
        assert stored(site, anna).credits == 27
        assert not LogEntry.objects.filter(object_id=str(entry.pk)).exists()

    def test_adding_pays_off_a_chargeback_debt(self, admin, site, anna):
        with on_site(site):
            credits_take_back(user=anna, credits=30, kind=EntryKind.CHARGEBACK, key="cb")  # 27 taken, 3 owed
        admin.post(credits_url(directory_entry(site, anna), "adjust/"), {"credits": "5", "note": "Paid by transfer"})
        member = stored(site, anna)
        assert (member.credits, member.credits_owed, member.credits_frozen) == (2, 0, False)


class TestUnfreeze:
    def test_clears_the_debt_and_allows_spending(self, admin, site, anna):
        with on_site(site):
            credits_take_back(user=anna, credits=40, kind=EntryKind.CHARGEBACK, key="cb")
        entry = directory_entry(site, anna)
        response = admin.post(credits_url(entry, "unfreeze/"), {"note": "Settled by phone"})
        assert response.status_code == 302
        member = stored(site, anna)
        assert (member.credits_frozen, member.credits_owed) == (False, 0)
        assert "Credits unfrozen (13 owed cleared): Settled by phone" in LogEntry.objects.get().get_change_message()
        assert "Spending is allowed again for Anna; 13 owed credits cleared." in body(admin.get(credits_url(entry)))

    def test_a_note_is_required(self, admin, site, anna):
        with on_site(site):
            credits_take_back(user=anna, credits=40, kind=EntryKind.CHARGEBACK, key="cb")
        response = admin.post(credits_url(directory_entry(site, anna), "unfreeze/"), {"note": ""})
        assert response.status_code == 400 and "This field is required." in body(response)
        assert stored(site, anna).credits_frozen is True

    def test_a_member_who_is_not_frozen(self, admin, site, anna):
        entry = directory_entry(site, anna)
        admin.post(credits_url(entry, "unfreeze/"), {"note": "Just in case"})
        assert "Spending was not frozen." in body(admin.get(credits_url(entry)))
        assert not LogEntry.objects.exists()


class TestRefund:
    def test_a_refund_button_for_each_refundable_payment_only(self, admin, site, anna):
        with on_site(site):
            failed = paid_payment(anna, credits=50, amount=2995)
            Payment.objects.filter(pk=failed.pk).update(status="failed", paid_at=None)
        html = body(admin.get(credits_url(directory_entry(site, anna))))
        assert html.count('data-testid="support-payment"') == 2
        assert html.count('data-testid="support-refund-form"') == 1
        # The unused credits (at most the balance): 20 of the purchase, 14.95 EUR.
        assert "Refund 14.95 EUR (20 credits)" in html

    def test_the_refund_takes_the_credits_back_and_records_the_operator(self, admin, site, anna):
        entry = directory_entry(site, anna)
        with on_site(site):
            payment = Payment.objects.get(user=anna)
        response = admin.post(credits_url(entry, f"refund/{payment.public_id}/"))
        assert response.status_code == 302
        with on_site(site):
            refund = Refund.objects.get(payment=payment)
            member = User.objects.get(pk=anna.pk)
        assert (refund.credits, refund.amount, refund.requested_by) == (20, 1495, "operator")
        assert member.credits == 7
        html = body(admin.get(credits_url(entry)))
        assert "Refund of 14.95 EUR (20 credits) requested for payment" in html
        assert 'data-testid="support-refund-form"' not in html  # nothing left to refund
        assert f"Refund of payment {payment.public_id}" in LogEntry.objects.get().get_change_message()

    def test_a_payment_that_cannot_be_refunded(self, admin, site, anna):
        entry = directory_entry(site, anna)
        with on_site(site):
            payment = Payment.objects.get(user=anna)
            User.objects.filter(pk=anna.pk).update(credits_frozen=True, credits_owed=1)
        admin.post(credits_url(entry, f"refund/{payment.public_id}/"))
        assert "This payment cannot be refunded." in body(admin.get(credits_url(entry)))
        with on_site(site):
            assert not Refund.objects.exists()

    def test_another_members_payment_is_404(self, admin, site, anna):
        bob = member_create(site, email="bob@example.com", name="Bob")
        with on_site(site):
            payment = Payment.objects.get(user=anna)
        response = admin.post(credits_url(directory_entry(site, bob), f"refund/{payment.public_id}/"))
        assert response.status_code == 404


class TestAccess:
    ACTIONS = ("adjust/", "unfreeze/")

    def test_visitors_are_sent_to_the_admin_login(self, site, anna):
        entry = directory_entry(site, anna)
        client = admin_client()
        for action in ("", *self.ACTIONS):
            response = client.post(credits_url(entry, action), {"credits": "5", "note": "x"})
            assert response.status_code == 302 and response.headers["Location"].startswith("/admin/login/")
        assert stored(site, anna).credits == 27

    def test_members_who_are_not_staff_cannot_enter(self, site, anna):
        user = User.objects.create_user(username="plain", email="plain@example.com", password=PASSWORD)
        response = admin_client(user).get(credits_url(directory_entry(site, anna)))
        assert response.status_code == 302 and response.headers["Location"].startswith("/admin/login/")

    def test_staff_without_permission_get_403(self, site, anna):
        client = admin_client(staff())
        entry = directory_entry(site, anna)
        assert client.get(credits_url(entry)).status_code == 403
        assert client.post(credits_url(entry, "adjust/"), {"credits": "5", "note": "x"}).status_code == 403

    def test_staff_who_may_only_view_cannot_change(self, site, anna):
        client = admin_client(staff("view_memberdirectoryentry"))
        entry = directory_entry(site, anna)
        assert client.get(credits_url(entry)).status_code == 200
        for action in self.ACTIONS:
            assert client.post(credits_url(entry, action), {"credits": "5", "note": "x"}).status_code == 403
        assert stored(site, anna).credits == 27

    def test_staff_who_may_change_can_adjust(self, site, anna):
        client = admin_client(staff("change_memberdirectoryentry"))
        client.post(credits_url(directory_entry(site, anna), "adjust/"), {"credits": "5", "note": "Helped"})
        with on_site(site):
            assert CreditEntry.objects.filter(user=anna).first().staff_name == "helper"

    def test_actions_are_post_only(self, admin, site, anna):
        entry = directory_entry(site, anna)
        with on_site(site):
            payment = Payment.objects.get(user=anna)
        for action in (*self.ACTIONS, f"refund/{payment.public_id}/"):
            assert admin.get(credits_url(entry, action)).status_code == 405

    def test_actions_are_csrf_protected(self, operator, site, anna):
        client = admin_client(operator, enforce_csrf_checks=True)
        entry = directory_entry(site, anna)
        with on_site(site):
            payment = Payment.objects.get(user=anna)
        for action in (*self.ACTIONS, f"refund/{payment.public_id}/"):
            assert client.post(credits_url(entry, action), {"credits": "5", "note": "x"}).status_code == 403
        assert stored(site, anna).credits == 27
        # With the page's token the same form works.
        page = client.get(credits_url(entry))
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body(page)).group(1)
        response = client.post(
            credits_url(entry, "adjust/"), {"credits": "5", "note": "x", "csrfmiddlewaretoken": token}
        )
        assert response.status_code == 302
        assert stored(site, anna).credits == 32
