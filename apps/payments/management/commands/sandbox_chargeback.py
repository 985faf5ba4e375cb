"""Simulate a chargeback on a sandbox payment: `sandbox_chargeback <provider_id> [amount]`
(amount in minor units, e.g. 1495; by default all that is not refunded or charged back
yet). Finds the payment on any site (or on --site <schema>), sends the webhook as the
sandbox does, and applies the new state at once (payment_sync), so it works without a
Celery worker too."""

from django.core.management.base import BaseCommand, CommandError
from django_tenants.utils import get_public_schema_name, tenant_context

from apps.payments.gateways.base import GatewayError
from apps.payments.gateways.sandbox import sandbox_chargeback, sandbox_payment_get
from apps.payments.services import payment_sync_by_provider_id
from apps.tenants.models import Site


class Command(BaseCommand):
    help = "Charge back (part of) a paid sandbox payment, as the member's bank would."

    def add_arguments(self, parser) -> None:
        parser.add_argument("provider_id", help='The sandbox payment id ("tr_sbx_…")')
        parser.add_argument("amount", nargs="?", type=int, help="Minor units (default: all that is left)")
        parser.add_argument("--site", help="The site's schema name (default: search every site)")

    def handle(self, *args, provider_id: str, amount: int | None, site: str | None, **options) -> None:
        sites = Site.objects.exclude(schema_name=get_public_schema_name()).order_by("pk")
        if site:
            sites = sites.filter(schema_name=site)
        for candidate in sites:
            with tenant_context(candidate):
                if sandbox_payment_get(provider_id) is None:
                    continue
                try:
                    row = sandbox_chargeback(provider_id=provider_id, amount=amount)
                except GatewayError as error:
                    raise CommandError(str(error)) from error
                payment = payment_sync_by_provider_id(gateway="sandbox", provider_id=provider_id)
                self.stdout.write(
                    f"{candidate.schema_name}: {provider_id} charged back {row.amount_charged_back / 100:.2f} "
                    f"{row.currency} in all"
                    + (
                        f"; {payment.credits_charged_back} credits taken back"
                        if payment is not None
                        else " (no payment of the site has this id)"
                    )
                )
                return
        raise CommandError(f"No sandbox payment {provider_id}.")
