"""The public-schema member directory support searches across sites."""

from django.db import connection

from apps.accounts.models import User
from apps.tenants.models import MemberDirectoryEntry


def directory_sync(*, user: User) -> None:
    """Write the member's current e-mail, name and status. Idempotent."""
    site = connection.tenant
    MemberDirectoryEntry.objects.update_or_create(
        site_id=site.pk,
        member_id=user.pk,
        defaults={"email": user.email, "name": user.username, "status": user.status},
    )


def directory_remove(*, site_id: int, member_id: int) -> None:
    MemberDirectoryEntry.objects.filter(site_id=site_id, member_id=member_id).delete()
