"""Writes for what a site sells: the credit packages a new site starts with."""

from apps.payments.models import CreditPackage, CreditPackagePrice
from apps.tenants.models import Site

# Credit packages a new site starts with (the operators change them in the admin):
# (credits, {currency: minor units}, highlighted).
DEFAULT_PACKAGES = [
    (20, {"EUR": 1495, "GBP": 1295, "USD": 1595}, False),
    (50, {"EUR": 2995, "GBP": 2595, "USD": 3295}, True),
    (120, {"EUR": 5995, "GBP": 5195, "USD": 6495}, False),
]


def packages_default_ensure(site: Site) -> int:
    """Give a site without credit packages the default ones (DEFAULT_PACKAGES); a site
    that has any keeps its own. Returns the number of packages added."""
    if CreditPackage.objects.filter(site=site).exists():
        return 0
    for position, (credits, prices, highlighted) in enumerate(DEFAULT_PACKAGES):
        package = CreditPackage.objects.create(site=site, credits=credits, highlighted=highlighted, position=position)
        CreditPackagePrice.objects.bulk_create(
            CreditPackagePrice(package=package, currency=currency, amount=amount) for currency, amount in prices.items()
        )
    return len(DEFAULT_PACKAGES)
