"""Schemathesis against /api/schema/ (issue 13): every operation on both demo sites,
logged in and logged out, with generated valid and invalid input. Zero 5xx answers, and
every answer matches the schema (status code, content type, body). Runs in-process
through Django's test client inside the test's transaction, so nothing it writes stays.

`make fuzz` runs many more examples (FUZZ_EXAMPLES)."""

from __future__ import annotations

import io
import json
import os
from datetime import timedelta
from urllib.parse import urlencode, urlsplit

import httpx
import pytest
import schemathesis
from django.test import Client
from django.test.client import MULTIPART_CONTENT, encode_multipart
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import checks as st_checks
from schemathesis.specs.openapi import checks as openapi_checks

from apps.chat.tests.helpers import credits_give, member, send
from apps.profiles.tests.helpers_view import logged_in

pytestmark = pytest.mark.django_db

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "12"))
BOUNDARY = "fuzzboundary"
CHECKS = [
    st_checks.not_a_server_error,
    openapi_checks.status_code_conformance,
    openapi_checks.content_type_conformance,
    openapi_checks.response_schema_conformance,
]


def _client(site, who: str, client_for) -> Client:
    if who == "visitor":
        return client_for(site)
    anna = member(site, "Fuzzanna")
    ben = member(site, "Fuzzben", gender="male")
    credits_give(site, anna.user, 50)
    send(site, anna, ben, "Hello")
    return logged_in(site, client_for, anna)


def _call(client: Client, case) -> httpx.Response:
    """The case through Django's test client, answered as an httpx response."""
    kwargs = case.as_transport_kwargs(base_url="http://testserver")
    url = urlsplit(kwargs["url"])
    path = url.path + (f"?{url.query}" if url.query else "")
    if kwargs.get("params"):
        path += ("&" if "?" in path else "?") + urlencode(kwargs["params"], doseq=True)
    headers = {k: v for k, v in (kwargs.get("headers") or {}).items() if k.lower() not in ("content-type", "host")}
    content_type = (kwargs.get("headers") or {}).get("Content-Type", "application/octet-stream")
    if "json" in kwargs:
        data, content_type = json.dumps(kwargs["json"]), "application/json"
    elif kwargs.get("files") is not None or content_type.startswith("multipart/"):
        fields = dict(kwargs["data"]) if isinstance(kwargs.get("data"), dict) else {}
        files = kwargs.get("files") or []
        for name, value in files.items() if isinstance(files, dict) else files:
            content = value[1] if isinstance(value, tuple) else value
            fields[name] = io.BytesIO(content if isinstance(content, bytes) else str(content).encode())
        data = encode_multipart(BOUNDARY, fields)
        content_type = MULTIPART_CONTENT.replace("BoUnDaRyStRiNg", BOUNDARY)
    elif isinstance(kwargs.get("data"), dict):
        data, content_type = urlencode(kwargs["data"], doseq=True), "application/x-www-form-urlencoded"
    else:
        data = kwargs.get("data") or b""
    extra = {f"HTTP_{k.upper().replace('-', '_')}": str(v) for k, v in headers.items()}
    answer = client.generic(case.method.upper(), path, data=data, content_type=content_type, **extra)
    response = httpx.Response(
        answer.status_code,
        headers=list(answer.headers.items()),
        content=answer.content,
        request=httpx.Request(case.method.upper(), kwargs["url"], headers=headers),
    )
    response.elapsed = timedelta(0)
    return response


@pytest.mark.parametrize("host", ["localhost", "gay.localhost"])
@pytest.mark.parametrize("who", ["visitor", "member"])
def test_api_fuzzing_finds_no_5xx_and_no_schema_violation(host, who, site, gay_site, client_for):
    target = site if host == "localhost" else gay_site
    body = client_for(target).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    client = _client(target, who, client_for)
    failures: list[str] = []
    for result in schemathesis.openapi.from_dict(body).get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.explicit, Phase.generate],
        )
        def run(case):
            case.validate_response(_call(client, case), checks=CHECKS)

        try:
            run()
        except Exception as error:  # noqa: BLE001 - every operation's failure is reported
            failures.append(f"{operation.label}: {error}")
    assert not failures, "\n\n".join(failures)
