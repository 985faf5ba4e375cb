"""Benchmark "landing page with 1,000 sites vs 1 site".

Requests per second of GET / (the landing page, view "index") on one site, served
by one uvicorn worker in a subprocess and loaded by bench.loadgen in another
process (httpx, keep-alive, fixed concurrency). Every response must be 200 and
contain the site's name.

First with that site alone in the database (the baseline), then after creating
real sites (site_create, each with a schema of its own; see create_sites for how)
until there are --sites in all. The ratio RPS(many)/RPS(1) should stay >= 0.9: serving a site must
not get slower because other sites exist. A few of the other sites are requested
too, to check each is served with its own name.
"""

from __future__ import annotations

import os
import time

from bench.common import (
    BenchError,
    Result,
    database_stats,
    log,
    median,
    run_loadgen,
    uvicorn_server,
)

NAME = "landing"

MEASURED_DOMAIN = "landing.bench.localhost"
MEASURED_NAME = "Bench Landing Site"
BENCH_COMPANY = {
    "name": "Bench Dating B.V.",
    "address": "Benchstraat 1",
    "city": "Amsterdam",
    "country": "NL",
    "support_phone": "+31 20 000 0000",
}


def title(sites: int) -> str:
    return f"landing page req/s: {sites:,} sites vs 1 site"


def site_name(number: int) -> str:
    return f"Bench Site {number:05d}"


def sites_text(count: int) -> str:
    return f"{count:,} site" + ("" if count == 1 else "s")


def duration_text(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 120 else f"{seconds:.0f} s"


def site_domain(number: int) -> str:
    return f"site-{number:05d}.bench.localhost"


def tenant_sites():
    from django.conf import settings

    from apps.tenants.models import Site

    return Site.objects.exclude(schema_name=settings.PUBLIC_SCHEMA_NAME)


def measure(label: str, options, database_url: str, check=None) -> dict:
    """One phase: a fresh server, warm-up, then the measured rounds; `check(base_url)`
    runs on the same server afterwards."""
    requests_total = options.warmup + options.requests
    with uvicorn_server(MEASURED_DOMAIN, MEASURED_NAME) as (base_url, pid):
        before = database_stats(database_url)
        report = run_loadgen(
            base_url, MEASURED_DOMAIN, MEASURED_NAME,
            requests=max(1, options.requests // options.rounds), warmup=options.warmup,
            concurrency=options.concurrency, rounds=options.rounds, server_pid=pid,
        )  # fmt: skip
        time.sleep(1.2)  # backends report their statistics at most once a second
        after = database_stats(database_url)
        report["database_per_request"] = {
            key: round((after[key] - before[key]) / requests_total, 3) for key in ("sessions", "transactions")
        }
        rps = [item["rps"] for item in report["rounds"]]
        cpu = report["server_cpu_ms_per_request_median"]
        log(
            f"  {label}: best {report['rps_best']:.0f} req/s (rounds {', '.join(f'{value:.0f}' for value in rps)}), "
            f"p50 {median([r['latency_ms_p50'] for r in report['rounds']]):.1f} ms"
            + (f", server CPU {cpu:.2f} ms/request" if cpu is not None else "")
            + f"; per request {report['database_per_request']['sessions']} new database sessions, "
            f"{report['database_per_request']['transactions']} transactions"
        )
        if check is not None:
            report["check"] = check(base_url)
        return report


def _linear_fit(points: list[tuple[int, float]]) -> tuple[float, float] | None:
    """Least squares seconds = a + b * sites_before, or None with too few points."""
    if len({x for x, _y in points}) < 2:
        return None
    n = len(points)
    mean_x = sum(x for x, _y in points) / n
    mean_y = sum(y for _x, y in points) / n
    b = sum((x - mean_x) * (y - mean_y) for x, y in points) / sum((x - mean_x) ** 2 for x, _y in points)
    return mean_y - b * mean_x, b


def create_sites(target: int, options, database_url: str) -> dict:
    """Brings the database to `target` sites, each made by site_create.

    1. site_create as the application runs it (clone_schema of django-tenants), for
       --clone-budget seconds: how the clone time grows with the number of sites.
    2. The rest but three by site_create with the bench's fast copy of the template
       as its schema step (bench.fast_clone), because real clones take too long.
    3. The last three as the application makes them again: two clones and one with
       migrations (TENANT_CREATION_FAKES_MIGRATIONS=False): their cost at `target`.
    """
    from django.conf import settings
    from django.db import connection
    from django.test import override_settings

    from apps.tenants.services import site_create
    from bench.fast_clone import FastTemplateCopy, fast_schema_creation, schema_signature, signature_differences

    tail = ["clone", "clone", "migrations"] if target >= 5 else []
    have = tenant_sites().count()
    number = have + 1
    started = time.perf_counter()
    real: list[tuple[int, float]] = []  # (sites before, seconds)
    last_clone = 0  # number of the last site made by a real clone
    fast: list[float] = []
    end: list[dict] = []

    def create(kind: str) -> float:
        nonlocal have, number, last_clone
        if kind == "clone":
            last_clone = number
        t0 = time.perf_counter()
        if kind == "migrations":
            with override_settings(TENANT_CREATION_FAKES_MIGRATIONS=False):
                site_create(name=site_name(number), domain=site_domain(number))
        else:
            site_create(name=site_name(number), domain=site_domain(number))
        seconds = time.perf_counter() - t0
        have += 1
        number += 1
        if have % 100 == 0:
            log(f"  {have:,} sites, {time.perf_counter() - started:.0f} s so far")
        if time.perf_counter() - started > options.create_budget:
            raise BenchError(f"creating sites took more than --create-budget {options.create_budget:.0f} s")
        return seconds

    # 1. The application's own clones, each in a database session of its own.
    clone_budget_end = started + options.clone_budget
    while have < target - len(tail) and time.perf_counter() < clone_budget_end:
        before = have
        real.append((before, create("clone")))
        connection.close()
    if real:
        log(
            f"  site_create (clone): {len(real)} sites in {sum(s for _n, s in real):.1f} s, "
            f"from {real[0][1]:.3f} s/site at {real[0][0]} sites to {real[-1][1]:.3f} s/site at {real[-1][0]}"
        )

    # 2. The bulk, with the fast copy of the template inside site_create.
    fast_started = time.perf_counter()
    if have < target - len(tail):
        copier = FastTemplateCopy(settings.TENANT_BASE_SCHEMA, database_url)
        with fast_schema_creation(copier):
            first_fast = number
            while have < target - len(tail):
                fast.append(create("fast"))
                if len(fast) % 50 == 0:
                    connection.close()
        log(f"  site_create (fast copy): {len(fast):,} sites in {time.perf_counter() - fast_started:.1f} s")
        template = schema_signature(settings.TENANT_BASE_SCHEMA)
        copied = schema_of(first_fast)
        differences = signature_differences(template, schema_signature(copied))
        connection.set_schema_to_public()
        if differences:
            raise BenchError(f"the fast copy {copied} differs from the template: {'; '.join(differences)}")

    # 3. The application's own ways again, now with `target` sites.
    for kind in tail:
        connection.close()
        before = have
        seconds = create(kind)
        end.append({"kind": kind, "sites_before": before, "seconds": round(seconds, 4)})
        if kind == "clone":
            real.append((before, seconds))
        log(f"  site_create ({'clone' if kind == 'clone' else 'migrations'}) at {before:,} sites: {seconds:.3f} s")

    clone_differences = None
    if last_clone:
        clone_schema = schema_of(last_clone)
        clone_differences = signature_differences(
            schema_signature(settings.TENANT_BASE_SCHEMA), schema_signature(clone_schema)
        )
        connection.set_schema_to_public()

    fit = _linear_fit(real)
    estimate = None
    if fit:
        a, b = fit
        # every site after the measured one: 1 site before the first, target - 1 before the last
        estimate = sum(max(0.0, a + b * before) for before in range(1, target))
    return {
        "total_sites": tenant_sites().count(),
        "seconds": round(time.perf_counter() - started, 2),
        "clone": {
            "sites": len(real),
            "seconds": [(before, round(seconds, 4)) for before, seconds in real],
            "fit_seconds": {"at_0_sites": round(fit[0], 4), "per_1000_more_sites": round(fit[1] * 1000, 4)}
            if fit
            else None,
            "estimated_seconds_for_all": round(estimate, 1) if estimate is not None else None,
            "differences_from_template": clone_differences,
        },
        "fast_copy": {
            "sites": len(fast),
            "median_seconds_per_site": round(median(fast), 4) if fast else None,
            "seconds": round(sum(fast), 2),
        },
        "at_target": end,
    }


def schema_of(number: int) -> str:
    from apps.tenants.models import Site

    return Site.objects.get(domains__domain=site_domain(number)).schema_name


def check_sites(base_url: str, numbers: list[int]) -> list[dict]:
    """GET / on a few other sites: each must answer 200 with its own name."""
    import httpx

    checked = []
    with httpx.Client(base_url=base_url, timeout=30) as client:
        for number in numbers:
            domain, name = site_domain(number), site_name(number)
            response = client.get("/", headers={"Host": domain})
            ok = response.status_code == 200 and name in response.text and MEASURED_NAME not in response.text
            checked.append({"domain": domain, "status": response.status_code, "own_name": name in response.text})
            if not ok:
                raise BenchError(f"{domain} answered {response.status_code} without its own name {name!r}")
        response = client.get("/", headers={"Host": "unknown.bench.localhost"})
        if response.status_code != 404:
            raise BenchError(f"an unknown host answered {response.status_code}, not 404")
    return checked


def run(options) -> Result:
    from django.db import connection

    from apps.tenants.services import company_get_or_create, site_create

    target = options.sites
    result = Result(name=NAME, title=title(target), goal=">= 0.9")
    if target < 2:
        raise BenchError("--sites must be at least 2")
    connection.set_schema_to_public()
    leftovers = list(tenant_sites())
    for site in leftovers:  # the baseline is one site alone
        site.delete()
    company = company_get_or_create(**BENCH_COMPANY)
    site_create(
        name=MEASURED_NAME, domain=MEASURED_DOMAIN, company=company, languages=["en", "fr"],
        domain_language="en", countries=["GB", "US"], index_title=f"{MEASURED_NAME}: meet singles near you",
        description="Chat, flirt and meet people near you.", support_email="support@landing.bench.localhost",
    )  # fmt: skip
    database_url = os.environ["DATABASE_URL"]  # the bench database (bench.common.setup_django)

    log(f"  measuring GET / with 1 site ({options.requests:,} requests after {options.warmup} warm-up)")
    one = measure("1 site", options, database_url)

    log(f"  creating sites until there are {target:,}")
    creation = create_sites(target, options, database_url)
    estimate = creation["clone"]["estimated_seconds_for_all"]
    log(
        f"  {creation['total_sites']:,} sites after {creation['seconds']:.1f} s"
        + (
            f"; creating them all with site_create's clone would take about {duration_text(estimate)}"
            if estimate
            else ""
        )
    )
    if creation["total_sites"] != target:
        raise BenchError(f"there are {creation['total_sites']:,} sites, not {target:,}")

    log(f"  measuring GET / with {target:,} sites")
    numbers = sorted({2, 3, target // 2, target - 1, target})  # real clones, fast copies, migrations
    many = measure(f"{target:,} sites", options, database_url, check=lambda url: check_sites(url, numbers))
    checked = many.pop("check")
    log(f"  {len(checked)} other sites served with their own names; an unknown host gets 404")

    # The best round: other load on the machine can only slow a round down.
    result.baseline, result.baseline_label = one["rps_best"], f"{one['rps_best']:.0f} (1 site)"
    result.measured, result.measured_label = many["rps_best"], f"{many['rps_best']:.0f} ({target:,})"
    result.ratio = many["rps_best"] / one["rps_best"]
    cpu_one, cpu_many = one["server_cpu_ms_per_request_median"], many["server_cpu_ms_per_request_median"]
    result.notes.append(
        f"req/s median of rounds {one['rps_median']:.0f} (1 site) vs {many['rps_median']:.0f} ({target:,} sites)"
        + (
            f"; server CPU per request {cpu_one:.2f} ms vs {cpu_many:.2f} ms (ratio {cpu_one / cpu_many:.2f})"
            if cpu_one and cpu_many
            else ""
        )
    )
    result.goal_met = result.ratio >= 0.9
    clone = creation["clone"]
    if clone["seconds"] and creation["at_target"]:
        first_before, first_seconds = clone["seconds"][0]
        at_target = "; ".join(
            f"{item['kind']} {item['seconds']:.2f} s/site at {sites_text(item['sites_before'])}"
            for item in creation["at_target"]
        )
        estimate = clone["estimated_seconds_for_all"]
        estimate_text = (
            f"; creating all {target - 1:,} by clone would take about {duration_text(estimate)}" if estimate else ""
        )
        result.notes.append(
            f"site_create as sites accumulate: clone {first_seconds:.2f} s/site at "
            f"{sites_text(first_before)}; {at_target}{estimate_text} (the bench made "
            f"{creation['fast_copy']['sites']:,} of them with a fast copy of the template instead)"
        )
    if clone["differences_from_template"]:
        result.notes.append(
            "a schema made by clone_schema() differs from the template: "
            + "; ".join(difference.split(", e.g.")[0] for difference in clone["differences_from_template"])
            + " (details in latest.json)"
        )
    result.details = {
        "sites": target,
        "requests": options.requests,
        "rounds": options.rounds,
        "warmup": options.warmup,
        "concurrency": options.concurrency,
        "one_site": one,
        "many_sites": many,
        "site_creation": creation,
        "other_sites_checked": checked,
    }
    return result
