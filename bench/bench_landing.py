"""Benchmark "landing page with 1,000 sites vs 1 site": the page cache's hits, and the work.

Requests per second and server CPU of GET / (the landing page, view "index"), served by
one uvicorn worker in a subprocess and loaded by bench.loadgen in another process
(httpx, keep-alive, fixed concurrency). Every response must be 200 and contain the
site's name.

First with the measured site alone in the database, then after creating real sites with
the application's site_create (each a schema of its own, an exact copy of the template;
see bench.many_sites.create_sites) until there are --sites in all. Each server is asked:

- identical first visits to one host: all but the first few are page-cache hits. Row
  "cache hits": req/s with --sites sites against 1 site.
- the realistic mix (bench.many_sites.MIX: first visits, returning visitors with
  cookies, paid arrivals with a tracking query string) on that one site, then spread
  over every site and its languages (each at its canonical host). Row "realistic mix":
  req/s spread over --sites sites against 1 site; goal >= 0.9.
- with --sites sites: first visits each of a variant not asked for before (the cache's
  miss path: lookup, render, store), paid arrivals alone on the measured site, each
  visitor with a sub1 of their own (the redirect and the page, both answered from the
  page cache once the warm-up has stored them), and a content page (/pages/faq, never
  cached). One row each: the server CPU
  per request against a cache hit's; goal: rendering <= 4 ms, a paid arrival <= 1 ms.

A few of the other sites are requested too, to check each is served with its own name.
"""

from __future__ import annotations

from bench.common import BenchError, Result, log
from bench.many_sites import (
    EDGE_CLONES,
    PAID_MS_GOAL,
    RENDER_MS_GOAL,
    RPS_GOAL,
    bench_sites,
    cpu_row,
    first_visits,
    grow_to,
    measure,
    measured_site_alone,
    mix_plan,
    mix_row,
    paid_plan,
    plan_requests,
    rps_ratio,
    site_domain,
    site_name,
)

NAME = "landing"

MEASURED_DOMAIN = "landing.bench.localhost"
MEASURED_NAME = "Bench Landing Site"


CONTENT_PATH = "/pages/faq"


def title(sites: int) -> str:
    return f"landing page req/s, one host, first visits (cache hits): {sites:,} sites vs 1 site"


def mix_title(sites: int) -> str:
    return f"landing page req/s, realistic mix (hits and misses): {sites:,} sites spread vs 1 site"


RENDER_TITLE = "landing page server CPU (ms): render (cache miss) vs cache hit"
PAID_TITLE = "landing page paid arrival CPU (ms, ?t=&network=&sub1=, one host: redirect + page, from the cache) vs hit"
CONTENT_TITLE = f"content page server CPU (ms, {CONTENT_PATH}, not cached) vs landing cache hit"


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


def run(options) -> list[Result]:
    target = options.sites
    result = Result(name=NAME, title=title(target), goal=RPS_GOAL)
    if target < 2:
        raise BenchError("--sites must be at least 2")
    measured_site_alone(name=MEASURED_NAME, domain=MEASURED_DOMAIN, countries=["GB", "US"])
    site = {"domain": MEASURED_DOMAIN, "name": MEASURED_NAME}

    count = plan_requests(options)
    alone = bench_sites(MEASURED_DOMAIN)
    log(f"  measuring GET / with 1 site ({options.requests:,} requests after {options.warmup} warm-up)")
    one = measure("1 site", options, **site, phases=[("mix", mix_plan(alone, count, path="/", seed=3))])

    creation = grow_to(target, options)

    log(f"  measuring GET / with {target:,} sites")
    # Early, middle and last clones and the migrated one; number 1 is the measured site.
    numbers = sorted({number for number in (2, 3, target // 2, target - 1, target) if number >= 2})
    everyone = bench_sites()
    phases = [
        ("mix", mix_plan(everyone, count, path="/", seed=3)),
        ("render", render_plan := first_visits(everyone, count, path="/")),
        ("paid", paid_plan(alone, count, path="/")),
        ("content", first_visits(everyone, count, path=CONTENT_PATH)),
    ]
    many = measure(f"{target:,} sites", options, **site, check=lambda url: check_sites(url, numbers), phases=phases)
    checked = many.pop("check")
    log(f"  {len(checked)} other sites served with their own names; an unknown host gets 404")

    rps_ratio(result, one, many, target)
    mix = Result(name=NAME, title=mix_title(target))
    mix_row(mix, one["phases"]["mix"], many["phases"]["mix"], target)
    render = Result(name=NAME, title=RENDER_TITLE)
    cpu_row(render, hit=many, measured=many["phases"]["render"], label="render", goal_ms=RENDER_MS_GOAL)
    variants = len({(item["host"], item["language"], item["country"]) for item in render_plan})
    if variants >= count:
        render.notes.append(
            f"render: {count:,} first visits spread over the {target:,} sites, their languages and visitors' "
            "countries, each a page variant not asked for before: lookup, render and store"
        )
    else:
        # Too few sites for a phase of misses only: the repeats were cache hits.
        render.goal_met = None
        render.notes.append(
            f"render: NOT GRADED: {target:,} sites have {variants:,} page variants for {count:,} requests, so "
            f"{count - variants:,} of them were cache hits; the row times renders alone from about "
            f"{-(-count * target // variants):,} sites"
        )
    paid = Result(name=NAME, title=PAID_TITLE)
    cpu_row(paid, hit=many, measured=many["phases"]["paid"], label="paid arrival", goal_ms=PAID_MS_GOAL)
    content = Result(name=NAME, title=CONTENT_TITLE)
    cpu_row(content, hit=many, measured=many["phases"]["content"], label="content page", goal_ms=RENDER_MS_GOAL)
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
    for row in (mix, render, paid, content):
        row.details = {"see": f"{NAME}[0]"}
    return [result, mix, render, paid, content]
