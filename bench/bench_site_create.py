"""Benchmark "site creation: clone vs migrations".

apps.tenants.services.site_create normally clones the migrated template schema
("site_template", TENANT_CREATION_FAKES_MIGRATIONS=True) and then records every
migration as applied without running it. The baseline switches cloning off, so
django-tenants creates an empty schema and replays every tenant migration.

Both paths create N sites (after one warm-up site each), alternating so that any
drift during the run affects both alike. Reported: the median seconds per site of
each and migrations/clone, i.e. how many times faster cloning is. The sites are
deleted (schemas dropped) afterwards so the next benchmark starts from none.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from bench.common import BenchError, Result, log, median

NAME = "site-create"
TITLE = "site creation (s/site): migrations vs clone"


@contextmanager
def clone_phase_timer() -> Iterator[dict]:
    """Times django-tenants' clone steps inside site_create (without touching the
    application): (re)creating the clone_schema() SQL function, and the whole clone."""
    from unittest import mock

    from django_tenants.clone import CloneSchema

    totals = {"create_clone_function": [], "clone_schema": []}
    original_function = CloneSchema._create_clone_schema_function
    original_clone = CloneSchema.clone_schema

    def timed_function(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return original_function(self, *args, **kwargs)
        finally:
            totals["create_clone_function"].append(time.perf_counter() - started)

    def timed_clone(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return original_clone(self, *args, **kwargs)
        finally:
            totals["clone_schema"].append(time.perf_counter() - started)

    with (
        mock.patch.object(CloneSchema, "_create_clone_schema_function", timed_function),
        mock.patch.object(CloneSchema, "clone_schema", timed_clone),
    ):
        yield totals


def table_count(schema: str) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = %s",
            [schema],
        )
        return cursor.fetchone()[0]


def applied_migrations(schema: str) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f'SELECT count(*) FROM "{schema}".django_migrations')
        return cursor.fetchone()[0]


def create_timed(label: str, index: int | str) -> tuple[float, object]:
    from apps.tenants.services import site_create

    started = time.perf_counter()
    site = site_create(name=f"Bench {label.title()} {index}", domain=f"{label}-{index}.bench.localhost")
    return time.perf_counter() - started, site


def run(options) -> Result:
    from django.conf import settings
    from django.db import connection
    from django.test import override_settings

    count = options.create_sites
    result = Result(name=NAME, title=TITLE, goal="> 1", ratio_format="{:.1f}x")
    created = []
    clone_times: list[float] = []
    migrate_times: list[float] = []
    no_clone = override_settings(TENANT_CREATION_FAKES_MIGRATIONS=False)
    try:
        with clone_phase_timer() as phases:
            seconds, site = create_timed("clone", "warmup")
            created.append(site)
            log(f"  warm-up clone: {seconds:.3f} s")
            with no_clone:
                seconds, site = create_timed("migrate", "warmup")
            created.append(site)
            log(f"  warm-up migrations: {seconds:.3f} s")
            warmup_phases = {key: len(values) for key, values in phases.items()}
            for index in range(1, count + 1):
                seconds, site = create_timed("clone", index)
                clone_times.append(seconds)
                created.append(site)
                with no_clone:
                    seconds, site = create_timed("migrate", index)
                migrate_times.append(seconds)
                created.append(site)
                log(f"  site {index}/{count}: clone {clone_times[-1]:.3f} s, migrations {migrate_times[-1]:.3f} s")

        # Both paths must give the same schema as the template.
        template_tables = table_count(settings.TENANT_BASE_SCHEMA)
        template_migrations = applied_migrations(settings.TENANT_BASE_SCHEMA)
        for site in created[-2:]:
            tables, migrations = table_count(site.schema_name), applied_migrations(site.schema_name)
            if (tables, migrations) != (template_tables, template_migrations):
                raise BenchError(
                    f"{site.schema_name} has {tables} tables and {migrations} applied migrations; "
                    f"the template has {template_tables} and {template_migrations}"
                )

        clone = median(clone_times)
        migrate = median(migrate_times)
        function_times = phases["create_clone_function"][warmup_phases["create_clone_function"] :]
        clone_sql_times = phases["clone_schema"][warmup_phases["clone_schema"] :]
        result.baseline, result.baseline_label = migrate, f"{migrate:.3f} (migr.)"
        result.measured, result.measured_label = clone, f"{clone:.3f} (clone)"
        result.ratio = migrate / clone
        result.goal_met = result.ratio > 1
        result.details = {
            "sites_per_path": count,
            "clone_seconds": [round(value, 4) for value in clone_times],
            "migrations_seconds": [round(value, 4) for value in migrate_times],
            "clone_median_seconds": round(clone, 4),
            "migrations_median_seconds": round(migrate, 4),
            "template_tables": template_tables,
            "template_migrations": template_migrations,
            # Where a clone's time goes: django-tenants re-creates its clone_schema()
            # SQL function before every clone; the rest of clone_schema is the copy;
            # what remains of site_create is mostly `migrate_schemas --fake`.
            "clone_breakdown_median_seconds": {
                "create_clone_function": round(median(function_times), 4) if function_times else None,
                "clone_schema_total": round(median(clone_sql_times), 4) if clone_sql_times else None,
                "rest_of_site_create": round(clone - median(clone_sql_times), 4) if clone_sql_times else None,
            },
        }
        breakdown = result.details["clone_breakdown_median_seconds"]
        if breakdown["clone_schema_total"] is not None:
            result.notes.append(
                f"a clone spends {breakdown['clone_schema_total']:.3f} s in django-tenants' clone_schema() "
                f"(of which {breakdown['create_clone_function']:.3f} s re-creating its SQL function) and "
                f"{breakdown['rest_of_site_create']:.3f} s in the rest of site_create (mostly migrate_schemas --fake)"
            )
        return result
    finally:
        connection.set_schema_to_public()
        for site in created:
            site.delete()
