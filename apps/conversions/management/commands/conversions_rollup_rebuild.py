from django.core.management.base import BaseCommand

from apps.conversions.rollups import rollups_rebuild_days


class Command(BaseCommand):
    help = "Recount the revenue rollups of the last days from every site's own rows (visits are kept)."

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=2, help="days back from today (default 2)")

    def handle(self, *args, days: int, **options):
        if days < 1:
            self.stderr.write("--days must be at least 1")
            return
        written = rollups_rebuild_days(days=days)
        self.stdout.write(f"{written} rollup rows written")
