"""Members, requests and purchases for the payments-core tests (the payments service and
the sandbox gateway). Everything runs through the real services and the sandbox; only
the outside world (a gateway that does not answer) is replaced, with monkeypatch."""

import uuid
from datetime import timedelta

from django.test import RequestFactory
from django.utils import timezone

from apps.accounts.models import User
from apps.credits.models import CreditEntry
from apps.credits.selectors import ledger_balance
from apps.payments.gateways.sandbox import sandbox_checkout_decide
from apps.payments.models import CreditPackage, Payment
from apps.payments.services import payment_start, payment_sync
from apps.profiles.tests.helpers_view import member
from conftest import on_site

# Members who signed up a month ago: no time bonus and no welcome discount, so prices
# are the list prices unless a test wants a discount.
LONG_AGO = timedelta(days=30)
GBP_PRICES = {20: 1295, 50: 2595, 120: 5195}
EUR_PRICES = {20: 1495, 50: 2995, 120: 5995}


def buyer(site, *, country: str = "GB", new: bool = False, **user_fields) -> User:
    """A member of `site` paying from `country`; `new` signed up just now (discounts)."""
    name = f"buyer{uuid.uuid4().hex[:8]}"
    fields = {"country": country, **user_fields}
    if not new:
        fields["date_joined"] = timezone.now() - LONG_AGO
    return member(site, name, user_fields=fields, country=country).user


def site_request(site, user, *, host: str = "localhost", path: str = "/api/payment.php"):
    request = RequestFactory().post(path, HTTP_HOST=host)
    request.site = site
    request.user = user
    return request


def package(site, credits: int = 50) -> CreditPackage:
    return CreditPackage.objects.get(site=site, credits=credits)


def start(site, user, *, credits: int = 50, method: str = "visa", discount_code: str = "") -> Payment:
    with on_site(site):
        return payment_start(
            request=site_request(site, user),
            user=user,
            package_id=package(site, credits).pk,
            method=method,
            discount_code=discount_code,
        )


def buy(site, user, *, credits: int = 50, method: str = "visa", action: str = "pay", **kwargs) -> Payment:
    """Start a payment, decide it on the sandbox checkout, and fetch its state (what the
    webhook or the return page does)."""
    payment = start(site, user, credits=credits, method=method, **kwargs)
    with on_site(site):
        sandbox_checkout_decide(provider_id=payment.provider_id, action=action)
        return payment_sync(payment=payment)


def fresh(user) -> User:
    return User.objects.get(pk=user.pk)


def ledger(user) -> list[tuple[str, int, int]]:
    """The member's ledger, oldest first: (kind, credits, owed)."""
    return list(CreditEntry.objects.filter(user=user).order_by("pk").values_list("kind", "credits", "owed"))


def assert_balanced(user) -> User:
    """The cached balance equals the ledger's sum and is never negative."""
    user = fresh(user)
    assert user.credits == ledger_balance(user) >= 0
    return user
