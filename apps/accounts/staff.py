"""Staff roles of the operators' admin as Django groups (public schema).

ROLES is the one place that says what each role may do, as "app_label.codename"
permission strings. After every migration of the public schema the groups are set to
exactly these permissions (roles_ensure, on post_migrate), so a fresh clone has them and
a change here reaches every installation at its next `migrate`. A permission of an app
that is not installed, or one no model defines, fails the system checks (staff.E001,
staff.E002) instead of being skipped."""

from __future__ import annotations

import secrets

from django.apps import apps as global_apps
from django.conf import settings
from django.core import checks
from django.db import DEFAULT_DB_ALIAS, connection, transaction
from django_tenants.utils import schema_context

OPERATORS = "operators"
SUPPORT = "support"
ROLE_NAMES = (OPERATORS, SUPPORT)


def _crud(*labels: str) -> list[str]:
    """add, change, delete and view of each "app_label.model"."""
    found = []
    for label in labels:
        app_label, model = label.split(".")
        found += [f"{app_label}.{action}_{model}" for action in ("add", "change", "delete", "view")]
    return found


def _view(*labels: str) -> list[str]:
    """view of each "app_label.model"."""
    return [f"{label.split('.')[0]}.view_{label.split('.')[1]}" for label in labels]


ROLES: dict[str, list[str]] = {
    # Sites and what they sell: settings, domains, companies, credit packages, gifts,
    # discount codes, minimum message costs, campaigns.
    OPERATORS: [
        *_crud(
            "tenants.site",
            "tenants.domain",
            "tenants.company",
            "payments.creditpackage",
            "payments.creditpackageprice",
            "tenants.gift",
            "payments.discountcode",
            "tenants.minimummessagecost",
            "tenants.campaign",
            # The operators' own pages of a site ({token} route) and the landers' videos.
            "landers.sitepage",
            "landers.landervideo",
            # Traffic networks with their deals and postback URLs (apps.conversions).
            "conversions.network",
            "conversions.postbackrule",
        ),
        # Each network's postbacks (change: send one again) and the revenue dashboard.
        *_view("conversions.postback"),
        "conversions.change_postback",
        "conversions.view_reports",
    ],
    # Members, moderation, complaints and money: the member directory and the support
    # console's actions (support.AuditEntry's custom permissions), and the trail.
    SUPPORT: [
        # The member page of the support console (apps.support.admin.MemberAdmin).
        *_view("support.member"),
        *_view("support.auditentry"),
        "support.member_act",
        "support.money_act",
        # The photo moderation and complaints queues: view to see them, change to decide.
        *_view("moderation.photoreview", "moderation.complaintcase"),
        "moderation.change_photoreview",
        "moderation.change_complaintcase",
        # The photo verification queue: view to see the selfies, change to decide.
        *_view("moderation.verificationreview"),
        "moderation.change_verificationreview",
    ],
}


def _defined_codenames(app_label: str) -> set[str]:
    codenames: set[str] = set()
    for model in global_apps.get_app_config(app_label).get_models():
        opts = model._meta
        codenames.update(f"{action}_{opts.model_name}" for action in opts.default_permissions)
        codenames.update(codename for codename, _name in opts.permissions)
    return codenames


@checks.register()
def roles_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Every permission of ROLES belongs to an installed app and is defined by a model."""
    errors: list[checks.CheckMessage] = []
    for role, permissions in ROLES.items():
        for permission in permissions:
            app_label, _dot, codename = permission.partition(".")
            try:
                defined = _defined_codenames(app_label)
            except LookupError:
                errors.append(
                    checks.Error(
                        f"The staff role {role!r} needs the permission {permission!r}, "
                        f"but no installed app has the label {app_label!r}.",
                        hint="Install the app, or change apps.accounts.staff.ROLES.",
                        id="staff.E001",
                    )
                )
                continue
            if codename not in defined:
                errors.append(
                    checks.Error(
                        f"The staff role {role!r} needs the permission {permission!r}, "
                        f"which no model of {app_label!r} defines.",
                        hint="Add it to a model's Meta.permissions, or change apps.accounts.staff.ROLES.",
                        id="staff.E002",
                    )
                )
    return errors


def roles_ensure(*, using: str = DEFAULT_DB_ALIAS) -> None:
    """Create the role groups in the public schema and give each exactly the
    permissions of ROLES. Idempotent."""
    from django.contrib.auth.management import create_permissions
    from django.contrib.auth.models import Group, Permission

    with schema_context(settings.PUBLIC_SCHEMA_NAME), transaction.atomic(using=using):
        for app_config in global_apps.get_app_configs():
            create_permissions(app_config, verbosity=0, using=using, apps=global_apps)
        for role, wanted in ROLES.items():
            group, _created = Group.objects.using(using).get_or_create(name=role)
            pairs = {tuple(permission.split(".", 1)) for permission in wanted}
            found = [
                permission
                for permission in Permission.objects.using(using).select_related("content_type")
                if (permission.content_type.app_label, permission.codename) in pairs
            ]
            missing = pairs - {(permission.content_type.app_label, permission.codename) for permission in found}
            if missing:
                names = ", ".join(sorted(".".join(pair) for pair in missing))
                raise RuntimeError(f"Permissions of the staff role {role!r} not found: {names}")
            group.permissions.set(found)


def roles_on_post_migrate(sender, using: str = DEFAULT_DB_ALIAS, **kwargs) -> None:
    """post_migrate: the roles live in the public schema only (the sites' schemas hold
    members, never staff)."""
    if connection.schema_name != settings.PUBLIC_SCHEMA_NAME:
        return
    roles_ensure(using=using)


def staff_password() -> str:
    """A generated password for a new staff member, shown once."""
    return secrets.token_urlsafe(15)


def staff_create(*, username: str, role: str, password: str, email: str = ""):
    """A staff member of `role` in the public schema (the operators' admin). The second
    factor is enrolled at the first login (apps.accounts.admin_login)."""
    from django.contrib.auth.models import Group

    from apps.accounts.models import User

    if role not in ROLE_NAMES:
        raise ValueError(f"unknown role {role!r}")
    with schema_context(settings.PUBLIC_SCHEMA_NAME), transaction.atomic():
        user = User(username=username, email=email, is_staff=True, is_active=True)
        user.set_password(password)
        user.full_clean(exclude=["password"])
        user.save()
        user.groups.add(Group.objects.get(name=role))
    return user
