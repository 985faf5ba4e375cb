"""A new site's schema is an exact copy of the template (apps.tenants.cloning).

The session setup (conftest.django_db_setup) already made the two demo sites this
way: template_schema_migrate() captured the template, demo_sites_ensure() cloned it."""

from unittest import mock

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import IntegrityError, connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client, override_settings
from django_tenants.utils import schema_exists

from apps.tenants import cloning
from apps.tenants.cloning import (
    SchemaTemplate,
    ddl_statements,
    schema_clone,
    schema_signature,
    signature_differences,
    template_ddl,
    template_fingerprint,
)
from apps.tenants.models import Site
from apps.tenants.services import site_create, template_schema_migrate


def _assert_same_as_template(schema: str, template: str) -> None:
    expected, actual = schema_signature(template), schema_signature(schema)
    assert signature_differences(expected, actual) == []
    assert actual == expected


def test_a_new_site_is_an_exact_copy_of_the_template(db, settings):
    # Given a template that gained a row after it was captured
    template = settings.TENANT_BASE_SCHEMA
    with connection.cursor() as cursor:
        cursor.execute(f'INSERT INTO "{template}".auth_group (name) VALUES (%s)', ["starting group"])
    # When a site is created
    site = site_create(name="Exact copy", domain="exact.localhost")
    # Then its schema has the template's columns, indexes, constraints (Django's names),
    # sequences (types and positions) and rows
    signature = schema_signature(site.schema_name)
    _assert_same_as_template(site.schema_name, template)
    assert ("account_emailaddress_user_id_email_987c8728_uniq", "account_emailaddress") in {
        row[:2] for row in signature["constraints"]
    }
    assert ("account_emailaddress_id_seq", "integer") in {row[:2] for row in signature["sequences"]}
    assert ("auth_group", 1) in signature["rows"]


def test_the_demo_sites_made_at_setup_are_exact_copies(site, gay_site, settings):
    # Other tests add (and roll back) members on the demo sites, but sequences are not
    # transactional: their positions are left out here.
    def without_positions(signature: dict) -> dict:
        return {**signature, "sequences": [row[:-1] for row in signature["sequences"]]}

    expected = without_positions(schema_signature(settings.TENANT_BASE_SCHEMA))
    for each in (site, gay_site):
        actual = without_positions(schema_signature(each.schema_name))
        assert signature_differences(expected, actual) == []


def test_a_cloned_site_has_no_migration_left_to_apply(db):
    site = site_create(name="Migrated", domain="migrated.localhost")
    # the copied django_migrations rows say every migration is applied (--check exits
    # with status 1 if anything is left)
    call_command(
        "migrate_schemas", schema_name=site.schema_name, tenant=True, check_unapplied=True, interactive=False,
        verbosity=0,
    )  # fmt: skip
    connection.set_tenant(site)
    executor = MigrationExecutor(connection)
    assert executor.migration_plan(executor.loader.graph.leaf_nodes()) == []
    # (the check does notice a migration that is not recorded)
    connection.set_schema_to_public()
    with connection.cursor() as cursor:
        # the newest recorded migration: nothing recorded depends on it
        cursor.execute(
            f'DELETE FROM "{site.schema_name}".django_migrations '
            f'WHERE id = (SELECT max(id) FROM "{site.schema_name}".django_migrations)'
        )
    with pytest.raises(SystemExit):
        call_command(
            "migrate_schemas", schema_name=site.schema_name, tenant=True, check_unapplied=True, interactive=False,
            verbosity=0,
        )  # fmt: skip


def test_a_new_site_serves_its_landing_page_at_once(db):
    site_create(name="Instant Dating", domain="instant.localhost")
    response = Client(HTTP_HOST="instant.localhost").get("/")
    assert response.status_code == 200
    assert "Instant Dating" in response.content.decode()


def test_a_new_site_does_not_replay_migrations(db):
    with mock.patch("django_tenants.models.call_command") as tenants_command:
        site_create(name="No replay", domain="no-replay.localhost")
    tenants_command.assert_not_called()


def test_a_missing_capture_is_taken_at_the_next_site(db, settings):
    # Given no stored capture (as right after a deploy that did not migrate the template)
    SchemaTemplate.objects.all().delete()
    # When a site is created
    site = site_create(name="Recaptured", domain="recaptured.localhost")
    # Then the template was captured under its current fingerprint, and copied
    snapshot = SchemaTemplate.objects.get()
    assert snapshot.fingerprint == template_fingerprint()
    assert "auth_permission" in snapshot.row_tables
    assert snapshot.sequences["auth_permission_id_seq"] > 0
    _assert_same_as_template(site.schema_name, settings.TENANT_BASE_SCHEMA)


def test_migrating_an_unchanged_template_keeps_its_capture(db):
    before = SchemaTemplate.objects.get()
    with mock.patch.object(cloning, "template_ddl_dump", side_effect=AssertionError("captured again")):
        template_schema_migrate()
    assert list(SchemaTemplate.objects.all()) == [before]


def test_a_changed_template_is_captured_again(db, settings):
    # Given a template with one more applied migration than at its capture
    before = SchemaTemplate.objects.get()
    template = settings.TENANT_BASE_SCHEMA
    with connection.cursor() as cursor:
        cursor.execute(
            f'INSERT INTO "{template}".django_migrations (app, name, applied) VALUES (%s, %s, now())',
            ["pages", "9999_recapture_test"],
        )
    # When the template is migrated
    template_schema_migrate()
    # Then its capture is taken again and the old one is gone
    after = SchemaTemplate.objects.get()
    assert after.fingerprint != before.fingerprint
    assert after.fingerprint == template_fingerprint()
    # and a new site is a copy of the template as it is now
    site = site_create(name="After change", domain="after-change.localhost")
    _assert_same_as_template(site.schema_name, template)


@pytest.mark.parametrize("schema_name", ["Site_Caps", "site-dash", "1site", "pg_site", "site x", "s" * 64])
def test_a_site_with_an_invalid_schema_name_is_refused(db, schema_name):
    with pytest.raises(ValidationError) as error:
        site_create(name="Bad name", domain="bad-name.localhost", schema_name=schema_name)
    assert "schema_name" in error.value.message_dict
    assert not Site.objects.filter(name="Bad name").exists()
    assert not schema_exists(schema_name)


@pytest.mark.parametrize("schema_name", ["site_template", "public"])
def test_a_site_cannot_take_a_reserved_schema(db, schema_name):
    with pytest.raises(ValidationError) as error:
        site_create(name="Reserved", domain="reserved.localhost", schema_name=schema_name)
    assert "schema_name" in error.value.message_dict


def test_an_invalid_schema_name_is_refused_without_validation_too(db):
    # Site.save() without full_clean reaches create_schema, which refuses the name and
    # removes the row again (django-tenants' save)
    with pytest.raises(ValidationError):
        Site(name="Unchecked", schema_name='site"; DROP SCHEMA public; --').save()
    assert not Site.objects.filter(name="Unchecked").exists()
    with pytest.raises(ValidationError):
        schema_clone(schema_name="Mixed_Case")


def test_the_clone_is_part_of_the_callers_transaction(db):
    # A site whose domain is taken: site_create fails after the schema was made
    with pytest.raises(IntegrityError):
        site_create(name="Taken domain", domain="localhost", schema_name="site_taken_domain")
    assert not schema_exists("site_taken_domain")
    assert not Site.objects.filter(schema_name="site_taken_domain").exists()


def test_without_cloning_a_site_replays_the_migrations_to_the_same_schema(db, settings):
    with (
        override_settings(TENANT_CREATION_FAKES_MIGRATIONS=False),
        mock.patch.object(cloning, "schema_clone", side_effect=AssertionError("cloned")),
    ):
        site = site_create(name="Migrated Site", domain="migrated-site.localhost")
    signature = schema_signature(site.schema_name)
    expected = schema_signature(settings.TENANT_BASE_SCHEMA)
    assert signature_differences(expected, signature) == []


# --- pg_dump's output ------------------------------------------------------------


def test_statements_are_split_at_semicolons_outside_strings_and_bodies():
    script = """\\restrict abc
--
-- a comment; with a semicolon
SET statement_timeout = 0;
SELECT pg_catalog.set_config('search_path', '', false);
CREATE SCHEMA site_template;
CREATE TABLE site_template.t (
    note text DEFAULT 'a;b''c' NOT NULL,
    "odd;name" integer
);
CREATE FUNCTION site_template.f() RETURNS integer LANGUAGE plpgsql AS $body$
BEGIN
    RETURN 1;
END;
$body$;
ALTER TABLE ONLY site_template.t ALTER COLUMN note SET (pg_attver=123);
ALTER TABLE ONLY site_template.t ALTER COLUMN "odd;name" SET (n_distinct=-1, pg_attver=5);

\\unrestrict abc
"""
    statements = ddl_statements(script)
    assert len(statements) == 7
    assert statements[3].startswith("CREATE TABLE site_template.t (") and statements[3].endswith(");")
    assert statements[4].endswith("$body$;")
    ddl = template_ddl("site_template", script)
    assert ddl.splitlines()[0] == "CREATE SCHEMA site_template;"
    assert "SET statement_timeout" not in ddl and "set_config" not in ddl
    assert "SET (pg_attver" not in ddl
    assert 'ALTER COLUMN "odd;name" SET (n_distinct=-1);' in ddl


def test_the_template_name_is_replaced_only_where_it_names_the_schema():
    snapshot = SchemaTemplate(
        ddl=(
            "CREATE SCHEMA site_template;\n"
            "CREATE TABLE site_template.site_template_notes (id integer DEFAULT "
            "nextval('site_template.site_template_notes_id_seq'::regclass));"
        ),
        row_tables=["site_template_notes"],
        sequences={"site_template_notes_id_seq": None},
    )
    sql = cloning.schema_clone_sql(snapshot, "site_template", "site_new")
    assert 'CREATE SCHEMA "site_new";' in sql
    assert 'CREATE TABLE "site_new".site_template_notes' in sql
    assert "nextval('\"site_new\".site_template_notes_id_seq'::regclass)" in sql
    assert 'SELECT * FROM "site_template"."site_template_notes"' in sql
