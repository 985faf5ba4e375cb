import time

from django.core.management.base import BaseCommand, CommandError

from apps.profiles.services.demo import DEFAULT_COUNT, demo_profiles_seed
from apps.tenants.demo import demo_sites_named


class Command(BaseCommand):
    help = (
        "Fill the demo sites (or --site DOMAIN) with demo profiles and photos. Deterministic per site; "
        "a site that already has demo profiles is skipped unless --reset."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--site", metavar="DOMAIN", help="only this site (any site's domain)")
        parser.add_argument(
            "--count", type=int, default=DEFAULT_COUNT, help=f"profiles per site (default {DEFAULT_COUNT})"
        )
        parser.add_argument("--reset", action="store_true", help="delete the site's demo profiles first")
        parser.add_argument("--seed", type=int, help="random seed instead of the site's own fixed one")

    def handle(self, *args, **options) -> None:
        if options["count"] < 0:
            raise CommandError("--count must be 0 or more")
        for domain, site in demo_sites_named(options["site"]):
            started = time.perf_counter()
            made = demo_profiles_seed(site=site, count=options["count"], reset=options["reset"], seed=options["seed"])
            if made:
                self.stdout.write(f"  {domain}: {made} demo profiles in {time.perf_counter() - started:.1f} s")
            else:
                self.stdout.write(f"  {domain}: has demo profiles already (--reset to make them again)")
