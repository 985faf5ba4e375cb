"""Bad input answers 4xx in the JSON error shape, never 5xx (issue 13 item 3): a body whose
content type lies (multipart with no boundary), NUL bytes in the path, the query and the
body, deeply nested and huge JSON."""

import json

import pytest
from django.conf import settings
from django.test import Client

from apps.chat.tests.helpers import member
from apps.profiles.tests.helpers_view import logged_in
from conftest import on_site

pytestmark = pytest.mark.django_db

UNSAFE = ("post", "put", "patch", "delete")


def _api_operations(site, client_for) -> list[tuple[str, str]]:
    schema = client_for(site).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operations = []
    for path, item in schema["paths"].items():
        concrete = path.replace("{id}", "1").replace("{code}", "X").replace("{method}", "ideal")
        operations += [(method, concrete) for method in item if method in UNSAFE]
    assert len(operations) >= 20
    return operations


def _json_error(response) -> dict:
    assert response["Content-Type"].startswith("application/json"), (response.status_code, response.content[:200])
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] and body["error"]["message"], body
    return body["error"]


TOKEN = "t" * 32


def _csrf_client(site, who=None) -> Client:
    """A browser's client: CSRF enforced, with a valid token in the cookie and header."""
    client = Client(
        HTTP_HOST=site.domains.get(is_primary=True).domain, enforce_csrf_checks=True, HTTP_X_CSRFTOKEN=TOKEN
    )
    client.cookies[settings.CSRF_COOKIE_NAME] = TOKEN
    if who is not None:
        with on_site(site):
            client.force_login(who.user, backend="allauth.account.auth_backends.AuthenticationBackend")
    return client


@pytest.mark.parametrize("who", ["visitor", "member"])
def test_unsafe_api_call_with_multipart_and_no_boundary(site, client_for, who):
    client = _csrf_client(site, member(site, "Anna") if who == "member" else None)
    for method, path in _api_operations(site, client_for):
        response = getattr(client, method)(path, data=b"--x\r\n", content_type="multipart/form-data")
        assert response.status_code < 500, (method, path, response.status_code)
        if response.status_code >= 400:
            _json_error(response)
    response = client.post("/api/user.php", data=b"--x\r\n", content_type="multipart/form-data")
    assert response.status_code == 400
    assert _json_error(response)["message"] == "This request could not be read."


@pytest.mark.parametrize(
    "path",
    [
        "/api/payment.php?id=a%00b",
        "/api/search.php?name=a%00b",
        "/api/profile.php?id=1%00",
        "/api/discountcode.php?code=A%00B",
    ],
)
def test_a_nul_byte_in_an_api_query(site, client_for, path):
    client = logged_in(site, client_for, member(site, "Anna"))
    response = client.get(path)
    assert response.status_code == 400
    _json_error(response)


@pytest.mark.parametrize(
    "path",
    ["/transactions/a%00b", "/credits?code=A%00B", "/sandbox/checkout/tr_sbx_%00", "/members?name=%00", "/a%00b"],
)
def test_a_nul_byte_in_a_page_address(site, client_for, path):
    client = logged_in(site, client_for, member(site, "Anna"))
    response = client.get(path)
    assert response.status_code in (400, 404), response.status_code


@pytest.mark.parametrize("path", ["/a%00b", "/landers/gallery/a%00b"])
def test_a_nul_byte_refused_before_the_login_middleware_gets_the_sites_error_page(site, client_for, path, caplog):
    """Refused by BadInputMiddleware, before the session and the member are known: the
    error page is the site's own, drawn as for a visitor, not the plain fallback."""
    response = client_for(site).get(path)
    assert response.status_code == 400
    assert b"An error occurred while showing the error page" not in response.content
    assert site.name.encode() in response.content
    assert not [record for record in caplog.records if record.name == "apps.common.views"]


def test_a_nul_byte_in_the_payment_webhook(site, client_for):
    response = client_for(site).post("/api/payment-webhook.php", {"id": "tr_\x00x"})
    assert response.status_code == 400
    _json_error(response)


@pytest.mark.parametrize(
    "body",
    [
        '{"email": "a\\u0000b@example.com", "password": "x"}',
        '{"email": ' + "[" * 5000 + "]" * 5000 + "}",
        "[" * 100000 + "]" * 100000,
        '{"email": "' + "a" * 2_000_000 + '"}',
        '{"email": "\\ud800"}',
    ],
    ids=["nul", "nested", "very-nested", "huge", "lone-surrogate"],
)
def test_hostile_json_bodies(site, client_for, body):
    response = client_for(site).post("/api/user.php", data=body, content_type="application/json")
    assert 400 <= response.status_code < 500, response.status_code
    _json_error(response)


def test_hostile_json_to_a_member_call(site, client_for):
    client = logged_in(site, client_for, member(site, "Anna"))
    for body in ({"text": "a\x00b", "conversation": 1, "client_id": "c" * 32}, {"language": "e\x00n"}):
        for method, path in (("post", "/api/message.php"), ("put", "/api/user.php")):
            response = getattr(client, method)(path, data=json.dumps(body), content_type="application/json")
            assert 400 <= response.status_code < 500, (path, body, response.status_code)
            _json_error(response)


@pytest.mark.parametrize(
    ("path", "body", "content_type"),
    [
        ("/pages/cookies", b"choice=all%00", "application/x-www-form-urlencoded"),
        ("/pages/cookies", b"--x\r\n", "multipart/form-data"),
        ("/pages/cookies", b"choice=" + "é".encode("latin-1"), "application/x-www-form-urlencoded"),
        ("/notifications", b"action=logout_all%00", "application/x-www-form-urlencoded"),
        ("/notifications", b"--x\r\n", "multipart/form-data"),
    ],
)
def test_the_new_pages_answer_bad_bodies_with_4xx(site, client_for, path, body, content_type):
    client = logged_in(site, client_for, member(site, "Anna")) if path == "/notifications" else client_for(site)
    response = client.generic("POST", path, data=body, content_type=content_type)
    assert 400 <= response.status_code < 500, (path, body, response.status_code)


def test_a_gift_picture_path_with_a_nul_byte_or_another_sites_id(site, gay_site, client_for):
    gifts = "/media/public/gifts"
    for path in (f"{gifts}/rose%00.jpg", f"{gifts}/..%2frose.jpg", f"{gifts}/9999.jpg"):
        assert client_for(site).get(path).status_code in (400, 404), path
