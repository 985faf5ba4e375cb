"""Benchmark "landing page with 1,000 sites vs 1 site".

Requests per second of GET / (the landing page, view "index") on one site, served
by one uvicorn worker in a subprocess and loaded by bench.loadgen in another
process (httpx, keep-alive, fixed concurrency). Every response must be 200 and
contain the site's name.

First with that site alone in the database (the baseline), then after creating
real sites with the application's site_create (each a schema of its own, an exact
copy of the template; see bench.many_sites.create_sites) until there are --sites in all. The ratio
RPS(many)/RPS(1) should stay >= 0.9: serving a site must not get slower because
other sites exist. A few of the other sites are requested
too, to check each is served with its own name.
"""

from __future__ import annotations

from bench.common import BenchError, Result, log
from bench.many_sites import (
    EDGE_CLONES,
    RPS_GOAL,
    grow_to,
    measure,
    measured_site_alone,
    rps_ratio,
    site_domain,
    site_name,
)

NAME = "landing"

MEASURED_DOMAIN = "landing.bench.localhost"
MEASURED_NAME = "Bench Landing Site"


def title(sites: int) -> str:
    return f"landing page req/s: {sites:,} sites vs 1 site"


def sites_text(count: int) -> str:
    return f"{count:,} site" + ("" if count == 1 else "s")


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
    target = options.sites
    result = Result(name=NAME, title=title(target), goal=RPS_GOAL)
    if target < 2:
        raise BenchError("--sites must be at least 2")
    measured_site_alone(name=MEASURED_NAME, domain=MEASURED_DOMAIN, countries=["GB", "US"])
    site = {"domain": MEASURED_DOMAIN, "name": MEASURED_NAME}

    log(f"  measuring GET / with 1 site ({options.requests:,} requests after {options.warmup} warm-up)")
    one = measure("1 site", options, **site)

    creation = grow_to(target, options)

    log(f"  measuring GET / with {target:,} sites")
    numbers = sorted({2, 3, target // 2, target - 1, target})  # early, middle and last clones; migrated
    many = measure(f"{target:,} sites", options, **site, check=lambda url: check_sites(url, numbers))
    checked = many.pop("check")
    log(f"  {len(checked)} other sites served with their own names; an unknown host gets 404")

    rps_ratio(result, one, many, target)
    clone, migrations = creation["clone"], creation["migrations"]
    if clone["first"] and clone["last"]:
        first, last = clone["first"], clone["last"]
        text = (
            f"site_create (exact clone) {first['median_seconds']:.3f} s/site with "
            f"{first['sites_before'][0]:,}-{first['sites_before'][1]:,} sites and "
            f"{last['median_seconds']:.3f} s/site with {last['sites_before'][0]:,}-{last['sites_before'][1]:,} "
            f"(medians of {EDGE_CLONES}); {creation['total_sites'] - 1:,} sites created in "
            f"{creation['seconds']:.0f} s"
        )
        if migrations:
            text += (
                f"; with migrations {migrations['seconds']:.3f} s with {sites_text(migrations['sites_before'])}, "
                f"{migrations['seconds'] / last['median_seconds']:.1f}x a clone"
            )
        result.notes.append(text)
        result.notes.append(
            f"{len(clone['checked_against_template'])} clones (first, middle, last) have the template's exact "
            "signature (columns, indexes, constraints, sequences, rows)"
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
