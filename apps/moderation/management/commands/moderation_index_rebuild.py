"""Repair the support queues' index from the sites' schemas."""

from django.core.management.base import BaseCommand, CommandError

from apps.moderation.index import index_rebuild
from apps.tenants.models import Site


class Command(BaseCommand):
    help = (
        "Rebuild the photo moderation and complaints queues' rows (public schema) from every "
        "site's photos and complaints, or from the sites named with --site (schema names)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--site", action="append", default=[], help="A site's schema name; repeatable.")

    def handle(self, *args, **options) -> None:
        sites = Site.objects.exclude(schema_name="public").order_by("pk")
        if options["site"]:
            sites = sites.filter(schema_name__in=options["site"])
            missing = set(options["site"]) - set(sites.values_list("schema_name", flat=True))
            if missing:
                raise CommandError(f"Unknown sites: {', '.join(sorted(missing))}")
        total: dict[str, int] = {}
        for site in sites.iterator():
            counts = index_rebuild(site)
            for key, value in counts.items():
                total[key] = total.get(key, 0) + value
            if options["verbosity"] > 1:
                self.stdout.write(f"{site.schema_name}: {counts}")
        summary = ", ".join(f"{key.replace('_', ' ')} {value}" for key, value in sorted(total.items()))
        self.stdout.write(f"Rebuilt the queues of {sites.count()} sites: {summary or 'nothing to do'}.")
