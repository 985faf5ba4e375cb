import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_tenants.utils import tenant_context

from apps.accounts.services.staff_enrolment import CAUSE_DEMO, enrolment_link_make, enrolment_path
from apps.landers.models import LanderVideo
from apps.landers.video import NoPhotos, lander_video_make
from apps.profiles.models import Profile
from apps.profiles.services.demo import demo_profiles_seed
from apps.tenants.demo import DEMO_SITES, demo_sites_ensure

# Why here: the demo composes sites (tenants), their profiles, lander video and the
# operator's sign-in (accounts); support stands above all of them.


class Command(BaseCommand):
    help = "Create the demo sites and the operators' superuser once, and print how to reach them."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--port", default="8000")

    def handle(self, *args, **options) -> None:
        sites = demo_sites_ensure()
        # Demo profiles once: a site that has any profile is left alone, so a second
        # `make run` costs one query per site.
        for site in sites:
            with tenant_context(site):
                empty = not Profile.objects.exists()
            if empty:
                made = demo_profiles_seed(site=site)
                self.stdout.write(f"  {site.name}: {made} demo profiles")
            # The video landers' loop, made once from the demo photos (apps.landers.video).
            if not LanderVideo.objects.filter(site=site).exists():
                try:
                    video = lander_video_make(site=site)
                    self.stdout.write(f"  {site.name}: lander video ({video.seconds:g} s)")
                except NoPhotos:
                    pass
        credentials = Path(settings.BASE_DIR) / ".data" / "admin-credentials.txt"
        User = get_user_model()
        if not User.objects.filter(username="admin").exists():
            password = secrets.token_urlsafe(12)
            User.objects.create_superuser("admin", "admin@localhost", password)
            credentials.parent.mkdir(parents=True, exist_ok=True)
            credentials.write_text(f"admin {password}\n")
        username, password = ([*credentials.read_text().split(), "admin", "(see .data/admin-credentials.txt)"])[:2]
        port = options["port"]
        for spec in DEMO_SITES:
            self.stdout.write(f"  {spec['name']:<10} http://{spec['domain']}:{port}/")
        self.stdout.write(f"  Operators  http://admin.localhost:{port}/admin/  user {username}  password {password}")
        admin = User.objects.filter(username=username, is_staff=True).first()
        if admin is not None and not _second_step_set_up(admin):
            # The password alone sets up no authenticator: until the demo operator has
            # one, every start prints a fresh one-time set-up link (the last one works).
            token = enrolment_link_make(user=admin, by=None, cause=CAUSE_DEMO)
            self.stdout.write(f"             first open http://admin.localhost:{port}{enrolment_path(token)}")
            self.stdout.write("             (once, within 24 h) to set up an authenticator app for the code")
        else:
            self.stdout.write("             (then a code from the authenticator app)")


def _second_step_set_up(user) -> bool:
    return TOTPDevice.objects.filter(user=user, confirmed=True).exists()
