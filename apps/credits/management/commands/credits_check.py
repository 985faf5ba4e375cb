"""Compare every member's cached balance (User.credits) with the sum of the ledger, on
every site or one (--site <schema>); --fix sets the cached balances to the ledger's sums.

Exits with an error when mismatches remain (not fixed), so a periodic run can alert."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db.models import F, IntegerField, OuterRef, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django_tenants.utils import tenant_context

from apps.credits.models import CreditEntry
from apps.credits.services import credits_rebuild
from apps.tenants.models import Site


def balance_mismatches():
    """Members of the current site whose cached balance differs from the ledger's sum,
    each annotated with `ledger`. One query."""
    ledger = (
        CreditEntry.objects.filter(user_id=OuterRef("pk"))
        .order_by()
        .values("user_id")
        .annotate(total=Sum("credits"))
        .values("total")
    )
    return (
        get_user_model()
        .objects.annotate(ledger=Coalesce(Subquery(ledger, output_field=IntegerField()), Value(0)))
        .exclude(credits=F("ledger"))
        .only("pk", "credits")
        .order_by("pk")
    )


class Command(BaseCommand):
    help = "Compare cached credit balances with the ledger; --fix rebuilds the ones that differ."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--site", metavar="SCHEMA", help="Only this site (its schema name).")
        parser.add_argument("--fix", action="store_true", help="Set the cached balances to the ledger's sums.")

    def handle(self, *args, site: str | None = None, fix: bool = False, **options) -> None:
        sites = Site.objects.exclude(schema_name=settings.PUBLIC_SCHEMA_NAME).order_by("schema_name")
        if site:
            sites = sites.filter(schema_name=site)
            if not sites.exists():
                raise CommandError(f"No site with the schema {site!r}.")
        found = fixed = 0
        for tenant in sites:
            with tenant_context(tenant):
                for user in balance_mismatches():
                    found += 1
                    line = f"{tenant.schema_name}: member {user.pk} cached {user.credits}, ledger {user.ledger}"
                    if fix:
                        before, total = credits_rebuild(user=user)
                        fixed += 1
                        line += f" -> rebuilt ({before} -> {total})"
                    self.stdout.write(line)
        checked = ", ".join(tenant.schema_name for tenant in sites) or "none"
        if not found:
            self.stdout.write(self.style.SUCCESS(f"All balances match the ledger (sites: {checked})."))
        elif fix:
            self.stdout.write(self.style.SUCCESS(f"Rebuilt {fixed} balance(s) from the ledger."))
        else:
            raise CommandError(f"{found} balance(s) differ from the ledger; run with --fix to rebuild them.")
