"""Benchmark "JS per page (gzip): every script a page fetches on load vs React 19's own minimum island".

Every page type that has islands is opened in Chromium (Playwright, Debian's chromium) on
one bench site (`js.bench.localhost`, 24 demo profiles, one member with a session and a
conversation) served by a uvicorn worker, as a first-time visitor or logged in as that
member: home, search, profile, likes, chats, a chat, the swipe game, the match finder,
credits, checkout, signup and every lander. A page's JS is every script the browser
fetched from the moment it asked for the page until the network was idle (Playwright's
response events: module scripts, module preloads, and the chunks the page's code imports
with `import()` on its own, such as the member's code and the chat's live connection),
each compressed as production serves it (whitenoise's collectstatic writes `.gz` at gzip
level 9, and `.br` with brotli's default quality when brotli is installed, as it is here).
Chunks loaded only on an interaction are not in it. The module tags of the page's HTML
alone are given beside, for comparison with earlier runs.

The baseline is built in the same run: a minimal React 19 island (createRoot and render of
one small component) bundled by bench/js_baseline.mjs with the project's own esbuild options
and react/react-dom, gzipped the same way. Goal: heaviest member page / baseline <= 1.3, and
the same for visitors' pages.

The built assets must be a production build (`npm run build`, which `make bench` runs); a
watch build (not minified) makes the benchmark fail rather than report its sizes.
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from bench.common import ROOT, BenchError, Result, log

NAME = "js"
TITLE = "JS per member page on load (all scripts until network idle), KB gzip: heaviest vs React island"
VISITOR_TITLE = "JS per visitor page on load (all scripts until network idle), KB gzip: heaviest vs React island"
# The browser gives a page this long to reach network idle; past it the bench fails.
LOAD_TIMEOUT_MS = 60_000
DOMAIN = "js.bench.localhost"
SITE_NAME = "Bench JS Site"
GOAL = 1.3
PROFILES = 24

SCRIPT_RE = re.compile(r"<script\b[^>]*>", re.IGNORECASE)
LINK_RE = re.compile(r"<link\b[^>]*>", re.IGNORECASE)
ATTR_RE = re.compile(r'([a-zA-Z:-]+)(?:="([^"]*)")?')


def gzip_size(data: bytes) -> int:
    """Bytes of `data` as whitenoise's collectstatic compresses it (gzip level 9)."""
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def brotli_size(data: bytes) -> int | None:
    try:
        import brotli
    except ImportError:
        return None
    return len(brotli.compress(data))


def attributes(tag: str) -> dict[str, str]:
    inner = tag.strip("<>/").split(None, 1)
    return {name.lower(): value or "" for name, value in ATTR_RE.findall(inner[1] if len(inner) > 1 else "")}


def page_scripts(html: str) -> list[str]:
    """The URLs of the module scripts and module preloads of a page, in order, once each.
    Any other external script fails the benchmark (every script of the site is a module)."""
    urls: list[str] = []
    for tag in SCRIPT_RE.findall(html):
        attrs = attributes(tag)
        if "src" not in attrs:
            continue  # JSON data (props, app state) and nothing else: no inline scripts (CSP)
        if attrs.get("type") != "module":
            raise BenchError(f"a script that is not a module: {tag}")
        urls.append(attrs["src"])
    for tag in LINK_RE.findall(html):
        attrs = attributes(tag)
        if attrs.get("rel") == "modulepreload":
            urls.append(attrs["href"])
    return list(dict.fromkeys(urls))


def static_file(url: str) -> Path:
    from django.conf import settings

    if not url.startswith(settings.STATIC_URL):
        raise BenchError(f"{url} is not a static file")
    path = ROOT / "static" / url.removeprefix(settings.STATIC_URL)
    if not path.is_file():
        raise BenchError(f"{url} is not built (npm run build)")
    return path


def check_production_build() -> dict:
    """The manifest of a minified build; a watch build keeps esbuild's `// path` comments."""
    import json

    manifest_path = ROOT / "static" / "dist" / "manifest.json"
    if not manifest_path.is_file():
        raise BenchError("static/dist/manifest.json is missing: run `npm run build` (make bench does)")
    manifest = json.loads(manifest_path.read_text())
    base = (ROOT / "static" / "dist" / manifest["base"]["file"]).read_text()
    if "\n// static_src/" in base or "\n// node_modules/" in base:
        raise BenchError("static/dist holds a watch build (not minified): run `npm run build`")
    return manifest


def baseline() -> dict:
    """React 19's minimum island, built now by bench/js_baseline.mjs."""
    with tempfile.TemporaryDirectory(prefix="bench-js-") as tmp:
        completed = subprocess.run(
            ["node", str(ROOT / "bench" / "js_baseline.mjs"), tmp],
            cwd=ROOT, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        if completed.returncode != 0:
            raise BenchError(f"the baseline island did not build: {completed.stderr.strip()[-2000:]}")
        files = sorted((Path(tmp) / "dist").rglob("*.js"))
        if not files:
            raise BenchError("the baseline build wrote no .js file")
        data = [path.read_bytes() for path in files]
        return {
            "files": [path.name for path in files],
            "raw": sum(len(item) for item in data),
            "gzip": sum(gzip_size(item) for item in data),
            "brotli": sum(brotli_size(item) or 0 for item in data) or None,
        }


def make_site() -> dict:
    """The bench site with demo profiles and one member (session, credits, a conversation)."""
    from django.db import connection
    from django_tenants.utils import tenant_context

    from apps.chat.services import conversation_open
    from apps.payments.models import CreditPackage
    from apps.profiles.services.demo import demo_profiles, demo_profiles_seed
    from bench.common import members_with_sessions
    from bench.many_sites import measured_site_alone

    site = measured_site_alone(name=SITE_NAME, domain=DOMAIN, countries=["GB", "IE"])
    demo_profiles_seed(site=site, count=PROFILES, seed=5)
    with tenant_context(site):
        users, _profiles, sessions = members_with_sessions(
            count=1, prefix="jsmember", email_domain=DOMAIN, credits=100, gender=lambda n: "male"
        )
        other = demo_profiles(site).order_by("pk").first()
        conversation = conversation_open(user=users[0], profile_id=other.pk)
    connection.set_schema_to_public()
    package = CreditPackage.objects.filter(site=site).order_by("pk").first()
    return {
        "session": sessions[0],
        "profile_id": other.pk,
        "conversation_id": conversation.pk,
        "package_id": package.pk if package else None,
    }


def pages(data: dict) -> list[tuple[str, str, bool]]:
    """(label, path, as the member) of every page type with islands."""
    from apps.landers.keys import GENERIC_LANDERS

    member = [
        ("home (member)", "/", True),
        ("search", "/members", True),
        ("profile", f"/members/{data['profile_id']}", True),
        ("likes", "/likes", True),
        ("chats", "/chats", True),
        ("chat", f"/chats/{data['conversation_id']}", True),
        ("swipe game", "/swipe-game", True),
        ("match finder", "/match-finder", True),
        ("credits", "/credits", True),
    ]
    if data["package_id"]:
        member.append(("checkout", f"/credits/{data['package_id']}", True))
    visitor = [
        ("home (visitor)", "/", False),
        ("profile (visitor)", f"/members/{data['profile_id']}", False),
        ("signup", "/signup", False),
        ("lander tinderswipe", "/landers/tinderswipe", False),
        ("lander member", f"/members/{data['profile_id']}/landing", False),
        *((f"lander {name}", f"/landers/{name}", False) for name in GENERIC_LANDERS),
    ]
    return member + visitor


def html_scripts(data: dict) -> dict[str, list[str]]:
    """Each page's module tags and preloads as its HTML names them, by label (rendered by
    the Django test client; every page must answer 200 and hold an island)."""
    from django.conf import settings
    from django.db import connection
    from django.test import Client

    visitor = Client(HTTP_HOST=DOMAIN)
    member = Client(HTTP_HOST=DOMAIN)
    member.cookies[settings.SESSION_COOKIE_NAME] = data["session"]
    found = {}
    for label, path, as_member in pages(data):
        response = (member if as_member else visitor).get(path)
        connection.set_schema_to_public()
        if response.status_code != 200:
            location = response.headers.get("Location", "")
            raise BenchError(f"{label}: GET {path} answered {response.status_code} {location}".rstrip())
        html = response.content.decode()
        if not re.search(r'data-island="[A-Za-z0-9]+"', html):
            raise BenchError(f"{label}: GET {path} has no island")
        found[label] = page_scripts(html)
    return found


def fetched_scripts(base_url: str, data: dict) -> dict[str, dict]:
    """Each page opened in Chromium: the static scripts it fetched until the network was
    idle, in order, and its islands, by label. Member pages in a context with the member's
    session cookie, visitors' in a fresh context each."""
    from urllib.parse import urlsplit

    from django.conf import settings
    from playwright.sync_api import sync_playwright

    port = urlsplit(base_url).port
    executable = shutil.which("chromium") or "/usr/bin/chromium"
    args = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
            "--host-resolver-rules=MAP *.localhost 127.0.0.1"]  # fmt: skip
    found = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=args, headless=True)
        try:
            for label, path, as_member in pages(data):
                context = browser.new_context(locale="en-US")
                if as_member:
                    context.add_cookies([{
                        "name": settings.SESSION_COOKIE_NAME, "value": data["session"],
                        "domain": DOMAIN, "path": "/",
                    }])  # fmt: skip
                page = context.new_page()
                scripts: list[str] = []
                failed: list[str] = []

                def seen(response, scripts=scripts, failed=failed):
                    if response.request.resource_type != "script":
                        return
                    if response.status != 200:
                        failed.append(f"{response.status} {response.url}")
                    scripts.append(urlsplit(response.url).path)

                page.on("response", seen)
                started = time.perf_counter()
                answer = page.goto(f"http://{DOMAIN}:{port}{path}", wait_until="networkidle", timeout=LOAD_TIMEOUT_MS)
                seconds = time.perf_counter() - started
                if answer is None or answer.status != 200 or urlsplit(page.url).path != path:
                    raise BenchError(
                        f"{label}: {path} opened as {page.url} ({answer.status if answer else 'no answer'})"
                    )
                if failed:
                    raise BenchError(f"{label}: scripts that did not load: {', '.join(failed)}")
                islands = sorted(
                    set(page.eval_on_selector_all("[data-island]", "els => els.map(e => e.dataset.island)"))
                )
                context.close()
                found[label] = {"urls": list(dict.fromkeys(scripts)), "islands": islands, "seconds": round(seconds, 2)}
        finally:
            browser.close()
    return found


def measure_pages(data: dict, base_url: str) -> list[dict]:
    """A row per page: what the browser fetched, its sizes, and the HTML's module tags."""
    in_html = html_scripts(data)
    loaded = fetched_scripts(base_url, data)
    rows = []
    sizes: dict[str, tuple[int, int, int | None]] = {}

    def size(url: str) -> tuple[int, int, int | None]:
        if url not in sizes:
            content = static_file(url).read_bytes()
            sizes[url] = (len(content), gzip_size(content), brotli_size(content))
        return sizes[url]

    for label, path, as_member in pages(data):
        urls = loaded[label]["urls"]
        if not urls:
            raise BenchError(f"{label}: {path} fetched no script")
        rows.append(
            {
                "page": label,
                "path": path,
                "member": as_member,
                "islands": loaded[label]["islands"],
                "files": len(urls),
                "raw": sum(size(url)[0] for url in urls),
                "gzip": sum(size(url)[1] for url in urls),
                "brotli": sum(size(url)[2] or 0 for url in urls) or None,
                "html_files": len(in_html[label]),
                "html_gzip": sum(size(url)[1] for url in in_html[label]),
                "urls": urls,
                "not_in_html": [url for url in urls if url not in in_html[label]],
                "load_seconds": loaded[label]["seconds"],
            }
        )
    return rows


def table(rows: list[dict], base: dict) -> str:
    lines = [
        f"  {'page':<30} {'files':>5} {'KB raw':>8} {'KB gzip':>8} {'KB br':>7} {'x base':>6} "
        f"{'HTML tags only':>15}  islands"
    ]
    baseline_row = {**base, "page": "baseline: React island", "files": len(base["files"]), "islands": []}
    for row in [*rows, baseline_row]:
        brotli = f"{row['brotli'] / 1024:7.1f}" if row.get("brotli") else f"{'-':>7}"
        html = f"{row['html_files']} / {row['html_gzip'] / 1024:.1f}" if "html_gzip" in row else "-"
        lines.append(
            f"  {row['page']:<30} {row['files']:>5} {row['raw'] / 1024:8.1f} {row['gzip'] / 1024:8.1f} {brotli} "
            f"{row['gzip'] / base['gzip']:6.2f} {html:>15}  {', '.join(row['islands'])}"
        )
    return "\n".join(lines)


def _heaviest(result: Result, rows: list[dict], base: dict) -> dict:
    heaviest = max(rows, key=lambda row: row["gzip"])
    ratio = heaviest["gzip"] / base["gzip"]
    result.baseline = base["gzip"] / 1024
    result.baseline_label = f"{base['gzip'] / 1024:.1f} (React island)"
    result.measured = heaviest["gzip"] / 1024
    result.measured_label = f"{heaviest['gzip'] / 1024:.1f} ({heaviest['page']})"
    result.ratio = ratio
    result.goal_met = ratio <= GOAL
    lightest = min(rows, key=lambda row: row["gzip"])
    later = ", ".join(url.rsplit("/", 1)[-1] for url in heaviest["not_in_html"]) or "none"
    result.notes.append(
        f"{len(rows)} pages; heaviest {heaviest['page']} {heaviest['gzip'] / 1024:.1f} KB gzip in "
        f"{heaviest['files']} files fetched on load (its HTML's module tags alone: {heaviest['html_files']} files, "
        f"{heaviest['html_gzip'] / 1024:.1f} KB; imported by its code: {later}); lightest {lightest['page']} "
        f"{lightest['gzip'] / 1024:.1f} KB; baseline {base['gzip'] / 1024:.1f} KB gzip, {base['raw'] / 1024:.1f} KB raw"
    )
    return heaviest


def run(options) -> list[Result]:
    from bench.common import uvicorn_server

    # Three decimals: 1.303 is over the goal, and the table must not show it as 1.30.
    result = Result(name=NAME, title=TITLE, goal=f"<= {GOAL}", ratio_format="{:.3f}")
    visitors = Result(name=NAME, title=VISITOR_TITLE, goal=f"<= {GOAL}", ratio_format="{:.3f}")
    if shutil.which("node") is None:
        raise BenchError("node is not installed (the baseline island is built with esbuild)")
    manifest = check_production_build()
    log("  building the baseline: React 19's minimum island")
    base = baseline()
    log(f"  baseline: {base['raw'] / 1024:.1f} KB raw, {base['gzip'] / 1024:.1f} KB gzip")
    data = make_site()
    log("  opening the island pages in Chromium until the network is idle")
    with uvicorn_server(DOMAIN, SITE_NAME) as (base_url, _pid):
        rows = measure_pages(data, base_url)
    print(table(rows, base), flush=True)
    _heaviest(result, [row for row in rows if row["member"]], base)
    _heaviest(visitors, [row for row in rows if not row["member"]], base)
    result.details = visitors.details = {
        "baseline": base,
        "pages": rows,
        "manifest_islands": sorted(manifest["islands"]),
        "compression": "gzip level 9 (whitenoise collectstatic); brotli default quality alongside",
        "measured": "every script response (Playwright) from navigation until network idle",
    }
    return [result, visitors]
