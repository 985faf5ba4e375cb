"""Benchmark "a lander with 1,000 sites vs 1 site", and what a phone downloads for it.

Requests per second and server CPU per request of GET /landers/gallery/bench (the photo
gallery lander with a campaign slug, the page paid traffic lands on) on one site with 24
demo profiles, served by one uvicorn worker in a subprocess and loaded by bench.loadgen
(keep-alive, fixed concurrency, no cookies kept: every request is a first visit, so each
answer also sets the tracking cookie). First with that site alone (the baseline), then
with --sites sites in all (bench.many_sites, as for the landing page). As there, the
identical first visits are the page cache's hits (one row), the realistic mix is sent to
the one site and then spread over every site and its languages (one row, goal >= 0.9),
and with --sites sites the measured site's lander is rendered for first visits each with a
campaign label not asked for before (the miss path) and for paid arrivals with the
tracking query string (the redirect and the page from the cache once stored): their
server CPU against a hit's (goal 4 and 1 ms).

Then the bytes a first visit transfers, gzip-compressed as a server or CDN sends text
(level 6; JPEG as it is): the HTML, the stylesheet and the images of the first screen
(those not marked loading="lazy"), without and with the module scripts (the base entry,
the islands and every chunk they preload). Its goal: the page already offers its signup
as a plain link without any script, read from the page's HTML.
"""

from __future__ import annotations

import gzip
import re

from bench.common import ROOT, BenchError, Result, log
from bench.many_sites import (
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
)

NAME = "landers"
MEASURED_DOMAIN = "landers.bench.localhost"
MEASURED_NAME = "Bench Lander Site"
LANDER_PATH = "/landers/gallery/bench"
PROFILES = 24


LANDER_FAMILY = "/landers/gallery/"


def title(sites: int) -> str:
    return f"lander req/s, one host, first visits (cache hits): {sites:,} sites vs 1 site"


def mix_title(sites: int) -> str:
    return f"lander req/s, realistic mix (hits and misses): {sites:,} sites spread vs 1 site"


RENDER_TITLE = "lander server CPU (ms): render (cache miss, new campaign label) vs cache hit"
PAID_TITLE = "lander paid arrival CPU (ms, ?t=&network=&sub1=: redirect + page, from the cache) vs hit"


def _gzip_size(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=6))


def page_weight(base_url: str) -> dict:
    """The first visit's bytes of the lander, without and with its module scripts."""
    import httpx

    with httpx.Client(base_url=base_url, headers={"Host": MEASURED_DOMAIN}, timeout=30) as client:
        response = client.get(LANDER_PATH)
        if response.status_code != 200:
            raise BenchError(f"{LANDER_PATH} answered {response.status_code}")
        html = response.text
        signup_link = bool(re.search(r'<a [^>]*href="/signup"[^>]*data-signup-modal', html))
        css = re.findall(r'<link rel="stylesheet" href="([^"]+)"', html)
        scripts = re.findall(r'<script type="module" src="([^"]+)"', html)
        preloads = re.findall(r'<link rel="modulepreload" href="([^"]+)"', html)
        images = [tag for tag in re.findall(r"<img [^>]*>", html) if 'loading="lazy"' not in tag]
        image_urls = [re.search(r'src="([^"]+)"', tag).group(1) for tag in images]

        def static_bytes(url: str) -> bytes:
            # The built assets are files under static/ (a CDN or whitenoise serves them).
            path = ROOT / "static" / url.removeprefix("/static/")
            if not path.is_file():
                raise BenchError(f"{url} is not built (npm run build)")
            return path.read_bytes()

        html_bytes = _gzip_size(response.content)
        css_bytes = sum(_gzip_size(static_bytes(url)) for url in css)
        image_bytes = 0
        for url in image_urls:
            answer = client.get(url)
            if answer.status_code != 200:
                raise BenchError(f"{url} answered {answer.status_code}")
            image_bytes += len(answer.content)
        script_urls = sorted(set(scripts) | set(preloads))
        script_bytes = sum(_gzip_size(static_bytes(url)) for url in script_urls)
    without = html_bytes + css_bytes + image_bytes
    return {
        "html_gzip": html_bytes,
        "css_gzip": css_bytes,
        "first_screen_images": len(image_urls),
        "first_screen_image_bytes": image_bytes,
        "lazy_images": html.count('loading="lazy"'),
        "scripts": len(script_urls),
        "scripts_gzip": script_bytes,
        "without_scripts": without,
        "with_scripts": without + script_bytes,
        "signup_link_without_scripts": signup_link,
    }


def run(options) -> list[Result]:
    from django.db import connection

    from apps.profiles.services.demo import demo_profiles_seed

    target = options.sites
    result = Result(name=NAME, title=title(target), goal=RPS_GOAL)
    if target < 2:
        raise BenchError("--sites must be at least 2")
    site = measured_site_alone(name=MEASURED_NAME, domain=MEASURED_DOMAIN, countries=["GB", "IE"])
    made = demo_profiles_seed(site=site, count=PROFILES, seed=11)
    connection.set_schema_to_public()
    log(f"  {MEASURED_DOMAIN}: {made} demo profiles")
    page = {"domain": MEASURED_DOMAIN, "name": MEASURED_NAME, "path": LANDER_PATH}

    count = plan_requests(options)
    alone = bench_sites(MEASURED_DOMAIN)
    log(f"  measuring GET {LANDER_PATH} with 1 site ({options.requests:,} requests after {options.warmup} warm-up)")
    one = measure(
        "1 site", options, **page, check=page_weight, phases=[("mix", mix_plan(alone, count, path=LANDER_PATH, seed=5))]
    )
    weight = one.pop("check")
    log(
        f"  first visit: {weight['without_scripts'] / 1024:.1f} KB without scripts, "
        f"{weight['with_scripts'] / 1024:.1f} KB with its {weight['scripts']} module scripts"
    )

    creation = grow_to(target, options)

    log(f"  measuring GET {LANDER_PATH} with {target:,} sites")
    phases = [
        ("mix", mix_plan(bench_sites(), count, path=LANDER_PATH, seed=5)),
        # The measured site (its 24 profiles): a campaign label per request, never one asked before.
        ("render", first_visits(alone, count, path=lambda number: f"{LANDER_FAMILY}c{number:06d}")),
        ("paid", paid_plan(alone, count, path=LANDER_PATH)),
    ]
    many = measure(f"{target:,} sites", options, **page, phases=phases)

    rps_ratio(result, one, many, target)
    mix = Result(name=NAME, title=mix_title(target))
    mix_row(mix, one["phases"]["mix"], many["phases"]["mix"], target)
    render = Result(name=NAME, title=RENDER_TITLE)
    cpu_row(render, hit=many, measured=many["phases"]["render"], label="render", goal_ms=RENDER_MS_GOAL)
    render.notes.append(
        f"render: {count:,} first visits of {MEASURED_DOMAIN}'s gallery lander, each with a campaign label not asked "
        "for before, over its languages and visitors' countries: lookup, render, and a store until the site's caps"
    )
    paid = Result(name=NAME, title=PAID_TITLE)
    cpu_row(paid, hit=many, measured=many["phases"]["paid"], label="paid arrival", goal_ms=PAID_MS_GOAL)

    bytes_row = Result(
        name=NAME,
        title="lander first visit, KB (gzip)",
        baseline=weight["without_scripts"] / 1024,
        baseline_label=f"{weight['without_scripts'] / 1024:.1f} (no scripts)",
        measured=weight["with_scripts"] / 1024,
        measured_label=f"{weight['with_scripts'] / 1024:.1f} (with scripts)",
        ratio=weight["with_scripts"] / weight["without_scripts"],
        goal="signup link without scripts",
        # Graded by what the page holds: its signup as a plain link, before any script runs.
        goal_met=weight["signup_link_without_scripts"],
    )
    bytes_row.notes.append(
        f"HTML {weight['html_gzip'] / 1024:.1f} KB, CSS {weight['css_gzip'] / 1024:.1f} KB, "
        f"{weight['first_screen_images']} first-screen thumbnails {weight['first_screen_image_bytes'] / 1024:.1f} KB "
        f"({weight['lazy_images']} more load lazily), {weight['scripts']} module scripts "
        f"{weight['scripts_gzip'] / 1024:.1f} KB"
    )
    result.details = {
        "path": LANDER_PATH,
        "sites": target,
        "requests": options.requests,
        "rounds": options.rounds,
        "warmup": options.warmup,
        "concurrency": options.concurrency,
        "one_site": one,
        "many_sites": many,
        "site_creation": {key: value for key, value in creation.items() if key != "clone"},
        "page_weight": weight,
    }
    for row in (mix, render, paid):
        row.details = {"see": f"{NAME}[0]"}
    return [result, mix, render, paid, bytes_row]
