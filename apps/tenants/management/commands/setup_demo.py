import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from apps.tenants.demo import DEMO_SITES, demo_sites_ensure


class Command(BaseCommand):
    help = "Create the demo sites and the operators' superuser once, and print how to reach them."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--port", default="8000")

    def handle(self, *args, **options) -> None:
        demo_sites_ensure()
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
