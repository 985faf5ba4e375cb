"""manage.py staff_create --role operators|support <username> [--email ...] [--password-stdin]

A staff member of the operators' admin (public schema) in the group of the role. The
password is generated and printed once, or read from standard input. So is a one-time
link (valid 24 h) with which the staff member sets up the second step (TOTP) before the
first login: the password alone sets up nothing (apps.accounts.services.staff_enrolment).
Hand the password and the link over separately."""

import sys

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django_tenants.utils import schema_context

from apps.accounts.models import User
from apps.accounts.services.staff_enrolment import (
    CAUSE_CREATED,
    admin_base_url,
    enrolment_link_make,
    enrolment_path,
)
from apps.accounts.staff import ROLE_NAMES, staff_create, staff_password


class Command(BaseCommand):
    help = "Create a staff member of the operators' admin with a role (operators or support)."
    stealth_options = ("stdin",)

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument("--role", required=True, choices=ROLE_NAMES)
        parser.add_argument("--email", default="")
        parser.add_argument(
            "--password-stdin", action="store_true", help="Read the password from standard input instead of making one."
        )

    def handle(self, *args, username: str, role: str, email: str, password_stdin: bool, **options) -> None:
        stdin = options.get("stdin") or sys.stdin
        with schema_context(settings.PUBLIC_SCHEMA_NAME):
            if User.objects.filter(username__iexact=username).exists():
                raise CommandError(f"A user named {username!r} already exists.")
            candidate = User(username=username, email=email, is_staff=True)
            password = stdin.readline().rstrip("\n") if password_stdin else staff_password()
            try:
                validate_password(password, candidate)
            except ValidationError as error:
                raise CommandError("The password is not accepted: " + " ".join(error.messages)) from error
            try:
                user = staff_create(username=username, role=role, password=password, email=email)
            except ValidationError as error:
                raise CommandError(" ".join(error.messages)) from error
            token = enrolment_link_make(user=user, by=None, cause=CAUSE_CREATED)
        self.stdout.write(f"Staff member {user.username!r} ({role}) created.")
        if not password_stdin:
            self.stdout.write(f"Password (shown once): {password}")
        self.stdout.write(
            f"Set-up link (shown once, works once, valid 24 h): {admin_base_url()}{enrolment_path(token)}"
        )
        self.stdout.write("They open the link, log in with the password and set up an authenticator app (second step).")
