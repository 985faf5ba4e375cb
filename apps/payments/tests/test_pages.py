"""The payments app's pages: /premium, /pricing, the return policy, /transactions and the
invoice-like view of one purchase with its refund of unused credits."""

import re
import uuid
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation

from apps.accounts.models import User
from apps.credits.models import CreditEntry, EntryKind
from apps.credits.services import credits_adjust, credits_grant, credits_spend
from apps.payments.formatting import money_format
from apps.payments.models import CreditPackage, Payment, PaymentStatus, Refund, SandboxPayment
from apps.profiles.tests.helpers_view import logged_in, member
from apps.tenants.models import MinimumMessageCost
from conftest import on_site

pytestmark = pytest.mark.django_db


def _old_member(site, name: str):
    """A member past the welcome offers: no discount applies."""
    return member(site, name, user_fields={"date_joined": timezone.now() - timedelta(days=30)})


def _packages(site) -> list[CreditPackage]:
    return list(CreditPackage.objects.filter(site=site, is_active=True).order_by("position"))


def _paid(
    site,
    user: User,
    *,
    credits: int = 50,
    list_amount: int = 2595,
    discount: int = 0,
    currency: str = "GBP",
    method: str = "visa",
    paid_days_ago: float = 0,
) -> Payment:
    """A purchase the gateway reported paid, with its credits granted: the state
    payment_sync leaves. The sandbox's own record lets a refund go through the gateway."""
    amount = list_amount - (list_amount * discount + 50) // 100
    paid_at = timezone.now() - timedelta(days=paid_days_ago)
    with on_site(site):
        provider_id = f"sbx_{uuid.uuid4().hex[:16]}"
        SandboxPayment.objects.create(
            id=provider_id,
            amount=amount,
            currency=currency,
            description=f"{credits} credits",
            method=method,
            status="paid",
            redirect_url="http://localhost/credits",
            webhook_url="http://localhost/webhook",
        )
        payment = Payment.objects.create(
            user=user,
            package_id=_packages(site)[1].pk,
            credits=credits,
            currency=currency,
            list_amount=list_amount,
            amount=amount,
            discount_code="TIMEBONUS25" if discount else "",
            discount_percentage=discount,
            method=method,
            country="GB",
            gateway="sandbox",
            provider_id=provider_id,
            status=PaymentStatus.PAID,
            paid_at=paid_at,
        )
        Payment.objects.filter(pk=payment.pk).update(created=paid_at)
        credits_grant(
            user=user, credits=credits, kind=EntryKind.PURCHASE, key=f"purchase:{payment.pk}", payment=payment
        )
        User.objects.filter(pk=user.pk).update(paid_user=True, premium_since=paid_at)
        user.refresh_from_db()
        payment.refresh_from_db()
    return payment


# --- /premium ------------------------------------------------------------------------


def test_premium_sends_visitors_to_the_login(site, client_for):
    answer = client_for(site).get("/premium")
    assert answer.status_code == 302
    assert answer["Location"] == "/login?next=/premium"


def test_premium_shows_the_benefits_and_the_packages_in_the_members_currency(site, client_for):
    me = _old_member(site, "Free")
    html = logged_in(site, client_for, me).get("/premium").content.decode()
    assert "Premium members have a 46% higher chance of a match." in html
    for text in ("See all photos", "Up to 25 photos instead of 3", "Free members can start up to 2 conversations."):
        assert text in html
    assert "Premium features stay yours, even when your credits reach zero." in html
    assert "no subscription" in html
    assert "Unused credits can be refunded within 14 days of the purchase." in html
    assert 'href="/pages/return-policy"' in html
    for package, price in zip(_packages(site), ("£12.95", "£25.95", "£51.95"), strict=True):
        assert f'href="/credits/{package.pk}"' in html
        assert f'data-testid="package-price">{price}<' in html
    assert 'data-testid="package-list-price"' not in html
    assert "You are a premium member" not in html
    assert 'data-testid="topbar-credits"><span>Get Premium' in html


def test_premium_applies_the_active_discount(site, client_for):
    me = member(site, "Newcomer")  # signed up just now: the time bonus runs
    html = logged_in(site, client_for, me).get("/premium").content.decode()
    assert 'data-testid="premium-discount"' in html
    assert "−25%" in html and "TIMEBONUS25" in html
    # 25 % off £12.95 is £9.71 (rounded to the nearest penny), the list price struck through.
    assert 'data-testid="package-list-price">£12.95<' in html
    assert 'data-testid="package-price">£9.71<' in html


def test_premium_shows_the_welcome_discount_after_the_time_bonus(site, client_for):
    me = member(site, "Welcomed", user_fields={"date_joined": timezone.now() - timedelta(days=2)})
    html = logged_in(site, client_for, me).get("/premium").content.decode()
    assert "Your welcome discount on your first purchase is applied." in html
    assert "See the packages, 25% off" in html
    assert 'data-testid="package-price">£9.71<' in html


def test_premium_for_a_paid_member(site, client_for):
    me = _old_member(site, "Paid")
    _paid(site, me.user)
    html = logged_in(site, client_for, me).get("/premium").content.decode()
    assert "You are a premium member" in html
    assert 'data-testid="premium-buy-more"' in html
    assert 'href="/transactions"' in html
    assert 'data-testid="premium-packages"' not in html


def test_premium_in_french_formats_prices_the_french_way(site, client_for):
    me = _old_member(site, "Francoise")
    client = logged_in(site, client_for, me)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    html = client.get("/premium").content.decode()
    assert 'data-testid="package-price">12,95\xa0£<' in html


@pytest.mark.parametrize(
    ("language", "amount", "currency", "text"),
    [
        ("en", 1495, "EUR", "€14.95"),
        ("en", 123456, "GBP", "£1,234.56"),
        ("en", 1495, "CHF", "CHF\xa014.95"),
        ("nl", 1495, "EUR", "€\xa014,95"),
        ("de", 123456, "EUR", "1.234,56\xa0€"),
        ("fr", 5, "EUR", "0,05\xa0€"),
    ],
)
def test_money_format_follows_the_language(language, amount, currency, text):
    with translation.override(language):
        assert money_format(amount, currency) == text


# --- /pricing ------------------------------------------------------------------------


def test_pricing_is_public_and_linked_from_the_footer(site, client_for):
    html = client_for(site).get("/").content.decode()
    assert 'href="/pricing"' in html
    answer = client_for(site).get("/pricing")
    assert answer.status_code == 200
    html = answer.content.decode()
    assert "£12.95" in html and "£25.95" in html and "£51.95" in html
    assert "Welcome gift: 10 free credits when you confirm your e-mail address." in html
    assert 'data-testid="pricing-cost-message">1 credit<' in html
    assert 'data-testid="pricing-cost-photo">2 credits<' in html
    assert 'data-testid="pricing-cost-gift">3 credits<' in html
    # The cheapest credits (120 for £51.95) make a message cost from 44p.
    assert "from £0.44 per message" in html
    assert "refunded within 14 days of the purchase" in html
    assert 'href="/pages/return-policy"' in html
    assert 'data-testid="pricing-signup"' in html


def test_pricing_uses_the_visitors_country(site, client_for):
    html = client_for(site, HTTP_CF_IPCOUNTRY="US").get("/pricing").content.decode()
    assert "$15.95" in html and "£12.95" not in html
    # A country without its own currency pays in euros.
    html = client_for(site, HTTP_CF_IPCOUNTRY="FR").get("/pricing").content.decode()
    assert "€14.95" in html


def test_pricing_shows_the_countrys_minimum_message_cost(site, client_for):
    MinimumMessageCost.objects.create(site=site, country="US", costs=4, currency="USD")
    us = client_for(site, HTTP_CF_IPCOUNTRY="US").get("/pricing").content.decode()
    assert 'data-testid="pricing-cost-message">4 credits<' in us
    gb = client_for(site, HTTP_CF_IPCOUNTRY="GB").get("/pricing").content.decode()
    assert 'data-testid="pricing-cost-message">1 credit<' in gb


@pytest.mark.parametrize(("country", "minimum", "expected"), [("GB", 2, 3), ("US", 5, 5), ("FR", None, 3)])
def test_minimum_message_costs_same_on_pricing_and_in_chat(site, client_for, country, minimum, expected):
    """A country's minimum never makes a message cheaper than `message_credits`; the chat
    charges what /pricing shows."""
    from apps.chat.models import MessageKind
    from apps.chat.pricing import message_cost
    from apps.tenants.models import Site

    site.message_credits = 3
    site.save()
    if minimum is not None:
        MinimumMessageCost.objects.create(site=site, country=country, costs=minimum, currency="EUR")
    anna = member(site, "Anna", country=country, user_fields={"country": country})
    html = logged_in(site, client_for, anna).get("/pricing").content.decode()
    shown = re.search(r'data-testid="pricing-cost-message">(\d+) credits?<', html).group(1)
    fresh = Site.objects.prefetch_related("minimum_message_costs").get(pk=site.pk)
    with on_site(site):
        charged = message_cost(site=fresh, user=anna.user, kind=MessageKind.TEXT)
    assert int(shown) == charged == expected


def test_pricing_follows_the_sites_settings(site, client_for):
    site.signup_credits = 0
    site.refund_days = 30
    site.photo_credits = 5
    site.save()
    html = client_for(site).get("/pricing").content.decode()
    assert 'data-testid="pricing-welcome-gift"' not in html
    assert "refunded within 30 days" in html
    assert 'data-testid="pricing-cost-photo">5 credits<' in html


# --- Return policy ---------------------------------------------------------------------


def test_return_policy_explains_the_refund_rule(site, client_for):
    site.refund_days = 10
    site.save()
    html = client_for(site).get("/pages/return-policy").content.decode()
    assert "Credits you have not used can be refunded within 10 days of the purchase." in html
    assert 'href="/transactions"' in html
    assert "support@localhost" in html
    assert "pro rata" in html
    assert "chargeback" in html


# --- /transactions -------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/transactions", "/transactions/abc"])
def test_transactions_need_a_login(site, client_for, path):
    answer = client_for(site).get(path)
    assert answer.status_code == 302
    assert answer["Location"].startswith("/login?next=/transactions")


def test_transactions_of_a_member_without_any(site, client_for):
    html = logged_in(site, client_for, _old_member(site, "Empty")).get("/transactions").content.decode()
    assert 'data-testid="transactions-no-purchases"' in html
    assert 'data-testid="transactions-no-entries"' in html
    assert "Your balance: 0 credits" in html


def test_transactions_list_purchases_and_credit_movements(site, client_for):
    me = _old_member(site, "Buyer")
    older = _paid(site, me.user, credits=20, list_amount=1295, paid_days_ago=3)
    newer = _paid(site, me.user, credits=50, list_amount=2595, discount=25, method="paypal")
    with on_site(site):
        credits_spend(user=me.user, credits=2, kind=EntryKind.PHOTO, reference="photo:1")
        credits_adjust(user=me.user, credits=5, staff_name="Sam", note="Sorry for the trouble")
        # Not shown: never reached the gateway.
        Payment.objects.create(
            user=me.user, package_id=1, credits=20, currency="GBP", list_amount=1295, amount=1295,
            method="visa", gateway="sandbox", status=PaymentStatus.CREATED,
        )  # fmt: skip
    html = logged_in(site, client_for, me).get("/transactions").content.decode()

    assert html.index(f'data-testid="purchase-{newer.public_id}"') < html.index(
        f'data-testid="purchase-{older.public_id}"'
    )
    assert html.count('data-testid="purchase-amount"') == 2
    assert 'data-testid="purchase-amount">£19.46<' in html  # 25 % off £25.95
    assert f'href="/transactions/{newer.public_id}"' in html
    assert "PayPal" in html and "Paid" in html
    assert "Your balance: 73 credits" in html
    entries = html.split('data-testid="transactions-entries"')[1]
    assert entries.count('data-testid="credit-entry"') == 4
    assert 'data-testid="credit-entry-credits">+5<' in entries
    assert 'data-testid="credit-entry-credits">−2<' in entries
    assert "Sorry for the trouble" in entries and "Support adjustment" in entries
    assert "package of 50 credits" in entries


def test_transactions_pages_have_a_fixed_number_of_queries(site, client_for):
    def queries(name: str, purchases: int) -> tuple[int, int]:
        me = _old_member(site, name)
        payments = [_paid(site, me.user, credits=20, paid_days_ago=i) for i in range(purchases)]
        with on_site(site):
            for i in range(purchases):
                credits_spend(user=me.user, credits=1, kind=EntryKind.MESSAGE, reference=f"message:{i}")
                Refund.objects.create(payment=payments[0], credits=1, amount=65, requested_by="support")
        client = logged_in(site, client_for, me)
        client.get("/transactions")
        with CaptureQueriesContext(connection) as listing:
            assert client.get("/transactions").status_code == 200
        with CaptureQueriesContext(connection) as detail:
            assert client.get(f"/transactions/{payments[0].public_id}").status_code == 200
        return len(listing.captured_queries), len(detail.captured_queries)

    assert queries("One", 1) == queries("Many", 15)


def test_transactions_paginate(site, client_for):
    me = _old_member(site, "Pages")
    for i in range(12):
        _paid(site, me.user, credits=20, paid_days_ago=i)
    client = logged_in(site, client_for, me)
    first = client.get("/transactions").content.decode()
    assert first.count('data-testid="purchase-amount"') == 10
    assert "1 of 2" in first and 'href="?page=2&amp;moves=1"' in first
    second = client.get("/transactions?page=2").content.decode()
    assert second.count('data-testid="purchase-amount"') == 2
    # A page number out of range shows the last page rather than an error.
    assert client.get("/transactions?page=99&moves=x").status_code == 200


def test_invoice_shows_the_company_the_member_and_the_amounts(site, client_for):
    me = _old_member(site, "Invoiced")
    payment = _paid(site, me.user, credits=50, list_amount=2595, discount=25)
    html = logged_in(site, client_for, me).get(f"/transactions/{payment.public_id}").content.decode()
    company = html.split('data-testid="invoice-company"')[1].split("</address>")[0]
    for text in ("Demo Dating B.V.", "Herengracht 100", "Amsterdam", "Netherlands", "12345678", "NL123456789B01",
                 "+31 20 123 4567", "support@localhost"):  # fmt: skip
        assert text in company
    assert f'data-testid="invoice-number">HEA-{site.pk}-{payment.pk:06d}<' in html
    customer = html.split('data-testid="invoice-customer">')[1].split("</div>")[0]
    assert me.user.username in customer and me.user.email in customer
    assert "Credit package: 50 credits" in html
    assert 'data-testid="invoice-list-price">£25.95<' in html
    assert "−£6.49" in html and "TIMEBONUS25" in html and "(25%)" in html
    assert 'data-testid="invoice-amount">£19.46<' in html
    assert 'data-testid="invoice-vat"' in html
    assert 'data-testid="invoice-method">Visa<' in html
    assert 'data-testid="payment-status">Paid<' in html
    assert "data-print-page" in html


def test_invoice_lists_refunds_and_chargebacks(site, client_for):
    me = _old_member(site, "Refunded")
    payment = _paid(site, me.user, credits=50, list_amount=2595)
    with on_site(site):
        Refund.objects.create(payment=payment, credits=10, amount=519, requested_by="support", status="refunded")
        Payment.objects.filter(pk=payment.pk).update(amount_charged_back=500)
    html = logged_in(site, client_for, me).get(f"/transactions/{payment.public_id}").content.decode()
    refunds = html.split('data-testid="invoice-refunds"')[1]
    assert "£5.19 (10 credits)" in refunds and "Refunded" in refunds
    assert "Charged back: £5.00" in refunds


def test_an_unpaid_payment_has_no_invoice_number(site, client_for):
    me = _old_member(site, "Failed")
    with on_site(site):
        payment = Payment.objects.create(
            user=me.user, package_id=1, credits=20, currency="GBP", list_amount=1295, amount=1295,
            method="paypal", gateway="sandbox", status=PaymentStatus.FAILED,
        )  # fmt: skip
    html = logged_in(site, client_for, me).get(f"/transactions/{payment.public_id}").content.decode()
    assert 'data-testid="invoice-number"' not in html
    assert 'data-testid="payment-status">Failed<' in html
    assert 'data-testid="refund-button"' not in html


def test_only_the_owner_sees_a_payment(site, gay_site, client_for):
    owner, other = _old_member(site, "Owner"), _old_member(site, "Other")
    payment = _paid(site, owner.user)
    assert logged_in(site, client_for, other).get(f"/transactions/{payment.public_id}").status_code == 404
    assert logged_in(site, client_for, other).get(f"/transactions/{payment.public_id}/refund").status_code == 404
    assert logged_in(site, client_for, owner).get("/transactions/no-such-payment").status_code == 404
    # The same public id asked on another site: that site's schema has no such payment.
    stranger = _old_member(gay_site, "Stranger")
    assert logged_in(gay_site, client_for, stranger).get(f"/transactions/{payment.public_id}").status_code == 404
    with on_site(gay_site):
        assert not Payment.objects.exists()
    assert (
        f"/transactions/{payment.public_id}"
        not in logged_in(site, client_for, other).get("/transactions").content.decode()
    )


# --- Refunds ---------------------------------------------------------------------------


def test_the_refund_button_shows_only_while_refundable(site, client_for):
    me = _old_member(site, "Refunder")
    fresh = _paid(site, me.user, credits=20, list_amount=1295)
    old = _paid(site, me.user, credits=20, list_amount=1295, paid_days_ago=site.refund_days + 1)
    client = logged_in(site, client_for, me)

    html = client.get(f"/transactions/{fresh.public_id}").content.decode()
    assert 'data-testid="refund-button"' in html
    assert f'href="/transactions/{fresh.public_id}/refund"' in html
    assert "20 unused credits can be refunded: £12.95" in html

    html = client.get(f"/transactions/{old.public_id}").content.decode()
    assert 'data-testid="refund-button"' not in html
    answer = client.get(f"/transactions/{old.public_id}/refund", follow=True)
    assert answer.redirect_chain[-1][0] == f"/transactions/{old.public_id}"
    assert "This purchase can no longer be refunded." in answer.content.decode()


def test_refund_of_unused_credits(site, client_for):
    me = _old_member(site, "Returner")
    payment = _paid(site, me.user, credits=20, list_amount=1295)
    client = logged_in(site, client_for, me)

    confirm = client.get(f"/transactions/{payment.public_id}/refund").content.decode()
    assert 'data-testid="refund-credits">20<' in confirm
    assert 'data-testid="refund-amount">£12.95<' in confirm
    assert 'name="csrfmiddlewaretoken"' in confirm
    with on_site(site):
        assert not Refund.objects.exists()  # asking to confirm changes nothing

    answer = client.post(f"/transactions/{payment.public_id}/refund", follow=True)
    html = answer.content.decode()
    assert answer.redirect_chain[-1][0] == f"/transactions/{payment.public_id}"
    assert "Your refund of £12.95 for 20 unused credits has been requested." in html
    assert 'data-testid="refund-button"' not in html
    assert 'data-testid="invoice-refunds"' in html
    with on_site(site):
        me.user.refresh_from_db()
        assert me.user.credits == 0
        assert Refund.objects.get().credits == 20
        assert CreditEntry.objects.filter(kind=EntryKind.REFUND).count() == 1

    # Again (a second tab, a double click): nothing more is refunded.
    answer = client.post(f"/transactions/{payment.public_id}/refund", follow=True)
    assert "There are no unused credits from this payment left to refund." in answer.content.decode()
    with on_site(site):
        assert Refund.objects.count() == 1


def test_partly_used_purchase_refunds_the_unused_part(site, client_for):
    me = _old_member(site, "Partial")
    payment = _paid(site, me.user, credits=20, list_amount=1295)
    with on_site(site):
        credits_spend(user=me.user, credits=5, kind=EntryKind.MESSAGE, reference="message:1")
    html = logged_in(site, client_for, me).get(f"/transactions/{payment.public_id}").content.decode()
    assert 'data-testid="refund-button"' in html
    assert "15 unused credits can be refunded" in html


def test_refund_needs_a_post_with_the_csrf_token(site, client_for):
    me = _old_member(site, "Csrf")
    payment = _paid(site, me.user, credits=20, list_amount=1295)
    client = logged_in(site, client_for, me)
    client.handler.enforce_csrf_checks = True
    assert client.post(f"/transactions/{payment.public_id}/refund").status_code == 403
    with on_site(site):
        assert not Refund.objects.exists()


def test_every_page_renders_in_french(site, client_for):
    me = _old_member(site, "Frenchie")
    payment = _paid(site, me.user, credits=20, list_amount=1295, discount=25)
    client = logged_in(site, client_for, me)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    for path in ("/premium", "/pricing", "/transactions", f"/transactions/{payment.public_id}",
                 f"/transactions/{payment.public_id}/refund", "/pages/return-policy"):  # fmt: skip
        answer = client.get(path)
        assert answer.status_code == 200, path
        assert '<html lang="fr">' in answer.content.decode()
    assert "9,71\xa0£" in client.get(f"/transactions/{payment.public_id}").content.decode()
