"""The TLS proxy's question before a certificate (GET /tls/ask?domain= on the operators'
host): 200 only for a domain of an active site or the operators' own host, 404 for any
other name, 400 in the JSON error shape for what is no host name; one cached lookup.
And the domain's HTTPS state the site admin shows: when the proxy asked, and when the
domain last answered over HTTPS, each written at most once per interval."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.tenants import tls
from apps.tenants.models import Domain, Site
from tests.staff import ADMIN_HOST

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_marks():
    tls.marks_clear()
    yield
    tls.marks_clear()


def ask(domain: str | None = None, *, host: str = ADMIN_HOST, method: str = "get", query: str | None = None):
    client = Client(HTTP_HOST=host)
    path = "/tls/ask" + (query if query is not None else "")
    data = {} if domain is None or query is not None else {"domain": domain}
    return getattr(client, method)(path, data)


def test_a_domain_of_an_active_site_or_the_operators_host_may_get_a_certificate(site, gay_site):
    for name in ("localhost", "gay.localhost", ADMIN_HOST):
        response = ask(name)
        assert response.status_code == 200, name
        assert response.json() == {"domain": name}
        assert response["Cache-Control"] == "no-store"
    # Spelt as a resolver or a browser may spell it.
    assert ask("GAY.Localhost.").json() == {"domain": "gay.localhost"}
    assert ask(" localhost ").status_code == 200


def test_an_internationalised_domain_is_asked_for_in_either_form(gay_site):
    Domain.objects.create(domain="xn--bcher-kva.localhost", tenant=gay_site, is_primary=False)
    assert ask("xn--bcher-kva.localhost").status_code == 200
    assert ask("BÜCHER.localhost").json() == {"domain": "xn--bcher-kva.localhost"}
    assert ask("bücher-nicht.localhost").status_code == 404


@pytest.mark.parametrize(
    "name",
    ["example.com", "localhost.example.com", "gay.localhost.evil.example", "xn--nxasmq6b.example", "admin"],
)
def test_any_other_name_gets_no_certificate(site, name):
    response = ask(name)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "unknown_domain"


def test_a_switched_off_site_and_a_removed_domain_get_no_certificate(gay_site):
    extra = Domain.objects.create(domain="old.gay.localhost", tenant=gay_site, is_primary=False)
    assert ask("old.gay.localhost").status_code == 200
    extra.delete()  # the site cache is cleared by the delete (apps.tenants.apps)
    assert ask("old.gay.localhost").status_code == 404
    assert ask("gay.localhost").status_code == 200
    Site.objects.filter(pk=gay_site.pk).update(is_active=False)
    from apps.tenants.middleware import site_cache_clear

    site_cache_clear()
    assert ask("gay.localhost").status_code == 404


@pytest.mark.parametrize(
    "query",
    [
        "",
        "?domain=",
        "?other=localhost",
        "?domain=localhost:443",
        "?domain=https://localhost",
        "?domain=localhost/admin/",
        "?domain=local%20host",
        "?domain=local%01host",
        "?domain=localhost%0d%0aX-Evil:1",
        "?domain=" + "a" * 64 + ".example",
        "?domain=" + ".".join(["abcdefghi"] * 30),
        "?domain=" + "a" * 100_000,
        "?domain=" + "ü" * 300,
        "?domain=%ED%A0%80.example",  # a lone surrogate, as UTF-8 bytes
        "?domain=-bad-.example",
        "?domain=a..b",
        "?domain=..",
        "?domain=*.localhost",
        "?domain=127.0.0.1:8000",
        "?domain=%5B::1%5D",
    ],
)
def test_what_is_no_host_name_is_refused_with_400(site, query):
    response = ask(query=query)
    assert response.status_code == 400, query
    assert response.json()["error"]["code"] == "invalid_domain"
    assert response.json()["error"]["message"]


def test_a_nul_byte_is_refused_in_the_json_error_shape(site):
    response = ask(query="?domain=local%00host")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


def test_only_get_is_answered(site):
    response = ask("localhost", method="post")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert ask("localhost", method="head").status_code == 200


def test_only_the_operators_host_answers(site):
    assert ask("localhost", host="localhost").status_code == 404
    assert ask("localhost", host="gay.localhost").status_code == 404


def test_one_cached_lookup_per_name(site, gay_site):
    assert ask(ADMIN_HOST).status_code == 200  # the operators' host itself is in the site cache now
    with CaptureQueriesContext(connection) as unknown:
        assert ask("nobody.example").status_code == 404
    with CaptureQueriesContext(connection) as first:
        assert ask("gay.localhost").status_code == 200
    with CaptureQueriesContext(connection) as again:
        for _ in range(3):
            assert ask("gay.localhost").status_code == 200
    domain_reads = [q["sql"] for q in unknown.captured_queries if '"tenants_domain"' in q["sql"]]
    assert len(domain_reads) == 1
    assert any(q["sql"].startswith('UPDATE "tenants_domain"') for q in first.captured_queries)
    asked_again = [q["sql"] for q in again.captured_queries if '"tenants_domain"' in q["sql"]]
    assert asked_again == []  # the name is in the site cache and its mark is fresh


def test_the_ask_records_when_a_certificate_was_requested(gay_site):
    before = timezone.now()
    assert ask("gay.localhost").status_code == 200
    domain = Domain.objects.get(domain="gay.localhost")
    assert domain.certificate_requested is not None and domain.certificate_requested >= before
    assert domain.last_seen_https is None
    assert Domain.objects.get(domain="localhost").certificate_requested is None
    assert ask("nobody.example").status_code == 404
    assert not Domain.objects.filter(domain="nobody.example").exists()


def test_a_mark_is_written_once_per_interval_across_processes(gay_site):
    assert tls.domain_mark("gay.localhost", "last_seen_https") is True
    first = Domain.objects.get(domain="gay.localhost").last_seen_https
    # This process: not even a query within the interval.
    with CaptureQueriesContext(connection) as queries:
        assert tls.domain_mark("gay.localhost", "last_seen_https") is False
    assert queries.captured_queries == []
    # Another process (its own memory): the UPDATE matches no row while the time is fresh.
    tls.marks_clear()
    assert tls.domain_mark("gay.localhost", "last_seen_https") is False
    assert Domain.objects.get(domain="gay.localhost").last_seen_https == first
    # Once the interval is over, the next one writes again.
    Domain.objects.filter(domain="gay.localhost").update(
        last_seen_https=first - tls.MARK_INTERVAL - timedelta(seconds=1)
    )
    tls.marks_clear()
    assert tls.domain_mark("gay.localhost", "last_seen_https") is True
    assert Domain.objects.get(domain="gay.localhost").last_seen_https > first - timedelta(seconds=1)


def test_the_marks_memory_is_bounded(monkeypatch, gay_site):
    monkeypatch.setattr(tls, "MARKS_MAX_ENTRIES", 5)
    for number in range(50):
        tls.domain_mark(f"n{number}.example", "last_seen_https")
    assert len(tls._marked) == 5


def test_a_request_over_https_records_the_domain_as_seen(settings, gay_site):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    client = Client(HTTP_HOST="gay.localhost")
    client.get("/", HTTP_X_FORWARDED_PROTO="http")
    assert Domain.objects.get(domain="gay.localhost").last_seen_https is None  # plain HTTP says nothing
    before = timezone.now()
    client.get("/", HTTP_X_FORWARDED_PROTO="https")
    seen = Domain.objects.get(domain="gay.localhost").last_seen_https
    assert seen is not None and seen >= before
    assert Domain.objects.get(domain="localhost").last_seen_https is None
    # Further requests within the interval write nothing.
    with CaptureQueriesContext(connection) as queries:
        client.get("/", HTTP_X_FORWARDED_PROTO="https")
    assert not [q for q in queries.captured_queries if q["sql"].startswith('UPDATE "tenants_domain"')]
    # An unknown host over HTTPS is answered before and records nothing.
    assert Client(HTTP_HOST="nobody.example").get("/", HTTP_X_FORWARDED_PROTO="https").status_code == 404


def test_the_site_admin_shows_each_domains_https_state(gay_site):
    from django.urls import reverse

    from tests.staff import staff_client, staff_member

    Domain.objects.create(domain="new.gay.localhost", tenant=gay_site, is_primary=False)
    Domain.objects.create(domain="asked.gay.localhost", tenant=gay_site, is_primary=False)
    assert ask("asked.gay.localhost").status_code == 200
    tls.domain_mark("gay.localhost", "last_seen_https")
    client = staff_client(staff_member("operators"))

    page = client.get(reverse("admin:tenants_site_change", args=[gay_site.pk], urlconf="config.urls_public"))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Certificate issued; last seen over HTTPS" in html
    assert "Certificate requested" in html and "not seen over HTTPS yet" in html
    assert "No certificate yet: the first HTTPS request to this domain gets one" in html
    assert 'name="domains-0-last_seen_https"' not in html  # shown, never edited

    listing = client.get(reverse("admin:tenants_site_changelist", urlconf="config.urls_public")).content.decode()
    assert "Not seen over HTTPS yet: asked.gay.localhost, new.gay.localhost" in listing
    Domain.objects.filter(tenant=gay_site).update(last_seen_https=timezone.now())
    listing = client.get(reverse("admin:tenants_site_changelist", urlconf="config.urls_public")).content.decode()
    assert "Certificates issued for every domain" in listing
