"""The load generator sends first visits: a cookie a response sets is never sent back
(only the plan's own `cookie`, and the cookies of a redirect it follows)."""

import contextlib
import http.server
import json
import socket
import threading

import pytest

from bench import loadgen


class _Site(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[tuple[str, str | None]] = []

    def do_GET(self):
        _Site.seen.append((self.path, self.headers.get("Cookie")))
        if self.path == "/arrive":
            self.send_response(302)
            self.send_header("Location", "/page")
            self.send_header("Set-Cookie", "tracked=1; Path=/")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = b"Site name"
        self.send_response(200)
        self.send_header("Set-Cookie", "csrftoken=abc; Path=/")
        self.send_header("Set-Cookie", "visited=yes; Path=/")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def _serving(handler):
    """A local HTTP server with `handler` in a thread of its own; yields its URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _unused_port() -> int:
    """A port nothing listens on (bound and let go)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def site_url():
    _Site.seen = []
    with _serving(_Site) as url:
        yield url


def _run(url: str, *extra: str, capsys) -> dict:
    args = ["--url", url, "--host", "site.localhost", "--expect", "Site name", "--requests", "20"]
    assert loadgen.main([*args, "--warmup", "5", "--concurrency", "2", "--rounds", "2", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_no_cookie_a_response_set_is_sent_back(site_url, capsys):
    report = _run(site_url, capsys=capsys)
    assert report["failures"] == 0
    assert len(_Site.seen) == 45
    assert {cookie for _path, cookie in _Site.seen} == {None}


def test_only_the_members_own_cookie_is_sent(site_url, capsys):
    _run(site_url, "--cookie", "sessionid=member", capsys=capsys)
    assert {cookie for _path, cookie in _Site.seen} == {"sessionid=member"}


def test_a_followed_redirect_carries_the_cookies_it_set_and_nothing_after(site_url, tmp_path, capsys):
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            [{"host": "site.localhost", "path": "/arrive", "follow": True}, {"host": "site.localhost", "path": "/page"}]
        )
    )
    _run(site_url, "--plan", str(plan), capsys=capsys)
    assert {(path, cookie) for path, cookie in _Site.seen} == {
        ("/arrive", None),
        ("/page", "tracked=1"),
        ("/page", None),
    }


def test_the_report_gives_the_load_generators_own_cpu_per_request(site_url, capsys):
    report = _run(site_url, capsys=capsys)
    assert all(item["loadgen_cpu_ms_per_request"] > 0 for item in report["rounds"])
    assert all(0 < item["loadgen_busy"] <= 1.5 for item in report["rounds"])
    assert report["loadgen_cpu_ms_per_request_median"] > 0


def test_a_note_says_when_the_load_generator_was_its_own_limit():
    from bench.many_sites import loadgen_bound

    busy = {"loadgen_cpu_ms_per_request_median": 1.2, "rounds": [{"loadgen_busy": 0.7}, {"loadgen_busy": 0.96}]}
    bound = loadgen_bound({"loadgen_cpu_ms_per_request_median": 0.3, "rounds": [{"loadgen_busy": 0.2}]}, busy)
    assert "0.30 ms and 1.20 ms" in bound
    assert "96% busy in its busiest round" in bound
    assert "time the load generator more than the server" in bound
    free = loadgen_bound({"loadgen_cpu_ms_per_request_median": 1.2, "rounds": [{"loadgen_busy": 0.24}]})
    assert "24% busy at most" in free
    assert "more than the server" not in free
    assert loadgen_bound({"rps_best": 800, "rounds": []}) == ""


class _Chunked(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    served = 0

    def do_GET(self):
        _Chunked.served += 1
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        if _Chunked.served % 3 == 0:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        for part in (b"Site ", b"name ", str(_Chunked.served).encode()):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
        self.wfile.write(b"0\r\n\r\n")

    def log_message(self, *args):
        pass


def test_chunked_answers_and_closed_connections_are_read_whole(capsys):
    _Chunked.served = 0
    with _serving(_Chunked) as url:
        report = _run(url, capsys=capsys)
    assert report["failures"] == 0
    assert _Chunked.served == 45


def test_an_answer_without_the_expected_text_is_a_failure(site_url, capsys):
    args = ["--url", site_url, "--host", "site.localhost", "--expect", "Another site", "--requests", "4"]
    assert loadgen.main([*args, "--warmup", "0", "--concurrency", "2", "--rounds", "1"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["failures"] == 4
    assert "status 200" in report["failure_examples"][0]


def test_a_server_that_is_gone_is_a_failure_not_a_crash(capsys):
    url = f"http://127.0.0.1:{_unused_port()}"
    args = ["--url", url, "--host", "site.localhost", "--expect", "x", "--requests", "3"]
    assert loadgen.main([*args, "--warmup", "0", "--concurrency", "1", "--rounds", "1"]) == 1
    assert json.loads(capsys.readouterr().out)["failures"] == 3


class _Messages(http.server.BaseHTTPRequestHandler):
    """The message endpoint as the scale benchmark's load generator sees it."""

    protocol_version = "HTTP/1.1"
    posted: list[dict] = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        _Messages.posted.append({"headers": dict(self.headers), "body": json.loads(body)})
        status = 201 if "sessionid=member" in self.headers.get("Cookie", "") else 403
        answer = b'{"id": 1}' if status == 201 else b'{"error": "no session"}'
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def test_the_scale_load_generator_posts_messages_with_the_senders_own_cookies():
    import asyncio

    from bench.bench_scale import Poster

    _Messages.posted = []

    async def post_three(url: str) -> list[str | None]:
        poster = Poster(url, "scale.localhost", cookie_names)
        try:
            return [
                await poster.post("member", 7, "first"),
                await poster.post("member", 7, "second"),
                await poster.post("stranger", 8, "third"),
            ]
        finally:
            await poster.aclose()

    cookie_names = {"session": "sessionid", "csrf": "csrftoken"}
    with _serving(_Messages) as url:
        answers = asyncio.run(post_three(url))
    assert answers[:2] == [None, None]
    assert answers[2] == 'status 403: {"error": "no session"}'
    assert [item["body"]["text"] for item in _Messages.posted] == ["first", "second", "third"]
    assert {item["body"]["conversation"] for item in _Messages.posted[:2]} == {7}
    first = _Messages.posted[0]["headers"]
    assert first["Host"] == "scale.localhost"
    assert first["Origin"] == "http://scale.localhost"
    assert first["Content-Type"] == "application/json"
    csrf = first["X-CSRFToken"]
    assert first["Cookie"] == f"sessionid=member; csrftoken={csrf}"
    assert _Messages.posted[2]["headers"]["Cookie"] == f"sessionid=stranger; csrftoken={csrf}"
    assert len({item["body"]["client_id"] for item in _Messages.posted}) == 3


def test_a_message_to_a_server_that_is_gone_is_an_error_not_a_crash():
    import asyncio

    from bench.bench_scale import Poster

    async def post() -> str | None:
        poster = Poster(f"http://127.0.0.1:{_unused_port()}", "scale.localhost", {"session": "s", "csrf": "c"})
        try:
            return await poster.post("member", 1, "hello")
        finally:
            await poster.aclose()

    assert asyncio.run(post()).startswith("ConnectionRefusedError")
