import time

from django.core.management.base import BaseCommand, CommandError

from apps.landers.video import NoPhotos, lander_video_make
from apps.tenants.demo import DEMO_SITES
from apps.tenants.models import Site


class Command(BaseCommand):
    help = "Make the video landers' video of the demo sites (or --site DOMAIN) from the site's approved photos."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--site", metavar="DOMAIN", help="only this site (any site's domain)")

    def handle(self, *args, **options) -> None:
        domains = [options["site"]] if options["site"] else [spec["domain"] for spec in DEMO_SITES]
        for domain in domains:
            site = Site.objects.filter(domains__domain=domain).first()
            if site is None:
                raise CommandError(f"No site has the domain {domain!r}.")
            started = time.perf_counter()
            try:
                video = lander_video_make(site=site)
            except NoPhotos as error:
                raise CommandError(f"{domain} has no approved photos (seed_demo makes some).") from error
            size = (video.webm.size + video.mp4.size) // 1024
            self.stdout.write(
                f"  {domain}: {video.seconds:g} s video, {size} KB, in {time.perf_counter() - started:.1f} s"
            )
