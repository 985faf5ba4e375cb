"""The demo sites a development machine serves (README)."""

from django.core.management.base import CommandError
from django.db import transaction

from apps.tenants.models import Site
from apps.tenants.services import company_get_or_create, public_site_ensure, site_create, site_defaults_ensure

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
        # The defaults of every new site: gifts and credit packages (a site created before
        # one of them existed gets it here).
        site_defaults_ensure(site)
        sites.append(site)
    return sites


def demo_sites_named(domain: str | None) -> list[tuple[str, Site]]:
    """(domain, site) for a command's `--site DOMAIN` (any site's domain), or for every
    demo site without it; a domain no site has is the command's error."""
    domains = [domain] if domain else [spec["domain"] for spec in DEMO_SITES]
    named = []
    for name in domains:
        site = Site.objects.filter(domains__domain=name).first()
        if site is None:
            raise CommandError(f"No site has the domain {name!r}.")
        named.append((name, site))
    return named
