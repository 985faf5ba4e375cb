"""Reads about what a member can buy: the payment country and currency, the site's
packages with their prices, and prices after a discount."""

from dataclasses import dataclass

from django.http import HttpRequest

from apps.common.locale import request_country
from apps.payments.methods import methods_for_country
from apps.payments.models import CreditPackage
from apps.tenants.models import Site
from apps.tenants.selectors import selected_country

# The currency a payment country pays in, where a package has a price in it; EUR otherwise.
COUNTRY_CURRENCIES = {
    "GB": "GBP",
    "CH": "CHF",
    "DK": "DKK",
    "SE": "SEK",
    "NO": "NOK",
    "PL": "PLN",
    "US": "USD",
    "CA": "CAD",
    "AU": "AUD",
    "NZ": "NZD",
}
DEFAULT_CURRENCY = "EUR"


def payment_country(*, request: HttpRequest, user=None) -> str:
    """Spec §3 "payment country": the member's profile country when the site serves it,
    else the country the request comes from, else the site's first country."""
    site = request.site
    own = user.country.code if user is not None and getattr(user, "country", None) else None
    if own and own in site.country_codes:
        return own
    return selected_country(site, request_country(request))


def payment_methods(*, country: str) -> tuple[str, ...]:
    return methods_for_country(country)


def currency_for(country: str) -> str:
    return COUNTRY_CURRENCIES.get(country, DEFAULT_CURRENCY)


def discounted(amount: int, percentage: int) -> int:
    """A price after `percentage` off, in minor units, rounded to the nearest unit."""
    if not percentage:
        return amount
    return amount - (amount * percentage + 50) // 100


@dataclass(frozen=True)
class OfferedPackage:
    id: int
    credits: int
    highlighted: bool
    currency: str
    list_amount: int  # before the discount
    amount: int  # after the discount
    discount_percentage: int

    @property
    def price_per_credit(self) -> int:
        return self.amount // self.credits if self.credits else 0


def packages_offered(*, site: Site, country: str, discount_percentage: int = 0) -> list[OfferedPackage]:
    """The site's active packages priced in the country's currency (EUR where a package
    has no price in it), with the discount applied. One query."""
    wanted = currency_for(country)
    offered = []
    packages = CreditPackage.objects.filter(site=site, is_active=True).prefetch_related("prices")
    for package in packages:
        prices = {price.currency: price.amount for price in package.prices.all()}
        currency = wanted if wanted in prices else DEFAULT_CURRENCY
        if currency not in prices:
            continue
        offered.append(
            OfferedPackage(
                id=package.pk,
                credits=package.credits,
                highlighted=package.highlighted,
                currency=currency,
                list_amount=prices[currency],
                amount=discounted(prices[currency], discount_percentage),
                discount_percentage=discount_percentage,
            )
        )
    return offered


def package_offered(
    *, site: Site, package_id: int, country: str, discount_percentage: int = 0
) -> OfferedPackage | None:
    return next(
        (
            package
            for package in packages_offered(site=site, country=country, discount_percentage=discount_percentage)
            if package.id == package_id
        ),
        None,
    )
