"""Deleting a user touches only the tables of the user's own schema.

The accounts table exists in every schema: members in the sites' schemas, staff in the
public one. Models that point at a user live either in the public schema only (the
admin's log, staff's TOTP devices) or in the sites' schemas only (profiles, payments...).
Django's deletion collects every model related to the user, and django-tenants' search
path ("site, public") finds the public tables from a site's schema: erasing member 5 of a
site would also delete the admin log and the second factor of staff user 5, and deleting
a staff user would query sites' tables that the public schema lacks.

user_relations_per_schema() wraps the on_delete rule of each relation to the user
model so that it applies only in the schemas where the related model's table exists;
elsewhere the relation is skipped without a query."""

from __future__ import annotations

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.serializer import BaseSerializer, serializer_factory
from django.db.migrations.writer import MigrationWriter
from django.db.models import DO_NOTHING
from django_tenants.routers import TenantSyncRouter


def _in(app_label: str, apps_list) -> bool:
    return TenantSyncRouter().app_in_list(app_label, apps_list)


def _schema_kind(app_label: str) -> str:
    shared, tenant = _in(app_label, settings.SHARED_APPS), _in(app_label, settings.TENANT_APPS)
    if shared and tenant:
        return "both"
    return "public" if shared else "sites"


def _applies_here(kind: str) -> bool:
    if kind == "both":
        return True
    on_public = connection.schema_name == settings.PUBLIC_SCHEMA_NAME
    return on_public if kind == "public" else not on_public


class PerSchemaRule:
    """An on_delete rule applied only in the schemas where the related table exists.
    Equal to the rule it wraps, and written as that rule in migrations: the database
    schema does not change."""

    lazy_sub_objs = True  # no query for the related rows where their table is absent

    def __init__(self, rule, kind: str) -> None:
        self.rule = rule
        self.kind = kind

    def __call__(self, collector, field, sub_objs, using) -> None:
        if _applies_here(self.kind):
            self.rule(collector, field, sub_objs, using)

    def __eq__(self, other) -> bool:
        if isinstance(other, PerSchemaRule):
            return other.rule is self.rule
        return other is self.rule

    def __hash__(self) -> int:
        return hash(self.rule)

    def __repr__(self) -> str:
        return f"PerSchemaRule({getattr(self.rule, '__name__', self.rule)!r}, {self.kind!r})"


class PerSchemaRuleSerializer(BaseSerializer):
    def serialize(self):
        return serializer_factory(self.value.rule).serialize()


def user_relations_per_schema() -> list[str]:
    """Wrap the on_delete rules of the relations to the user model whose model lives in
    one kind of schema only. Idempotent; returns the relations wrapped ("app.Model.field")."""
    user_model = get_user_model()
    MigrationWriter.register_serializer(PerSchemaRule, PerSchemaRuleSerializer)
    wrapped = []
    for model in apps.get_models(include_auto_created=True):
        kind = _schema_kind(model._meta.app_label)
        if kind == "both":
            continue
        for field in model._meta.concrete_fields:
            remote = field.remote_field
            if remote is None or remote.model is not user_model or not hasattr(remote, "on_delete"):
                continue
            if remote.on_delete is DO_NOTHING or isinstance(remote.on_delete, PerSchemaRule):
                continue
            remote.on_delete = PerSchemaRule(remote.on_delete, kind)
            wrapped.append(f"{model._meta.label}.{field.name}")
    return wrapped
