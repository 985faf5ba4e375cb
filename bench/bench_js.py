"""Benchmark "JS per page (gzip): the heaviest island page vs React 19's own minimum island".

Every page type that has islands is rendered by the Django test client on one bench site
(`js.bench.localhost`, 24 demo profiles, one member with a session and a conversation),
as a first-time visitor or as that member: home, search, profile, likes, chats, a chat,
the swipe game, the match finder, credits, checkout, signup and every lander. From each
page's HTML the benchmark takes exactly what is served: every `<script type="module" src>`
and `<link rel="modulepreload" href>`, the files under static/. Their sum, compressed as
production serves them (whitenoise's collectstatic writes `.gz` at gzip level 9, and `.br`
with brotli's default quality when brotli is installed, as it is here), is the page's JS.
Chunks that a page only loads later through `import()` (on an interaction, or when its
markup needs them) are not in it.

The baseline is built in the same run: a minimal React 19 island (createRoot and render of
one small component) bundled by bench/js_baseline.mjs with the project's own esbuild options
and react/react-dom, gzipped the same way. Goal: heaviest page / baseline <= 1.3.

The built assets must be a production build (`npm run build`, which `make bench` runs); a
watch build (not minified) makes the benchmark fail rather than report its sizes.
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from bench.common import ROOT, BenchError, Result, log

NAME = "js"
TITLE = "JS per page, KB gzip: heaviest page vs React island"
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
    from apps.profiles.services.demo import demo_profiles, demo_profiles_seed
    from apps.tenants.models import CreditPackage
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


def measure_pages(data: dict) -> list[dict]:
    from django.conf import settings
    from django.db import connection
    from django.test import Client

    visitor = Client(HTTP_HOST=DOMAIN)
    member = Client(HTTP_HOST=DOMAIN)
    member.cookies[settings.SESSION_COOKIE_NAME] = data["session"]
    rows = []
    sizes: dict[str, tuple[int, int, int | None]] = {}
    for label, path, as_member in pages(data):
        response = (member if as_member else visitor).get(path)
        connection.set_schema_to_public()
        if response.status_code != 200:
            location = response.headers.get("Location", "")
            raise BenchError(f"{label}: GET {path} answered {response.status_code} {location}".rstrip())
        html = response.content.decode()
        urls = page_scripts(html)
        islands = sorted(set(re.findall(r'data-island="([A-Za-z0-9]+)"', html)))
        if not islands:
            raise BenchError(f"{label}: GET {path} has no island")
        for url in urls:
            if url not in sizes:
                content = static_file(url).read_bytes()
                sizes[url] = (len(content), gzip_size(content), brotli_size(content))
        rows.append(
            {
                "page": label,
                "path": path,
                "islands": islands,
                "files": len(urls),
                "raw": sum(sizes[url][0] for url in urls),
                "gzip": sum(sizes[url][1] for url in urls),
                "brotli": sum(sizes[url][2] or 0 for url in urls) or None,
                "urls": urls,
            }
        )
    return rows


def table(rows: list[dict], base: dict) -> str:
    lines = [f"  {'page':<30} {'files':>5} {'KB raw':>8} {'KB gzip':>8} {'KB br':>7} {'x base':>6}  islands"]
    for row in [*rows, {**base, "page": "baseline: React island", "files": len(base["files"]), "islands": []}]:
        brotli = f"{row['brotli'] / 1024:7.1f}" if row.get("brotli") else f"{'-':>7}"
        lines.append(
            f"  {row['page']:<30} {row['files']:>5} {row['raw'] / 1024:8.1f} {row['gzip'] / 1024:8.1f} {brotli} "
            f"{row['gzip'] / base['gzip']:6.2f}  {', '.join(row['islands'])}"
        )
    return "\n".join(lines)


def run(options) -> Result:
    result = Result(name=NAME, title=TITLE, goal=f"<= {GOAL}")
    if shutil.which("node") is None:
        raise BenchError("node is not installed (the baseline island is built with esbuild)")
    manifest = check_production_build()
    log("  building the baseline: React 19's minimum island")
    base = baseline()
    log(f"  baseline: {base['raw'] / 1024:.1f} KB raw, {base['gzip'] / 1024:.1f} KB gzip")
    log("  rendering the island pages")
    data = make_site()
    rows = measure_pages(data)
    print(table(rows, base), flush=True)
    heaviest = max(rows, key=lambda row: row["gzip"])
    ratio = heaviest["gzip"] / base["gzip"]
    result.baseline = base["gzip"] / 1024
    result.baseline_label = f"{base['gzip'] / 1024:.1f} (React island)"
    result.measured = heaviest["gzip"] / 1024
    result.measured_label = f"{heaviest['gzip'] / 1024:.1f} ({heaviest['page']})"
    result.ratio = ratio
    result.goal_met = ratio <= GOAL
    lightest = min(rows, key=lambda row: row["gzip"])
    result.notes.append(
        f"{len(rows)} pages; heaviest {heaviest['page']} {heaviest['gzip'] / 1024:.1f} KB gzip in "
        f"{heaviest['files']} files (islands {', '.join(heaviest['islands'])}); lightest {lightest['page']} "
        f"{lightest['gzip'] / 1024:.1f} KB; baseline {base['gzip'] / 1024:.1f} KB gzip, {base['raw'] / 1024:.1f} KB raw"
    )
    result.details = {
        "baseline": base,
        "pages": rows,
        "manifest_islands": sorted(manifest["islands"]),
        "compression": "gzip level 9 (whitenoise collectstatic); brotli default quality alongside",
    }
    return result
