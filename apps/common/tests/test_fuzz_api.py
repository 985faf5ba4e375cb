"""Schemathesis against /api/schema/: every operation on both demo sites, as a visitor and
as a logged-in member, through all of schemathesis's phases (examples, coverage, fuzzing
and the stateful phase, which chains calls through the links it finds in the typed
answers) and all of its checks: no 5xx, every answer as documented (status code, content
type, headers, body), invalid input refused, valid input accepted, a deleted object gone,
a created one there, the member-only calls refusing a visitor.

The requests go in-process to Django's test handler (no CSRF check, as with the test
client) on the test's own database connection, inside the test's transaction, so nothing
they write stays. Schemathesis sends from its own threads; each request borrows the
test's connection, which the test does not use while the run goes on.

Rules between parameters that OpenAPI cannot state (a search's region of its country, its
minimum age not above its maximum, a discount code unless `welcome`, a signup region of
the profile's country) are written in the operations' descriptions; a well-formed request
breaking one is a 400 naming the parameter, and the documented_rules check below allows a
400 there for exactly those requests.

`make test` runs a few examples per operation; `make fuzz` many more (FUZZ_EXAMPLES)."""

from __future__ import annotations

import io
import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
import schemathesis
from django.db import connections
from django.test.client import ClientHandler
from hypothesis import strategies as st
from PIL import Image
from schemathesis.engine import Status, events, from_schema
from schemathesis.transport.wsgi import WSGITransport

from apps.chat.tests.helpers import credits_give, member, send
from apps.profiles.tests.helpers_view import logged_in
from apps.tenants.selectors import site_regions

pytestmark = pytest.mark.django_db

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "6"))
SESSION_COOKIE = "dp_session"


def _pictures(kind: str) -> st.SearchStrategy[bytes]:
    """Photos as the schema names them (a photo field's content types): real pictures of
    at least the 200 pixels a photo needs, in one colour."""

    def encode(size: tuple[int, int], colour: tuple[int, int, int]) -> bytes:
        buffer = io.BytesIO()
        Image.new("RGB", size, colour).save(buffer, kind)
        return buffer.getvalue()

    side = st.integers(min_value=200, max_value=320)
    channel = st.integers(min_value=0, max_value=255)
    return st.builds(encode, st.tuples(side, side), st.tuples(channel, channel, channel))


for _media_type, _kind in (("image/jpeg", "JPEG"), ("image/png", "PNG"), ("image/webp", "WEBP")):
    schemathesis.openapi.media_type(_media_type, _pictures(_kind))


def _test_handler(host: str):
    """Django's test handler as a WSGI application for `host`, on the test's database
    connection."""
    handler = ClientHandler(enforce_csrf_checks=False)
    shared = connections["default"]

    def application(environ, start_response):
        # Schemathesis's in-process transport names its own host ("localhost") on some
        # calls whatever the base URL: the site is the one whose schema is being run.
        environ["HTTP_HOST"] = environ["SERVER_NAME"] = host
        # Schemathesis calls from its worker threads; the connection is the test's, so the
        # requests see the test's rows and roll back with it.
        if connections["default"] is not shared:
            shared.inc_thread_sharing()
            connections["default"] = shared
        response = handler(environ)
        headers = list(response.items())
        headers += [("Set-Cookie", morsel.OutputString()) for morsel in response.cookies.values()]
        start_response(f"{response.status_code} {response.reason_phrase}", headers)
        return [response.content]

    return application


@pytest.fixture
def in_process_probes(monkeypatch):
    """The auth checks' second requests (without the session) reach the WSGI transport
    with the socket settings of a network session still in them (schemathesis 4.32.5
    drops them only together with a session); werkzeug refuses those."""
    send = WSGITransport.send

    def send_without_socket_settings(self, case, **kwargs):
        for name in ("max_redirects", "verify", "cert", "proxies"):
            kwargs.pop(name, None)
        return send(self, case, **kwargs)

    monkeypatch.setattr(WSGITransport, "send", send_without_socket_settings)


@contextmanager
def _sharing(connection) -> Iterator[None]:
    try:
        yield
    finally:
        while connection._thread_sharing_count:
            connection.dec_thread_sharing()


def _session(site, who: str, client_for) -> str | None:
    """The session key of a member with credits and a conversation, or None for a visitor."""
    if who == "visitor":
        return None
    anna = member(site, "Fuzzanna")
    ben = member(site, "Fuzzben", gender="male")
    credits_give(site, anna.user, 50)
    send(site, anna, ben, "Hello")
    return logged_in(site, client_for, anna).cookies[SESSION_COOKIE].value


# schemathesis's own list for a valid request (positive_data_acceptance).
ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "429", "5xx"]


@dataclass
class Rules:
    """What the documented rules between parameters need to know of the site."""

    regions: dict[str, set[str]]
    search_country: str


RULES: dict[str, Rules] = {}


RULE_PATHS = ("/api/search.php", "/api/discountcode.php", "/api/signup/profile.php")


def _broken_rules(path: str, query: dict, body, rules: Rules) -> set[str]:
    """The fields whose documented rule between parameters the request breaks."""
    broken = set()
    if path == "/api/search.php":
        country = str(query.get("country") or rules.search_country).upper()
        region = str(query.get("region") or "").upper()
        if region and region not in rules.regions.get(country, set()):
            broken.add("region")
        ages = [int(query.get(name) or default) for name, default in (("min_age", 0), ("max_age", 99))]
        if ages[0] > ages[1]:
            broken.add("max_age")
        if query.get("cursor"):
            # Only the `next` of an earlier answer is known to the server.
            broken.add("cursor")
    elif path == "/api/discountcode.php":
        if not str(query.get("code") or "").strip() and str(query.get("welcome")).lower() != "true":
            broken.add("code")
    elif path == "/api/signup/profile.php" and isinstance(body, dict):
        region = body.get("region") or ""
        country = body.get("country")
        # Without a country in the body, the region is checked against the profile's own.
        if region and (country is None or region not in rules.regions.get(country, set())):
            broken.add("region")
    return broken


@schemathesis.check
def documented_rules(ctx, response, case) -> bool | None:
    """A valid request answered 400 must break a documented rule between parameters, and
    the answer must name exactly the fields of the rules it breaks."""
    rules = RULES.get(case.operation.base_url or "")
    if rules is None or case.path not in RULE_PATHS or response.status_code != 400 or case.meta is None:
        return None
    if not case.meta.generation.mode.is_positive:
        return None
    broken = _broken_rules(case.path, dict(case.query or {}), case.body, rules)
    named = set(json.loads(response.content).get("error", {}).get("fields") or {})
    if not broken or not named or not named <= broken:
        raise AssertionError(
            f"A valid request was refused though it breaks no documented rule between parameters "
            f"(breaks {sorted(broken)}, refused for {sorted(named)})"
        )
    return True


def _config(host: str, session: str | None) -> schemathesis.Config:
    generation = {
        "max-examples": EXAMPLES,
        "deterministic": True,
        "database": "none",
        # The API's description: JSON text never holds a NUL (the parser's 400, tested in
        # test_openapi.py and test_bad_input.py), so a valid request has none.
        "allow-x00": False,
    }
    config = {
        "base-url": f"http://{host}",
        "workers": 1,
        "generation": generation,
        "checks": {"enabled": True},
        "phases": {
            "examples": {"enabled": True},
            "coverage": {"enabled": True},
            "fuzzing": {"enabled": True},
            "stateful": {"enabled": True, "max-steps": 6},
        },
        "suppress-health-check": ["all"],
        # Nothing learnt is kept between runs: every run starts from the schema alone.
        "cache": {"enabled": False},
        "operations": [
            {
                # The rules between parameters (the module's docstring): a 400 is allowed
                # here, and documented_rules allows it for the documented requests only.
                "include-path-regex": "^/api/(search|discountcode|signup/profile)\\.php$",
                "checks": {"positive_data_acceptance": {"expected-statuses": [*ACCEPTED, "400"]}},
            },
            {
                # A photo message: schemathesis 4.32.5 sends the other form fields empty when
                # it gives a file part its own content type (the photo's encoding), so whether
                # a valid request is accepted cannot be judged from what it sends here.
                "include-path-regex": "^/api/message\\.php$",
                "checks": {"positive_data_acceptance": {"expected-statuses": [*ACCEPTED, "400"]}},
            },
        ],
    }
    if session is not None:
        config["auth"] = {"openapi": {"cookieAuth": {"api_key": session}}}
        # Logging out ends the member's session, and every call after it would be a
        # visitor's: it is fuzzed in the visitor's runs.
        config["operations"].append({"include-path": "/api/logout.php", "enabled": False})
    return schemathesis.Config.from_dict(config)


def _failures(event) -> list[str]:
    recorder = getattr(event, "recorder", None)
    if recorder is None:
        return []
    found = []
    for case_id, checks in recorder.checks.items():
        for check in checks:
            if check.status != Status.FAILURE or check.failure_info is None:
                continue
            interaction = recorder.interactions.get(case_id)
            answer = interaction.response if interaction is not None else None
            body = answer.content[:300] if answer is not None else b""
            found.append(f"{recorder.label} [{check.name}]\n{check.failure_info.code_sample}\n-> {body!r}")
    return found


def _chained(recorder) -> int:
    """The calls a link made (their ids from an earlier answer) that were accepted."""
    accepted = 0
    for case_id, node in recorder.cases.items():
        interaction = recorder.interactions.get(case_id)
        answer = interaction.response if interaction is not None else None
        if node.transition is not None and answer is not None and answer.status_code < 300:
            accepted += 1
    return accepted


@pytest.mark.parametrize("host", ["localhost", "gay.localhost"])
@pytest.mark.parametrize("who", ["visitor", "member"])
def test_api_fuzzing_finds_no_5xx_and_no_schema_violation(host, who, site, gay_site, client_for, in_process_probes):
    target = site if host == "localhost" else gay_site
    session = _session(target, who, client_for)
    body = client_for(target).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    client = client_for(target)
    search = client.get("/api/search.php", HTTP_COOKIE=f"{SESSION_COOKIE}={session}" if session else "")
    RULES[f"http://{host}"] = Rules(
        regions={code: {region["code"] for region in site_regions(target, code)} for code in target.country_codes},
        search_country=search.json()["filters"]["country"] if search.status_code == 200 else target.country_codes[0],
    )
    schema = schemathesis.openapi.from_dict(body, config=_config(host, session))
    schema.app = _test_handler(host)
    failures: list[str] = []
    errors: list[str] = []
    requests: Counter[str] = Counter()
    chained = 0
    started = time.monotonic()
    with _sharing(connections["default"]):
        for event in from_schema(schema).execute():
            if isinstance(event, events.ScenarioFinished):
                requests[event.phase.value] += len(event.recorder.interactions)
                chained += _chained(event.recorder)
            failures += _failures(event)
            if isinstance(event, events.NonFatalError):
                errors.append(f"{event.label}: {event.info.title}: {event.info.message}")
            if isinstance(event, events.EngineFinished):
                failures += [str(failure) for failure in event.failures]
    seconds = time.monotonic() - started
    print(
        f"{host} {who}: {requests.total()} requests {dict(requests)}, {chained} accepted through a link, "
        f"in {seconds:.0f} s, {len(failures)} failures"
    )
    assert not errors, "\n".join(errors)
    assert not failures, f"{len(failures)} failures\n\n" + "\n\n".join(dict.fromkeys(failures))
    assert {"coverage", "fuzzing", "stateful"} <= set(requests), requests
    if session is not None:
        # Every phase ran as the member: the session still logs them in.
        still = client.get("/api/user.php", HTTP_COOKIE=f"{SESSION_COOKIE}={session}")
        assert still.status_code == 200, still.content
    if who == "member":
        # The stateful phase really chains: calls whose ids came from an earlier answer.
        assert chained, "no call of the stateful phase was accepted with an id from a link"
