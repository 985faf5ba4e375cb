"""Benchmark "site creation: clone vs migrations".

apps.tenants.services.site_create makes a site's schema as an exact copy of the
migrated template schema ("site_template"; apps.tenants.cloning: the template's
DDL captured once with pg_dump, executed with the schema renamed, plus the
template's rows and sequence positions). The baseline switches cloning off
(TENANT_CREATION_FAKES_MIGRATIONS=False), so django-tenants creates an empty schema
and replays every tenant migration.

Both paths create N sites (after one warm-up site each), alternating so that any
drift during the run affects both alike. Reported: the median seconds per site of
each and migrations/clone, i.e. how many times faster cloning is. Every schema made
is compared with the template (apps.tenants.cloning.schema_signature): a clone that
differs fails the benchmark, a migrated schema that differs is reported. The sites
are deleted (schemas dropped) afterwards so the next benchmark starts from none.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from bench.common import BenchError, Result, log, median

NAME = "site-create"
TITLE = "site creation (s/site): migrations vs clone"


@contextmanager
def clone_phase_timer() -> Iterator[dict[str, list[float]]]:
    """Times the steps of a clone inside site_create without changing them: loading
    the template's stored capture (apps.tenants.cloning.schema_template_current),
    and the whole schema_clone (that, plus executing the copy)."""
    from unittest import mock

    from apps.tenants import cloning, models

    totals: dict[str, list[float]] = {"load_capture": [], "schema_clone": []}

    def timed(name: str, function):
        def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                totals[name].append(time.perf_counter() - started)

        return wrapper

    # Each is replaced where it is looked up: the cloning module calls its own
    # schema_template_current, Site.create_schema the schema_clone it imported.
    with (
        mock.patch.object(cloning, "schema_template_current", timed("load_capture", cloning.schema_template_current)),
        mock.patch.object(models, "schema_clone", timed("schema_clone", models.schema_clone)),
    ):
        yield totals


def create_timed(label: str, index: int | str) -> tuple[float, object]:
    from apps.tenants.services import site_create

    started = time.perf_counter()
    site = site_create(name=f"Bench {label.title()} {index}", domain=f"{label}-{index}.bench.localhost")
    return time.perf_counter() - started, site


def run(options) -> Result:
    from django.conf import settings
    from django.db import connection
    from django.test import override_settings

    from apps.tenants.cloning import schema_signature, signature_differences

    count = options.create_sites
    result = Result(name=NAME, title=TITLE, goal="> 1", ratio_format="{:.1f}x")
    created = []
    clones, migrated = [], []
    clone_times: list[float] = []
    migrate_times: list[float] = []
    no_clone = override_settings(TENANT_CREATION_FAKES_MIGRATIONS=False)
    try:
        with clone_phase_timer() as phases:
            seconds, site = create_timed("clone", "warmup")
            created.append(site)
            clones.append(site)
            log(f"  warm-up clone: {seconds:.3f} s")
            with no_clone:
                seconds, site = create_timed("migrate", "warmup")
            created.append(site)
            migrated.append(site)
            log(f"  warm-up migrations: {seconds:.3f} s")
            warmup_phases = {key: len(values) for key, values in phases.items()}
            for index in range(1, count + 1):
                seconds, site = create_timed("clone", index)
                clone_times.append(seconds)
                created.append(site)
                clones.append(site)
                with no_clone:
                    seconds, site = create_timed("migrate", index)
                migrate_times.append(seconds)
                created.append(site)
                migrated.append(site)
                log(f"  site {index}/{count}: clone {clone_times[-1]:.3f} s, migrations {migrate_times[-1]:.3f} s")
        if len(phases["schema_clone"]) != len(clones):
            raise BenchError("site_create did not go through apps.tenants.cloning.schema_clone")

        # A clone must be the template exactly; a migrated schema should be too.
        template = schema_signature(settings.TENANT_BASE_SCHEMA)
        for site in clones:
            differences = signature_differences(template, schema_signature(site.schema_name))
            if differences:
                raise BenchError(f"the clone {site.schema_name} differs from the template: {'; '.join(differences)}")
        migrated_differences = signature_differences(template, schema_signature(migrated[-1].schema_name))

        clone = median(clone_times)
        migrate = median(migrate_times)
        load_times = phases["load_capture"][warmup_phases["load_capture"] :]
        clone_sql_times = phases["schema_clone"][warmup_phases["schema_clone"] :]
        result.baseline, result.baseline_label = migrate, f"{migrate:.3f} (migr.)"
        result.measured, result.measured_label = clone, f"{clone:.3f} (clone)"
        result.ratio = migrate / clone
        result.goal_met = result.ratio > 1
        breakdown = {
            "load_capture": round(median(load_times), 4),
            "schema_clone_total": round(median(clone_sql_times), 4),
            "rest_of_site_create": round(clone - median(clone_sql_times), 4),
        }
        result.details = {
            "sites_per_path": count,
            "clone_seconds": [round(value, 4) for value in clone_times],
            "migrations_seconds": [round(value, 4) for value in migrate_times],
            "clone_median_seconds": round(clone, 4),
            "migrations_median_seconds": round(migrate, 4),
            "template_objects": {key: len(value) for key, value in template.items()},
            "clones_checked_against_template": len(clones),
            "migrated_schema_differences": migrated_differences,
            # Where a clone's time goes: schema_clone loads the template's stored
            # capture and executes the copy; the rest of site_create is validation
            # and the Site and Domain rows.
            "clone_breakdown_median_seconds": breakdown,
        }
        result.notes.append(
            f"a clone spends {breakdown['schema_clone_total']:.3f} s in apps.tenants.cloning.schema_clone() "
            f"(of which {breakdown['load_capture']:.3f} s loading the template's capture) and "
            f"{breakdown['rest_of_site_create']:.3f} s in the rest of site_create; all {len(clones)} clones "
            f"have the template's exact signature"
            + (
                "; a schema made by migrations differs from the template: " + "; ".join(migrated_differences)
                if migrated_differences
                else ", and so has a schema made by migrations"
            )
        )
        return result
    finally:
        connection.set_schema_to_public()
        for site in created:
            site.delete()
