"""The revenue dashboard over 1,000 sites and a year of rollups (issue "conversions by
traffic source"): /admin/reports/ for all sites over 365 days, broken down by network
and by site, against the site list of the operators' admin (/admin/tenants/site/) in the
same run, both as an operator's browser asks them (the test client, logged in with both
steps). Goals: the dashboard's p95 at most 5x the site list's, and at most 1 s itself;
the row is met only when both are. Timed: the default view and each breakdown over the
year (network, site, ref, sub1, lander, campaign; per day, week and month), uncached.

The data: --sites Site rows (rows only: the dashboard reads the public schema's rollups,
never a site's schema), and 100,000 signups and 20,000 purchases spread at random over
365 days, 5 networks, 20 refs, 10 sub1 values, 3 landers and 4 campaigns, summed into
the daily rollups as `rollup_add` would (one row per site, day and source)."""

from __future__ import annotations

import random
import statistics
import time
from collections import defaultdict
from datetime import timedelta

from bench.common import Result, log

NAME = "reports"
GOAL = 5.0
LIMIT_SECONDS = 1.0  # and the dashboard's own p95 at most this, whatever the site list takes
SIGNUPS = 100_000
PURCHASES = 20_000
DAYS = 365
SAMPLES = 40
WARMUP = 5


def title(sites: int) -> str:
    return f"revenue dashboard, {sites} sites x 1 year: p95 vs site list, and absolute"


def _sites(count: int) -> list[int]:
    from apps.tenants.models import Company, Site

    company, _ = Company.objects.get_or_create(
        name="Bench Reports B.V.", defaults={"address": "Benchstraat 2", "city": "Amsterdam", "country": "NL"}
    )
    have = Site.objects.filter(schema_name__startswith="bench_r_").count()
    if have < count:
        # Rows only, no schemas (bulk_create skips save(), which would clone one each).
        Site.objects.bulk_create(
            [
                Site(name=f"Reports Site {number:05d}", schema_name=f"bench_r_{number:05d}", company=company)
                for number in range(have, count)
            ]
        )
    return list(Site.objects.filter(schema_name__startswith="bench_r_").values_list("pk", flat=True)[:count])


def _rollups(site_ids: list[int], seed: int = 29) -> int:
    from django.utils import timezone

    from apps.conversions.models import DailyRollup
    from apps.conversions.rollups import COUNTERS, rows_insert

    rng = random.Random(seed)
    today = timezone.localdate()
    networks = ["adnet", "clickco", "datepush", "trafficjam", ""]
    counts: dict[tuple, dict[str, int]] = defaultdict(lambda: defaultdict(int))

    def source() -> tuple:
        day = today - timedelta(days=rng.randrange(DAYS))
        return (
            rng.choice(site_ids),
            day,
            rng.choice(networks),
            f"ref{rng.randrange(20)}",
            f"s{rng.randrange(10)}",
            rng.choice(["gallery", "video", ""]),
            rng.choice(["spring", "summer", "brand", ""]),
        )

    for _ in range(SIGNUPS):
        key = (*source(), "")
        counts[key]["signups"] += 1
        counts[key]["visits"] += 4
        counts[key]["confirmations"] += rng.random() < 0.6
    for index in range(PURCHASES):
        key = (*source(), "EUR")
        counts[key]["first_purchases" if index % 3 else "purchases"] += 1
        counts[key]["revenue"] += rng.choice([1495, 2995, 5995])
    DailyRollup.objects.all().delete()
    rows = [(*key, *(values.get(name, 0) for name in COUNTERS)) for key, values in counts.items()]
    rows_insert(rows)
    return len(rows)


def _p95(client, path: str, params: dict | None = None) -> tuple[float, float]:
    for _ in range(WARMUP):
        response = client.get(path, params or {})
        if response.status_code != 200:
            raise RuntimeError(f"{path} answered {response.status_code}")
    times = []
    for _ in range(SAMPLES):
        started = time.perf_counter()
        response = client.get(path, params or {})
        times.append(time.perf_counter() - started)
        if response.status_code != 200:
            raise RuntimeError(f"{path} answered {response.status_code}")
    times.sort()
    return times[int(len(times) * 0.95) - 1], statistics.median(times)


# The views timed, all over the whole year unless "start" is left out (then the default
# 30 days): the breakdowns and periods an operator switches between.
VIEWS = (
    ("default view (30 days, by network per day)", {}),
    ("by network per month", {"by": "network", "period": "month"}),
    ("by site per week", {"by": "site", "period": "week"}),
    ("by ref per day", {"by": "ref", "period": "day"}),
    ("by sub1 per week", {"by": "sub1", "period": "week"}),
    ("by lander per month", {"by": "lander", "period": "month"}),
    ("by campaign per day", {"by": "campaign", "period": "day"}),
    ("one network by site per day", {"by": "site", "period": "day", "net": "adnet"}),
)


def run(options) -> Result:
    from django.db import connection
    from django.utils import timezone

    from apps.tenants.services import public_site_ensure
    from tests.staff import staff_client, staff_member

    result = Result(
        name=NAME,
        title=title(options.sites),
        goal=f"<= {GOAL:g}x, p95 <= {LIMIT_SECONDS * 1000:.0f} ms",
        ratio_format="{:.2f}x",
    )
    public_site_ensure(domain="admin.localhost")
    site_ids = _sites(options.sites)
    started = time.perf_counter()
    rows = _rollups(site_ids)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE conversions_dailyrollup")
    log(f"reports: {rows} rollup rows for {len(site_ids)} sites in {time.perf_counter() - started:.1f} s")
    client = staff_client(staff_member("superuser", "bench-reports"))
    start = (timezone.localdate() - timedelta(days=DAYS - 1)).isoformat()
    site_list_p95, site_list_median = _p95(client, "/admin/tenants/site/")
    views = {}
    for label, params in VIEWS:
        query = {**params, "start": start} if params else {}
        p95, median = _p95(client, "/admin/reports/", query)
        views[label] = {"p95": round(p95 * 1000, 1), "median": round(median * 1000, 1), "query": query}
    slowest = max(views, key=lambda label: views[label]["p95"])
    dashboard = views[slowest]["p95"] / 1000
    result.baseline, result.baseline_label = site_list_p95, f"site list p95 {site_list_p95 * 1000:.0f} ms"
    result.measured = dashboard
    result.measured_label = f"dashboard p95 {dashboard * 1000:.0f} ms (slowest view)"
    result.ratio = dashboard / site_list_p95
    within_ratio = result.ratio <= GOAL
    within_limit = dashboard <= LIMIT_SECONDS
    result.goal_met = within_ratio and within_limit
    result.details = {
        "sites": len(site_ids),
        "signups": SIGNUPS,
        "purchases": PURCHASES,
        "rollup_rows": rows,
        "site_list_ms": {"p95": round(site_list_p95 * 1000, 1), "median": round(site_list_median * 1000, 1)},
        "dashboard_ms": views,
        "slowest_view": slowest,
        "ratio_goal_met": within_ratio,
        "limit_goal_met": within_limit,
    }
    result.notes.append(
        f"slowest view: {slowest}, p95 {dashboard * 1000:.0f} ms "
        f"({'within' if within_limit else 'over'} {LIMIT_SECONDS * 1000:.0f} ms; "
        f"ratio {result.ratio:.2f}x, {'within' if within_ratio else 'over'} {GOAL:g}x); "
        f"site list p95 {site_list_p95 * 1000:.0f} ms"
    )
    result.notes.append(
        "p95 per view (ms): " + ", ".join(f"{label} {numbers['p95']:.0f}" for label, numbers in views.items())
    )
    return result
