"""Writes for sites: the template schema, creating sites and their domains."""

from collections.abc import Callable

from django.conf import settings
from django.core.management import call_command
from django.db import connection, transaction
from django.utils.translation import gettext_noop
from django_tenants.utils import schema_exists

from apps.tenants.cloning import schema_template_refresh
from apps.tenants.middleware import site_cache_clear
from apps.tenants.models import Company, Domain, Gift, Site

_SCHEMA_PREFIX = "site_"

# The gift catalogue every new site starts with: (name, emoji). The operators change
# it per site in the admin (tenants.Gift). The names are stored in English and shown in
# the reader's language (apps.chat.selectors.gift_name); each has a picture
# (apps.tenants.constants.GIFT_PICTURES), so no device needs an emoji font.
DEFAULT_GIFTS = [
    (gettext_noop("Rose"), "🌹"),
    (gettext_noop("Heart"), "❤️"),
    (gettext_noop("Kiss"), "💋"),
    (gettext_noop("Champagne"), "🍾"),
    (gettext_noop("Chocolate"), "🍫"),
    (gettext_noop("Teddy bear"), "🧸"),
    (gettext_noop("Diamond"), "💎"),
    (gettext_noop("Coffee"), "☕"),
]


def template_schema_migrate(*, verbosity: int = 0) -> None:
    """Create the template schema if needed, bring it to the latest migrations and
    capture its DDL for cloning if it changed (apps.tenants.cloning).

    New sites are copies of it, so it must be migrated before any site is created;
    `manage.py migrate_all` does that first."""
    name = settings.TENANT_BASE_SCHEMA
    if not schema_exists(name):
        with connection.cursor() as cursor:
            cursor.execute(f'CREATE SCHEMA "{name}"')
    call_command("migrate_schemas", schema_name=name, tenant=True, interactive=False, verbosity=verbosity)
    connection.set_schema_to_public()
    schema_template_refresh(name)


def schema_name_for(text: str) -> str:
    """A free schema name derived from a domain or a site name."""
    cleaned = "".join(ch if ch.isascii() and ch.isalnum() else "_" for ch in text.lower()).strip("_") or "site"
    base = (_SCHEMA_PREFIX + cleaned)[:55]
    name, counter = base, 1
    while Site.objects.filter(schema_name=name).exists() or schema_exists(name):
        counter += 1
        name = f"{base}_{counter}"
    return name


@transaction.atomic
def site_create(*, name: str, domain: str, **fields) -> Site:
    """Create a site with its primary domain. Its schema is an exact copy of the
    template schema, made in this transaction (Site.create_schema)."""
    site = Site(name=name, schema_name=fields.pop("schema_name", None) or schema_name_for(domain), **fields)
    site.full_clean()
    site.save(verbosity=0)
    Domain.objects.create(domain=domain, tenant=site, is_primary=True)
    site_defaults_ensure(site)
    transaction.on_commit(site_cache_clear)
    return site


def gifts_default_ensure(site: Site) -> int:
    """Give a site without gifts the default catalogue (DEFAULT_GIFTS); a site that has
    any gift keeps its own. Returns the number of gifts added."""
    if Gift.objects.filter(site=site).exists():
        return 0
    gifts = Gift.objects.bulk_create(
        Gift(site=site, name=name, emoji=emoji, position=position)
        for position, (name, emoji) in enumerate(DEFAULT_GIFTS)
    )
    return len(gifts)


# What a new site starts with beyond its gifts, from the apps that own it: each registers
# a function of the site from its AppConfig.ready (apps.payments: the default credit
# packages), so creating a site imports none of them.
SITE_DEFAULTS: list[Callable[[Site], object]] = []


def site_defaults_register(ensure: Callable[[Site], object]) -> None:
    """Add a function that gives a site without any its defaults. Idempotent."""
    if ensure not in SITE_DEFAULTS:
        SITE_DEFAULTS.append(ensure)


def site_defaults_ensure(site: Site) -> None:
    """Give a new site the default gifts and what the apps registered (SITE_DEFAULTS);
    what the site already has, it keeps."""
    gifts_default_ensure(site)
    for ensure in SITE_DEFAULTS:
        ensure(site)


def public_site_ensure(*, domain: str) -> Site:
    """The public schema's own row: the operators' admin is served on its domain."""
    site = Site.objects.filter(schema_name=settings.PUBLIC_SCHEMA_NAME).first()
    if site is None:
        site = Site(schema_name=settings.PUBLIC_SCHEMA_NAME, name="Operators", enable_site_entry_popup="no")
        site.save()
    Domain.objects.get_or_create(domain=domain, defaults={"tenant": site, "is_primary": True})
    return site


def company_get_or_create(*, name: str, **fields) -> Company:
    company, _created = Company.objects.get_or_create(name=name, defaults=fields)
    return company
