"""Every change made in the operators' admin lands in the audit trail with the object as
it was before and after, at the points where Django's admin writes its own log
(ModelAdmin.log_addition / log_change / log_deletions), so no admin class can forget it.

The support console's own actions (apps.support.actions) write richer rows themselves,
with the member and the reason the staff member gave."""

from __future__ import annotations

from django.contrib import admin
from django.core import serializers

from apps.common.encryption import encrypted_fields
from apps.support.audit import SECRET, audit_record

# Values never copied into the trail; a change to them is recorded as SECRET.
SECRET_FIELDS = frozenset({"password", "mollie_api_key", "push_private_key", "secret", "key"})
_BEFORE = "_audit_before"


def snapshot(obj) -> dict:
    """The object's fields (and many-to-many ids) as JSON, secrets masked."""
    fields = serializers.serialize("python", [obj])[0]["fields"]
    # Every provider key stored encrypted is a secret too, whatever its name.
    secret = SECRET_FIELDS | {field.name for field in encrypted_fields(type(obj))}
    return {name: (SECRET if name in secret and value else value) for name, value in fields.items()}


def _site_of(obj):
    from apps.tenants.models import Site

    if isinstance(obj, Site):
        return obj
    return getattr(obj, "site", None) if hasattr(obj, "site_id") else None


def _target(obj) -> str:
    return f"{obj._meta.label}:{obj.pk} {obj}"[:200]


class AuditedAdminMixin:
    """Records additions, changes and deletions of a ModelAdmin in the audit trail."""

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is not None and request.method == "POST":  # only a POST changes or deletes
            request.__dict__.setdefault(_BEFORE, {}).setdefault(_target_key(obj), snapshot(obj))
        return obj

    def log_addition(self, request, obj, message):
        entry = super().log_addition(request, obj, message)
        audit_record(
            actor=request.user,
            action=f"{obj._meta.label_lower}.add",
            site=_site_of(obj),
            target=_target(obj),
            after={**snapshot(obj), "_changes": message},
        )
        return entry

    def log_change(self, request, obj, message):
        entry = super().log_change(request, obj, message)
        before = getattr(request, _BEFORE, {}).get(_target_key(obj))
        audit_record(
            actor=request.user,
            action=f"{obj._meta.label_lower}.change",
            site=_site_of(obj),
            target=_target(obj),
            before=before,
            after={**snapshot(obj), "_changes": message},  # as saved, relations included
        )
        return entry

    def log_deletions(self, request, queryset):
        entries = super().log_deletions(request, queryset)
        for obj in queryset:
            audit_record(
                actor=request.user,
                action=f"{obj._meta.label_lower}.delete",
                site=_site_of(obj),
                target=_target(obj),
                before=snapshot(obj),
            )
        return entries


def _target_key(obj) -> str:
    return f"{obj._meta.label}:{obj.pk}"


def audit_every_model_admin(site: admin.AdminSite | None = None) -> None:
    """Puts AuditedAdminMixin in front of every registered ModelAdmin (called once the
    admin modules are loaded: apps.support.apps.SupportConfig.ready)."""
    site = site or admin.site
    for model, model_admin in list(site._registry.items()):
        cls = type(model_admin)
        if issubclass(cls, AuditedAdminMixin):
            continue
        audited = type(f"Audited{cls.__name__}", (AuditedAdminMixin, cls), {"__module__": cls.__module__})
        site._registry[model] = audited(model, site)
