"""Security headers on every answer (issue 13 items 6 and 10): the unknown host's 404 has
its CSP and frame refusal and a working stylesheet; the CSP lets the live connection reach
the site's own host only."""

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def _directive(policy: str, name: str) -> list[str]:
    for part in policy.split(";"):
        words = part.split()
        if words and words[0] == name:
            return words[1:]
    raise AssertionError(f"no {name} in {policy!r}")


def test_unknown_host_404s_carry_no_csp_or_x_frame_options(db):
    response = Client(HTTP_HOST="nosuchsite.example").get("/")
    assert response.status_code == 404
    assert response["X-Frame-Options"] == "DENY"
    policy = response["Content-Security-Policy"]
    assert _directive(policy, "default-src") == ["'none'"]
    assert _directive(policy, "frame-ancestors") == ["'none'"]
    assert "<script" not in response.content.decode()


def test_the_unknown_hosts_404_page_is_unstyled(db):
    """Its stylesheet is the site's, served on that host too (WhiteNoise before the site lookup)."""
    client = Client(HTTP_HOST="nosuchsite.example")
    body = client.get("/").content.decode()
    href = re.search(r'<link rel="stylesheet" href="([^"]+)"', body).group(1)
    response = client.get(href)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/css")


def test_csp_connect_src_allows_any_host(site, client_for):
    response = client_for(site).get("/pages/faq")
    assert response.status_code == 200
    sources = _directive(response["Content-Security-Policy"], "connect-src")
    assert sources == ["'self'", "ws://localhost"]
    assert "ws:" not in sources and "wss:" not in sources


def test_csp_connect_src_is_wss_over_https(site, client_for):
    response = client_for(site).get("/pages/faq", secure=True)
    assert _directive(response["Content-Security-Policy"], "connect-src") == ["'self'", "wss://localhost"]


def test_an_inline_style_in_my_profile_is_blocked_by_the_csp():
    """Issue 13 item 9: the CSP allows no inline style or script, so no template may carry a
    style attribute, an event handler attribute or a <style>/<script> element without the
    nonce (the browser tests also fail on any CSP violation Chromium reports)."""
    from pathlib import Path

    from django.conf import settings

    offending = []
    for template in sorted((Path(settings.BASE_DIR) / "templates").rglob("*.html")):
        if "email" in template.parent.parts:  # e-mails: mail clients need inline styles, no CSP there
            continue
        text = template.read_text()
        for pattern in (r"\sstyle=\"", r"\son[a-z]+=\"", r"<style(?![^>]*nonce)", r"<script(?![^>]*(nonce|src=))"):
            offending += [f"{template.name}: {match.group(0)!r}" for match in re.finditer(pattern, text)]
    assert offending == []


def _nonces(policy: str) -> set[str]:
    return set(re.findall(r"'nonce-([A-Za-z0-9+/=]+)'", policy))


def test_the_kept_policy_gets_each_responses_own_nonce(site, client_for):
    """A host's policy is built once and kept (apps.common.middleware.SiteCspMiddleware);
    every response still carries its own nonce, the one its page uses."""
    client = client_for(site)
    first, second = client.get("/pages/faq"), client.get("/pages/faq")
    policies = [response["Content-Security-Policy"] for response in (first, second)]
    nonces = [_nonces(policy) for policy in policies]
    assert all(len(found) == 1 for found in nonces)
    assert nonces[0] != nonces[1]
    for response, found in zip((first, second), nonces, strict=True):
        assert set(re.findall(r'nonce="([^"]+)"', response.content.decode())) == found
    (nonce_1,), (nonce_2,) = nonces
    assert policies[0].replace(nonce_1, "N") == policies[1].replace(nonce_2, "N")


def test_a_response_with_its_own_csp_parts_is_built_by_django_csp(site):
    """A view that adds sources with django-csp's decorators (`_csp_update`) gets them, and
    the site's own sources too."""
    from django.http import HttpResponse
    from django.test import RequestFactory

    from apps.common.middleware import SiteCspMiddleware

    def view(request):
        response = HttpResponse("ok")
        response._csp_update = {"img-src": ["https://pictures.example"]}
        return response

    request = RequestFactory().get("/", HTTP_HOST="localhost")
    request.site = site
    policy = SiteCspMiddleware(view)(request)["Content-Security-Policy"]
    assert _directive(policy, "img-src") == ["'self'", "data:", "blob:", "https://pictures.example"]
    assert _directive(policy, "connect-src") == ["'self'", "ws://localhost"]
    plain = RequestFactory().get("/", HTTP_HOST="localhost")
    plain.site = site
    assert _directive(SiteCspMiddleware(lambda r: HttpResponse("ok"))(plain)["Content-Security-Policy"], "img-src") == [
        "'self'",
        "data:",
        "blob:",
    ]
