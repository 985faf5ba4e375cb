"""The demo sites a development machine serves (README)."""

from django.db import transaction

from apps.tenants.models import Gift, Site
from apps.tenants.services import (
    DEFAULT_GIFTS,
    DEFAULT_PACKAGES,
    company_get_or_create,
    packages_default_ensure,
    public_site_ensure,
    site_create,
)

DEMO_COMPANY = {
    "name": "Demo Dating B.V.",
    "address": "Herengracht 100",
    "kvk": "12345678",
    "city": "Amsterdam",
    "country": "NL",
    "tradenames": ["Demo Dating"],
    "vat_numbers": ["NL123456789B01"],
    "support_phone": "+31 20 123 4567",
    "delete_discount": 50,
}

DEMO_SITES = [
    {
        "domain": "localhost",
        "name": "Heartline",
        "niche": 1,
        "languages": ["en", "fr"],
        "domain_language": "en",
        "countries": ["GB", "US", "IE", "FR", "BE", "CA"],
        "index_title": "Heartline: meet singles near you",
        "description": "Chat, flirt and meet people near you.",
        "support_email": "support@localhost",
        "signup_credits": 10,
        "theme_primary": "#5566e8",
        "theme_secondary": "#b8a4e3",
    },
    {
        "domain": "gay.localhost",
        "name": "Manline",
        "niche": 7,
        "languages": ["en", "nl", "de"],
        "domain_language": "en",
        "countries": ["NL", "DE", "GB"],
        "index_title": "Manline: gay dating",
        "description": "Men meeting men: chat, flirt and date.",
        "support_email": "support@gay.localhost",
        "signup_credits": 10,
        "theme_primary": "#5a67d8",
        "theme_secondary": "#c3a6f0",
    },
]


# Credit packages of every demo site: the defaults of every new site.
DEMO_PACKAGES = DEFAULT_PACKAGES


def demo_packages_ensure(site: Site) -> None:
    packages_default_ensure(site)


# Gifts of every demo site: (name, emoji); new sites get them too (site_create).
DEMO_GIFTS = DEFAULT_GIFTS


def demo_gifts_ensure(site: Site) -> None:
    if Gift.objects.filter(site=site).exists():
        return
    Gift.objects.bulk_create(
        Gift(site=site, name=name, emoji=emoji, position=position) for position, (name, emoji) in enumerate(DEMO_GIFTS)
    )


@transaction.atomic
def demo_sites_ensure(*, admin_domain: str = "admin.localhost") -> list[Site]:
    """Create the public row and the demo sites if they are missing. Idempotent."""
    public_site_ensure(domain=admin_domain)
    company = company_get_or_create(**DEMO_COMPANY)
    sites = []
    for spec in DEMO_SITES:
        spec = dict(spec)
        domain = spec.pop("domain")
        site = Site.objects.filter(domains__domain=domain).first()
        if site is None:
            site = site_create(domain=domain, company=company, **spec)
        demo_packages_ensure(site)
        demo_gifts_ensure(site)
        sites.append(site)
    return sites
