"""The load generator sends first visits: a cookie a response sets is never sent back
(only the plan's own `cookie`, and the cookies of a redirect it follows)."""

import http.server
import json
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


@pytest.fixture
def site_url():
    _Site.seen = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


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
