"""The audit trail (public schema): every staff action that changes a member, money or a
site, append-only. PostgreSQL refuses UPDATE, DELETE and TRUNCATE on the table
(migration 0001's triggers), so not even an admin with database access through the
application can rewrite history."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.tenants.models import MemberDirectoryEntry


class AuditEntry(models.Model):
    created = models.DateTimeField(_("when"), auto_now_add=True, db_index=True)
    # The staff member as they were: ids and names are copied, never foreign keys, so
    # that deleting a staff user, a site or a member never touches the trail.
    actor_id = models.BigIntegerField(_("staff member id"), null=True, blank=True)
    actor = models.CharField(_("staff member"), max_length=150, db_index=True)
    site_id = models.BigIntegerField(_("site id"), null=True, blank=True, db_index=True)
    site_name = models.CharField(_("site"), max_length=100, blank=True)
    member_id = models.BigIntegerField(_("member id"), null=True, blank=True)
    action = models.CharField(_("action"), max_length=60, db_index=True)
    target = models.CharField(_("object"), max_length=200, blank=True)
    before = models.JSONField(_("before"), null=True, blank=True)
    after = models.JSONField(_("after"), null=True, blank=True)
    reason = models.TextField(_("reason"), blank=True)

    class Meta:
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit trail")
        ordering = ["-created", "-pk"]
        indexes = [models.Index(fields=["site_id", "member_id", "-created"], name="audit_member_idx")]
        permissions = [
            ("member_act", _("Can act on members (activation, profile, photos, password, erasure)")),
            ("money_act", _("Can grant or take credits, refund and block direct debit")),
        ]

    def __str__(self) -> str:
        return f"{self.created:%Y-%m-%d %H:%M} {self.actor}: {self.action}"


class Member(MemberDirectoryEntry):
    """A member of any site as support sees it: the directory entry is the way in, the
    member page reads and acts in the member's own site schema (apps.support.console)."""

    class Meta:
        proxy = True
        verbose_name = _("member")
        verbose_name_plural = _("members")
