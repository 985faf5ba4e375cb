"""manage.py staff_second_step_reset <username>

For a staff member who lost the phone with their authenticator when no other operator
can reset it in the admin: deletes their devices and prints a one-time set-up link
(valid 24 h). Whoever runs it on the server is trusted with that; the audit trail
records it (by "system")."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django_tenants.utils import schema_context

from apps.accounts.models import User
from apps.accounts.services.staff_enrolment import (
    CAUSE_RESET,
    admin_base_url,
    enrolment_path,
    second_step_restart,
)


class Command(BaseCommand):
    help = "Reset a staff member's second step and print a one-time link to set it up again."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")

    def handle(self, *args, username: str, **options) -> None:
        with schema_context(settings.PUBLIC_SCHEMA_NAME):
            user = User.objects.filter(username=username, is_staff=True, is_active=True).first()
            if user is None:
                raise CommandError(f"No active staff member named {username!r}.")
            token = second_step_restart(user=user, by=None, cause=CAUSE_RESET)
        self.stdout.write(f"Second step of {user.username!r} reset; their devices are deleted.")
        self.stdout.write(
            f"Set-up link (shown once, works once, valid 24 h): {admin_base_url()}{enrolment_path(token)}"
        )
