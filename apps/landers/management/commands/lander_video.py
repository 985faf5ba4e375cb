import time

from django.core.management.base import BaseCommand, CommandError

from apps.landers.video import NoPhotos, lander_video_make
from apps.tenants.demo import demo_sites_named


class Command(BaseCommand):
    help = "Make the video landers' video of the demo sites (or --site DOMAIN) from the site's approved photos."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--site", metavar="DOMAIN", help="only this site (any site's domain)")

    def handle(self, *args, **options) -> None:
        for domain, site in demo_sites_named(options["site"]):
            started = time.perf_counter()
            try:
                video = lander_video_make(site=site)
            except NoPhotos as error:
                raise CommandError(f"{domain} has no approved photos (seed_demo makes some).") from error
            size = (video.webm.size + video.mp4.size) // 1024
            self.stdout.write(
                f"  {domain}: {video.seconds:g} s video, {size} KB, in {time.perf_counter() - started:.1f} s"
            )
