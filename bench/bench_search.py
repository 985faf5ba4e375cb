"""Benchmark "member search with 1,000,000 profiles".

One site (`search.bench.localhost`, visitors may search) whose schema gets --profiles
(1,000,000) active profiles, each with its member (2% invisible, 0.5% deleted, so their
profiles are not listed), inserted by an INSERT ... SELECT over generate_series each,
with pseudo-random but deterministic values (hashint8extended of the row number):
gender, country (one of the site's three), a real region of that country, date of
birth (18 to 72 years), created (the last two years); no photos. Then VACUUM ANALYZE.

Served by one uvicorn worker with bench.settings and bench.asgi (the site's URLs plus
bench/pk.json, a bare Django view doing one primary-key query, and bench/plain.json, the
same view behind the site's own handler with no middleware), all measured on the same
server with the same load generator settings:

(0) the server's CPU per request of bench/pk.json (the site's whole stack) as a
    multiple of bench/plain.json's (SiteASGIHandler, no middleware). Goal <= 1.5.
(a) requests per second of GET /api/search.php with one fixed query as a visitor, as a
    share of those of bench/pk.json: every visitor asking for that page within 30 s gets
    the shared page, so this times the cache hit. Goal >= 0.7.
(b) the same for visitors' searches that are all different (filters and pages, none
    asked twice in the run): the miss path of the shared page. Reported.
(c) a member's searches, varied filters (country, gender, ages, a region now and then)
    and pages 1 and 2 of each: a member's page is never shared, so this is the work
    itself. Goal >= 0.7.
(c') the pk view's read for that member (bench/member-pk.json: the session and the
    account are read first, as on every member request) against the pk view: what any
    member request costs before its own work, the floor under (c). Reported.
(d) the latency of a deep page (page --deep-page, 400, reached by following `next`
    cursors) as a multiple of the first page's, both as that member, so neither is a
    shared page (medians of --latency-samples requests each, one at a time,
    alternating). Goal <= 1.2: keyset pagination does not get slower with depth.
"""

from __future__ import annotations

import itertools
import random
import time
from urllib.parse import urlencode

from bench.common import BenchError, Result, log, median, run_loadgen, uvicorn_server

PLAIN_PATH = "/bench/plain.json"

NAME = "search"

DOMAIN = "search.bench.localhost"
SITE_NAME = "Bench Search Site"
COUNTRIES = ["NL", "DE", "GB"]
SETTINGS_MODULE = "bench.settings"
PK_PATH = "/bench/pk.json"
MEMBER_PK_PATH = "/bench/member-pk.json"
SEARCH_QUERY = {"country": "NL", "gender": "female", "min_age": "25", "max_age": "45"}
NAMES = ["Emma", "Sophie", "Julia", "Anna", "Laura", "Mia", "Lisa", "Sarah", "Chloe", "Eva",
         "Liam", "Noah", "Lucas", "Daan", "Sem", "Finn", "Jack", "Oliver", "Harry", "Leo"]  # fmt: skip
INSERT_BUDGET = 240.0


RPS_TITLE = "search req/s, visitor, one query (shared page: cache hits) vs pk view"
MISS_TITLE = "search req/s, visitor, every query new (shared page missed) vs pk view"
MEMBER_TITLE = "member search req/s (varied filters and pages, no shared page) vs pk view"
DEPTH_TITLE = "member search latency (ms): deep page {page} vs page 1, uncached"
FLOOR_TITLE = "a member's pk view (session and account read) req/s vs pk view"
CYCLE_TITLE = "request CPU (ms): site stack vs same handler, no middleware"
TITLE = MEMBER_TITLE
MEMBER_GOAL = 0.7
DEPTH_GOAL = 1.2
CYCLE_GOAL = 1.5


def search_path(**extra) -> str:
    return "/api/search.php?" + urlencode({**SEARCH_QUERY, **extra})


def varied_queries(count: int, *, seed: int, pages: int = 1) -> list[dict]:
    """`count` searches, all different (while there are enough combinations), in a
    deterministic order: country, gender, an age range and now and then a region; with
    `pages` > 1 each set of filters is asked for pages 1 to `pages` in turn, as a member
    paging through it does."""
    from apps.tenants.regions import regions_for_country

    regions = {code: [item["code"] for item in regions_for_country(code)][:4] for code in COUNTRIES}
    combinations = [
        {"country": country, "gender": gender, "min_age": str(low), "max_age": str(low + span),
         **({"region": region} if region else {})}
        for country, gender, low, span in itertools.product(COUNTRIES, ("female", "male"), range(18, 61), (4, 9, 19))
        for region in ("", *regions[country][: 1 + low % 3])
    ]  # fmt: skip
    random.Random(seed).shuffle(combinations)
    queries = []
    for filters in itertools.cycle(combinations):
        for page in range(1, pages + 1):
            queries.append({**filters, **({"page": str(page)} if page > 1 else {})})
        if len(queries) >= count:
            return queries[:count]
    return queries


def search_plan(queries: list[dict], cookie: str | None = None) -> list[dict]:
    """The load generator's plan (bench.loadgen --plan) of these searches."""
    return [
        {"host": DOMAIN, "path": "/api/search.php?" + urlencode(query), "expect": '"results"',
         **({"cookie": cookie} if cookie else {})}
        for query in queries
    ]  # fmt: skip


# --- Data ---------------------------------------------------------------------------


def _h(salt: int, modulo: int) -> str:
    """SQL: a deterministic pseudo-random integer in [0, modulo) from the row number."""
    return f"((hashint8extended(s.i, {salt}) %% {modulo} + {modulo}) %% {modulo})"


# Of the members behind the profiles, this share in a thousand are invisible and this
# share deleted (their profiles are not listed): the search's join to the accounts reads
# a row for every match, as on a real site.
INVISIBLE_PER_MILLE = 20
DELETED_PER_MILLE = 5


def _insert_select(model, schema: str, expressions: dict, params: dict, *, with_pk: bool = False) -> str:
    """INSERT ... SELECT over generate_series(1, %(count)s) AS s(i) into `model`'s table:
    the columns in `expressions` as given, every other one its model default."""
    from django.db import connection

    columns, values = [], []
    for field in model._meta.concrete_fields:
        if field.primary_key and not with_pk:
            continue
        columns.append(connection.ops.quote_name(field.column))
        if field.name in expressions or field.attname in expressions:
            values.append(expressions.get(field.name) or expressions[field.attname])
        else:
            key = f"default_{model._meta.model_name}_{field.attname}"
            params[key] = field.get_db_prep_save(field.get_default(), connection)
            values.append(f"%({key})s")
    table = f"{connection.ops.quote_name(schema)}.{connection.ops.quote_name(model._meta.db_table)}"
    return (
        f"INSERT INTO {table} ({', '.join(columns)}) "
        f"SELECT {', '.join(values)} FROM generate_series(1, %(count)s) AS s(i)"
    )


def insert_profiles(schema: str, count: int) -> dict:
    """`count` active profiles in the site's schema, each with its member (a few of them
    invisible or deleted), in two statements; columns the benchmark does not care about
    get their model default."""
    from django.db import connection, transaction

    from apps.accounts.models import User
    from apps.profiles.models import Profile
    from apps.tenants.regions import regions_for_country

    regions = [[item["code"] for item in regions_for_country(code)] for code in COUNTRIES]
    country_index = _h(2, len(COUNTRIES))
    params: dict = {"count": count, "names": NAMES}
    region_cases = []
    for index, codes in enumerate(regions):
        params[f"regions_{index}"] = codes
        region_cases.append(f"WHEN {index} THEN (%(regions_{index})s::text[])[1 + {_h(3, len(codes))}]")
    params["countries"] = COUNTRIES
    quote = connection.ops.quote_name
    users_table = f"{quote(schema)}.{quote(User._meta.db_table)}"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {users_table}")
        base = cursor.fetchone()[0]
    params["base"] = base
    users = _insert_select(
        User, schema, {
            "id": "%(base)s + s.i",
            "username": "'bench-member-' || s.i",
            "email": "'member' || s.i || '@search.bench.localhost'",
            "password": "'!'",
            "invisible": f"{_h(8, 1000)} < {INVISIBLE_PER_MILLE}",
            "status": f"CASE WHEN {_h(9, 1000)} < {DELETED_PER_MILLE} THEN 'deleted' ELSE 'active' END",
        }, params, with_pk=True,
    )  # fmt: skip
    profiles = _insert_select(
        Profile, schema, {
            "name": f"(%(names)s::text[])[1 + {_h(1, len(NAMES))}]",
            "country": f"(%(countries)s::text[])[1 + {country_index}]",
            "region": f"CASE {country_index} {' '.join(region_cases)} END",
            "city": "''",
            "date_of_birth": f"current_date - (18 * 365 + {_h(4, 55 * 365)})::int",
            "gender": f"CASE {_h(5, 2)} WHEN 0 THEN 'female' ELSE 'male' END",
            "sexuality": f"CASE WHEN {_h(6, 10)} < 8 THEN 'hetero' ELSE 'bi' END",
            "status": "'active'",
            "created": f"now() - make_interval(secs => {_h(7, 2 * 365 * 86400)})",
            "updated": "now()",
            "user_id": "%(base)s + s.i",
            "main_photo_id": "NULL",
        }, params,
    )  # fmt: skip
    table = f"{quote(schema)}.{quote(Profile._meta.db_table)}"
    started = time.perf_counter()
    # The commit is synchronous: VACUUM marks a page all-visible (which index-only scans,
    # the counts', rely on, as on a table autovacuum has seen) only once the commit that
    # wrote its rows is on disk; after an asynchronous commit it left most pages unmarked.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
        cursor.execute(users, params)
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence(%s, 'id'), (SELECT MAX(id) FROM {users_table}))",
            [users_table],
        )
        cursor.execute(profiles, params)
        inserted = cursor.rowcount
    insert_seconds = time.perf_counter() - started
    t0 = time.perf_counter()
    with connection.cursor() as cursor:  # autocommit: VACUUM cannot run in a transaction
        cursor.execute(f"VACUUM ANALYZE {users_table}")
        cursor.execute(f"VACUUM ANALYZE {table}")
        cursor.execute("SELECT relpages, relallvisible FROM pg_class WHERE oid = %s::regclass", [table])
        pages, visible = cursor.fetchone()
    vacuum_seconds = time.perf_counter() - t0
    if inserted != count:
        raise BenchError(f"inserted {inserted:,} profiles, not {count:,}")
    return {
        "profiles": inserted,
        "insert_seconds": round(insert_seconds, 1),
        "vacuum_seconds": round(vacuum_seconds, 1),
        "pages": pages,
        "pages_all_visible": visible,
    }


# --- Measurements -------------------------------------------------------------------


def _client_headers(cookie: str | None) -> dict:
    return {"Host": DOMAIN, "Accept-Language": "en", **({"Cookie": cookie} if cookie else {})}


def follow_cursors(base_url: str, pages: int, cookie: str | None = None) -> tuple[str, list[int]]:
    """Page 1, then `next` until page `pages`; returns that page's path and the ids
    seen, which must never repeat."""
    import httpx

    path = search_path()
    seen: set[int] = set()
    with httpx.Client(base_url=base_url, headers=_client_headers(cookie), timeout=30) as client:
        for page in range(1, pages + 1):
            response = client.get(path)
            if response.status_code != 200:
                raise BenchError(f"search page {page} answered {response.status_code}: {response.text[:300]}")
            data = response.json()
            ids = [item["id"] for item in data["results"]]
            if seen.intersection(ids):
                raise BenchError(f"search page {page} repeats profiles of earlier pages")
            seen.update(ids)
            if page == pages:
                return path, ids
            if not data["has_more"] or not data["next"]:
                raise BenchError(f"the search ended at page {page}, before page {pages}")
            path = search_path(cursor=data["next"])
    raise BenchError("no pages")


def latencies(base_url: str, paths: dict[str, str], samples: int, cookie: str | None = None) -> dict[str, list[float]]:
    """Each path `samples` times, one request at a time, alternating, after 5 warm-ups each."""
    import httpx

    timings: dict[str, list[float]] = {name: [] for name in paths}
    with httpx.Client(base_url=base_url, headers=_client_headers(cookie), timeout=30) as client:
        for round_number in range(samples + 5):
            for name, path in paths.items():
                started = time.perf_counter()
                response = client.get(path)
                elapsed = time.perf_counter() - started
                if response.status_code != 200 or '"results"' not in response.text:
                    raise BenchError(f"{name} answered {response.status_code}: {response.text[:300]}")
                if round_number >= 5:
                    timings[name].append(elapsed)
    return timings


def explain(schema: str) -> str:
    """The plan of the first page's query, for the JSON (which index it uses)."""
    from django.contrib.auth.models import AnonymousUser
    from django.db import connection

    from apps.profiles.search import PAGE_SIZE, page_sql, search_params_parse
    from apps.tenants.models import Site

    site = Site.objects.get(schema_name=schema)
    connection.set_tenant(site)
    try:
        search = search_params_parse(site=site, viewer=AnonymousUser(), params=SEARCH_QUERY)
        sql, params = page_sql(search.filters, limit=PAGE_SIZE + 1)
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN {sql}", params)
            return "\n".join(row[0] for row in cursor.fetchall())
    finally:
        connection.set_schema_to_public()


def _cpu(report: dict) -> str:
    """ ", 4.20 ms CPU": the server's CPU per request beside a req/s figure."""
    cpu = report["server_cpu_ms_per_request_median"]
    return f", {cpu:.2f} ms CPU" if cpu else ""


def member_cookie(site) -> str:
    """The Cookie header of one member of the search site with a session."""
    from django.conf import settings
    from django.db import connection

    from apps.profiles.models import Gender
    from bench.common import members_with_sessions

    connection.set_tenant(site)
    try:
        _users, _profiles, sessions = members_with_sessions(
            count=1, prefix="searcher", email_domain="search.bench.localhost", credits=1,
            gender=lambda n: Gender.MALE,
        )  # fmt: skip
    finally:
        connection.set_schema_to_public()
    return f"{settings.SESSION_COOKIE_NAME}={sessions[0]}"


def _vs_pk(row: Result, pk: dict, measured: dict, label: str) -> float:
    """Fill `row` with `measured`'s req/s against the pk view's (best rounds); the ratio."""
    ratio = measured["rps_best"] / pk["rps_best"]
    row.baseline, row.baseline_label = pk["rps_best"], f"{pk['rps_best']:.0f} (pk view{_cpu(pk)})"
    row.measured, row.measured_label = measured["rps_best"], f"{measured['rps_best']:.0f} ({label}{_cpu(measured)})"
    row.ratio = ratio
    return ratio


def run(options) -> list[Result]:
    """Six rows: the request cycle's CPU (pk view through the site's stack against the
    same handler with no middleware), visitors' search throughput against the pk view with
    the shared page hit and missed, members' search (never shared) against the pk view,
    a member's pk view against the pk view (the floor of any member request), deep page
    against page 1 as a member."""
    from django.db import connection
    from django.urls import NoReverseMatch, reverse

    from apps.tenants.services import site_create
    from bench.bench_urls import BENCH_PK

    cycle = Result(name=NAME, title=CYCLE_TITLE, goal=f"<= {CYCLE_GOAL}")
    rps = Result(name=NAME, title=RPS_TITLE, goal=f">= {MEMBER_GOAL}")
    miss = Result(name=NAME, title=MISS_TITLE, goal="reported")
    member = Result(name=NAME, title=MEMBER_TITLE, goal=f">= {MEMBER_GOAL}")
    floor = Result(name=NAME, title=FLOOR_TITLE, goal="reported")
    depth = Result(
        name=NAME, title=DEPTH_TITLE.format(page=options.deep_page), goal=f"<= {DEPTH_GOAL}", ratio_format="{:.2f}"
    )
    try:
        reverse("api-search")
    except NoReverseMatch:
        raise BenchError("GET /api/search.php (route api-search) does not exist yet") from None
    if options.profiles < BENCH_PK:
        raise BenchError(f"--profiles must be at least {BENCH_PK:,} (the pk view reads profile {BENCH_PK})")

    connection.set_schema_to_public()
    site = site_create(
        name=SITE_NAME, domain=DOMAIN, countries=COUNTRIES, languages=["en"], domain_language="en",
        logged_out_search=True, support_email="support@search.bench.localhost",
    )  # fmt: skip
    log(f"  inserting {options.profiles:,} profiles into {site.schema_name}")
    data = insert_profiles(site.schema_name, options.profiles)
    log(
        f"  {data['profiles']:,} profiles in {data['insert_seconds']:.1f} s, "
        f"VACUUM ANALYZE {data['vacuum_seconds']:.1f} s ({data['pages_all_visible']:,} of {data['pages']:,} pages "
        "all-visible)"
    )
    if data["insert_seconds"] + data["vacuum_seconds"] > INSERT_BUDGET:
        raise BenchError(f"loading the profiles took more than {INSERT_BUDGET:.0f} s")
    plan = explain(site.schema_name)
    cookie = member_cookie(site)

    requests = max(1, options.requests // options.rounds)
    total = options.warmup + requests * options.rounds
    # Visitors' searches never asked twice in the run (the shared page is always missed), and
    # a member's varied searches, pages 1 and 2 of each (the second from the first's cursor).
    visitor_plan = search_plan(varied_queries(total, seed=17))
    visitor_unique = len({item["path"] for item in visitor_plan})
    member_plan = search_plan(varied_queries(total, seed=29, pages=2), cookie=cookie)
    server = uvicorn_server(
        DOMAIN, '"profile"', path=PK_PATH, settings_module=SETTINGS_MODULE, app="bench.asgi:application",
        env={"BENCH_PLAIN_SCHEMA": site.schema_name},
    )  # fmt: skip
    with server as (base_url, pid):
        loads = {}
        for label, path, expect, load_plan in (
            ("plain view", PLAIN_PATH, '"profile"', None),
            ("pk view", PK_PATH, '"profile"', None),
            ("search", search_path(), '"results"', None),
            ("search, every query new", search_path(), '"results"', visitor_plan),
            ("member search", search_path(), '"results"', member_plan),
            ("member pk view", MEMBER_PK_PATH, '"member"', None),
        ):
            report = run_loadgen(
                base_url, DOMAIN, expect, path=path, requests=requests, warmup=options.warmup,
                concurrency=options.concurrency, rounds=options.rounds, server_pid=pid, plan=load_plan,
                cookie=cookie if path == MEMBER_PK_PATH else None,
            )  # fmt: skip
            loads[label] = report
            cpu = report["server_cpu_ms_per_request_median"]
            rounds = ", ".join(f"{item['rps']:.0f}" for item in report["rounds"])
            log(
                f"  {label}: best {report['rps_best']:.0f} req/s (rounds {rounds})"
                + (f", server CPU {cpu:.2f} ms/request" if cpu is not None else "")
            )

        t0 = time.perf_counter()
        deep_path, deep_ids = follow_cursors(base_url, options.deep_page, cookie=cookie)
        follow_seconds = time.perf_counter() - t0
        log(f"  followed `next` to page {options.deep_page} as a member in {follow_seconds:.1f} s")
        paths = {"page 1": search_path(), f"page {options.deep_page} (cursor)": deep_path}
        paths[f"page={options.deep_page}"] = search_path(page=options.deep_page)
        timings = latencies(base_url, paths, options.latency_samples, cookie=cookie)

    plain, pk, search = loads["plain view"], loads["pk view"], loads["search"]
    missed, by_member = loads["search, every query new"], loads["member search"]
    rps_ratio = _vs_pk(rps, pk, search, "search")
    rps.goal_met = rps_ratio >= MEMBER_GOAL
    _vs_pk(miss, pk, missed, "search")
    member_ratio = _vs_pk(member, pk, by_member, "member search")
    member.goal_met = member_ratio >= MEMBER_GOAL
    cpu_pk, cpu_search = pk["server_cpu_ms_per_request_median"], search["server_cpu_ms_per_request_median"]
    cpu_miss, cpu_member = missed["server_cpu_ms_per_request_median"], by_member["server_cpu_ms_per_request_median"]
    miss.notes.append(
        f"{visitor_unique:,} different visitors' searches for {total:,} requests (country, gender, ages, now and then "
        "a region; page 1): each one the first of its kind, so the shared page is made and stored every time"
        + (
            f"; server CPU {cpu_miss:.2f} ms/request against {cpu_search:.2f} on a hit"
            if cpu_miss and cpu_search
            else ""
        )
    )
    member.notes.append(
        "a logged-in member's searches (a man in GB; the query sets what differs from his defaults): "
        f"{total // 2:,} sets of filters, pages 1 and 2 of each; the page is made afresh for every request "
        "(session, own profile, blocks), only the count and the next page's cursor come from the cache"
        + (f"; server CPU {cpu_member:.2f} vs {cpu_pk:.2f} ms/request (pk view)" if cpu_member and cpu_pk else "")
    )
    # What any member request costs before it does its own work: the floor under the row above.
    by_member_pk = loads["member pk view"]
    _vs_pk(floor, pk, by_member_pk, "member pk view")
    floor.notes.append(
        f"{MEMBER_PK_PATH}: the pk view's read for the same member (the session and the account read first, as on "
        f"every member request); member search against it: {by_member['rps_best'] / by_member_pk['rps_best']:.2f}"
    )
    cpu_plain = plain["server_cpu_ms_per_request_median"]
    if cpu_plain and cpu_pk:
        cpu_ratio = cpu_pk / cpu_plain
        cycle.baseline, cycle.baseline_label = cpu_plain, f"{cpu_plain:.2f} (no middleware)"
        cycle.measured = cpu_pk
        cycle.measured_label = f"{cycle.measured:.2f} (site stack)"
        cycle.ratio, cycle.goal_met = cpu_ratio, cpu_ratio <= CYCLE_GOAL
    cycle.notes.append(
        f"server CPU per request, median of {options.rounds} rounds, same server: {PK_PATH} through the site's "
        f"whole stack (page cache wrapper, every middleware) vs {PLAIN_PATH} through the same SiteASGIHandler with "
        f"an empty middleware list (bench/asgi.py), both one primary-key read; req/s best {pk['rps_best']:.0f} "
        f"vs {plain['rps_best']:.0f}"
    )
    medians = {name: median(values) * 1000 for name, values in timings.items()}
    first = medians["page 1"]
    deep = medians[f"page {options.deep_page} (cursor)"]
    depth_ratio = deep / first
    depth.baseline, depth.baseline_label = first, f"{first:.1f} (page 1)"
    depth.measured, depth.measured_label = deep, f"{deep:.1f} (page {options.deep_page})"
    depth.ratio, depth.goal_met = depth_ratio, depth_ratio <= DEPTH_GOAL
    rps.notes.append(
        f"{data['profiles']:,} profiles ({len(COUNTRIES)} countries) inserted in {data['insert_seconds']:.0f} s "
        f"(one INSERT ... SELECT), VACUUM ANALYZE {data['vacuum_seconds']:.0f} s ({data['pages_all_visible']:,} of "
        f"{data['pages']:,} pages all-visible); query {urlencode(SEARCH_QUERY)} "
        f"as a visitor, {search['rounds'][0]['requests']:,} requests x {options.rounds} rounds, "
        f"{options.concurrency} in flight; all but the first of every 30 s are the shared page"
    )
    rps.notes.append(
        f"req/s median of rounds {search['rps_median']:.0f} (search) vs {pk['rps_median']:.0f} (pk view)"
        + (
            f"; server CPU {cpu_search:.2f} vs {cpu_pk:.2f} ms/request (pk/search {cpu_pk / cpu_search:.2f}, "
            "steadier than req/s on a busy machine)"
            if cpu_pk and cpu_search
            else ""
        )
    )
    depth.notes.append(
        f"as the member, medians of {options.latency_samples} requests each, one at a time, alternating; page "
        f"{options.deep_page} reached by following `next` ({follow_seconds:.1f} s for {options.deep_page} pages); "
        f"page={options.deep_page} without a cursor: {medians[f'page={options.deep_page}']:.1f} ms"
    )
    details = {
        "plain_view": plain,
        "member_search": by_member,
        "visitor_search_every_query_new": missed,
        "profiles": data,
        "query": SEARCH_QUERY,
        "pk_view": pk,
        "search": search,
        "rps_ratio": round(rps_ratio, 3),
        "member_ratio": round(member_ratio, 3),
        "member_pk_view": by_member_pk,
        "deep_page": options.deep_page,
        "latency_ms_median": {name: round(value, 2) for name, value in medians.items()},
        "latency_ms_all": {name: [round(v * 1000, 2) for v in values] for name, values in timings.items()},
        "depth_ratio": round(depth_ratio, 3),
        "follow_cursors_seconds": round(follow_seconds, 1),
        "deep_page_ids": deep_ids[:5],
        "first_page_plan": plan,
    }
    for row in (cycle, rps, miss, member, floor, depth):
        row.details = details
    return [cycle, rps, miss, member, floor, depth]
