"""The load generator: GET / (or --path) on one site with a fixed concurrency over keep-alive
connections, in a process of its own (no Django here).

    python -m bench.loadgen --url http://127.0.0.1:PORT --host clone-1.bench.localhost \
        --expect "Site name" --requests 2000 --warmup 200 --concurrency 8 --rounds 3

With --server-pid, each round also reports the server's CPU time per request; each round
reports the load generator's own too, and how busy its one core was (one process: with
httpx, at 1.2 ms a request, it could not send more than about 800 a second however fast
the server was; its own client takes about 0.07 ms).
Every response must be 200 and contain --expect; the report (one JSON line on
stdout) counts those that were not, and the exit status is 1 if there were any.
Cookies are never stored: every request is a first visit (or, with --cookie, a request
of the member whose session that is). The client is a lean HTTP/1.1 one of its own
(`Client`), so that the load generator is not the limit of what it measures.

With --plan FILE (a JSON list), the requests are the plan's in turn, warm-up first, the
plan starting again when it ends: each names its `host` and `path`, and may give the
text to `expect`, a `cookie` header (a returning visitor's cookies), a `language`
(Accept-Language), a `country` (the edge proxy's CF-IPCountry) and `follow`: a redirect
is followed once, with the cookies it set, as a browser does after a paid arrival's
tracking query string; the pair counts as one request.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from urllib.parse import urlsplit

import httptools

REDIRECTS = (301, 302, 303, 307, 308)


class Response:
    """What a request gets: its status, headers (names in lower case) and body."""

    __slots__ = ("content", "headers", "status_code")

    def __init__(self, status_code: int, headers: list[tuple[str, str]], content: bytes) -> None:
        self.status_code, self.headers, self.content = status_code, headers, content

    def header(self, name: str) -> str | None:
        return next((value for key, value in self.headers if key == name), None)

    def header_list(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key == name]

    @property
    def is_redirect(self) -> bool:
        return self.status_code in REDIRECTS and self.header("location") is not None


class _Connection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection, its responses read by httptools (llhttp, the
    parser uvicorn serves with)."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.waiter: asyncio.Future | None = None
        self.closed = False
        self.headers: list[tuple[str, str]] = []
        self.body: list[bytes] = []

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self.closed = True
            self._failed(exc)
            self.transport.close()

    def connection_lost(self, exc) -> None:
        self.closed = True
        self._failed(exc or ConnectionResetError("the server closed the connection"))

    def _failed(self, exc: BaseException) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(exc)

    # httptools' callbacks
    def on_message_begin(self) -> None:
        self.headers, self.body = [], []

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name.decode("latin1").lower(), value.decode("latin1")))

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        response = Response(self.parser.get_status_code(), self.headers, b"".join(self.body))
        if not self.parser.should_keep_alive():
            self.closed = True
            self.transport.close()
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(response)

    async def send(self, raw: bytes) -> Response:
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(raw)
        return await self.waiter


# What a request of `Client` may raise when the server is gone, closes the connection or
# answers what is not HTTP, or when the answer takes longer than its timeout.
REQUEST_ERRORS = (OSError, TimeoutError, httptools.HttpParserError)


class Client:
    """Requests over keep-alive connections to one server, as lean as a load generator
    must be: httpx spent about 1.2 ms of CPU on a request, so one process could not send
    more than about 800 a second and the cache hits' req/s timed the load generator, not
    the server. Here a request is its bytes written and its answer parsed in C. Cookies
    are never kept: a request carries only the headers it is given. The scale benchmark's
    message POSTs (bench.bench_scale) go through it too."""

    def __init__(self, url: str, headers: dict[str, str], timeout: float = 30.0) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise SystemExit(f"--url must be http://host:port, not {url}")
        self.address = (parts.hostname, parts.port or 80)
        self.headers = headers
        self.timeout = timeout
        self.idle: list[_Connection] = []

    async def get(self, path: str, headers: dict[str, str] | None = None) -> Response:
        return await self.request("GET", path, headers)

    async def request(
        self, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b""
    ) -> Response:
        fields = {**self.headers, **(headers or {})}
        if body or method not in ("GET", "HEAD"):
            fields["Content-Length"] = str(len(body))
        head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{name}: {value}\r\n" for name, value in fields.items())
        raw = (head + "\r\n").encode("latin1") + body
        async with asyncio.timeout(self.timeout):
            while self.idle:
                connection = self.idle.pop()
                if connection.closed:
                    continue
                try:
                    return await self._answered(connection, raw)
                except ConnectionError:
                    continue  # closed while it was kept: the next one, or a new one
            loop = asyncio.get_running_loop()
            _transport, connection = await loop.create_connection(_Connection, *self.address)
            return await self._answered(connection, raw)

    async def _answered(self, connection: _Connection, raw: bytes) -> Response:
        try:
            response = await connection.send(raw)
        except BaseException:
            connection.closed = True
            connection.transport.close()
            raise
        if not connection.closed:
            self.idle.append(connection)
        return response

    def close(self) -> None:
        for connection in self.idle:
            connection.transport.close()
        self.idle.clear()


def cpu_seconds(pid: int | None) -> float | None:
    """CPU time (user + system) the process `pid` has used so far, from /proc."""
    if not pid:
        return None
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Plan:
    """The requests of --plan, handed out in turn across the phases of a run."""

    def __init__(self, items: list[dict]) -> None:
        self.items = items
        self.next = 0

    def take(self) -> dict:
        item = self.items[self.next % len(self.items)]
        self.next += 1
        return item


def _headers(item: dict) -> dict:
    headers = {"Host": item["host"]}
    if item.get("cookie"):
        headers["Cookie"] = item["cookie"]
    if item.get("language"):
        headers["Accept-Language"] = item["language"]
    if item.get("country"):
        headers["CF-IPCountry"] = item["country"]
    return headers


async def planned_get(client: Client, item: dict) -> Response:
    """One request of the plan, and its redirect when `follow` asks for it."""
    headers = _headers(item)
    response = await client.get(item["path"], headers=headers)
    if item.get("follow") and response.is_redirect:
        set_cookies = [value.split(";", 1)[0] for value in response.header_list("set-cookie")]
        cookie = "; ".join(part for part in [headers.get("Cookie", ""), *set_cookies] if part)
        headers = {**headers, **({"Cookie": cookie} if cookie else {})}
        location = urlsplit(response.header("location"))
        response = await client.get(location.path + (f"?{location.query}" if location.query else ""), headers=headers)
    return response


async def run_phase(
    client: Client,
    count: int,
    concurrency: int,
    expect: bytes,
    failures: list,
    path: str = "/",
    plan: Plan | None = None,
) -> list:
    """`count` requests by `concurrency` workers; returns the latencies in seconds."""
    remaining = count
    latencies: list[float] = []

    async def worker() -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            item = plan.take() if plan else None
            wanted = item["expect"].encode() if item and item.get("expect") else expect
            started = time.perf_counter()
            try:
                response = await (planned_get(client, item) if item else client.get(path))
                body = response.content
            except REQUEST_ERRORS as exc:
                failures.append(f"{type(exc).__name__}: {exc}")
                continue
            latencies.append(time.perf_counter() - started)
            if response.status_code != 200 or wanted not in body:
                where = f"{item['host']}{item['path']}: " if item else ""
                failures.append(f"{where}status {response.status_code}, {len(body)} bytes: {body[:200]!r}")

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return latencies


async def main_async(args: argparse.Namespace) -> dict:
    expect = args.expect.encode()
    failures: list[str] = []
    plan = None
    if args.plan:
        with open(args.plan) as plan_file:
            plan = Plan(json.load(plan_file))
        if not plan.items:
            raise SystemExit("--plan names an empty list")
    client = Client(
        args.url,
        {"Host": args.host, "Accept-Language": "en", **({"Cookie": args.cookie} if args.cookie else {})},
    )
    try:
        await run_phase(client, args.warmup, args.concurrency, expect, failures, args.path, plan)
        rounds = []
        for _ in range(args.rounds):
            cpu_before = cpu_seconds(args.server_pid)
            own_before = time.process_time()
            started = time.perf_counter()
            latencies = await run_phase(client, args.requests, args.concurrency, expect, failures, args.path, plan)
            elapsed = time.perf_counter() - started
            own = time.process_time() - own_before
            cpu_after = cpu_seconds(args.server_pid)
            latencies.sort()
            rounds.append(
                {
                    "requests": args.requests,
                    "seconds": round(elapsed, 4),
                    "rps": round(args.requests / elapsed, 2),
                    "server_cpu_ms_per_request": round(1000 * (cpu_after - cpu_before) / args.requests, 3)
                    if cpu_before is not None and cpu_after is not None
                    else None,
                    # This process's own CPU: on one core it allows at most 1 / this req/s.
                    "loadgen_cpu_ms_per_request": round(1000 * own / args.requests, 3),
                    "loadgen_busy": round(own / elapsed, 3),
                    "latency_ms_p50": round(1000 * statistics.median(latencies), 2) if latencies else None,
                    "latency_ms_p99": round(1000 * latencies[int(0.99 * (len(latencies) - 1))], 2)
                    if latencies
                    else None,
                }
            )
    finally:
        client.close()
    rps = [item["rps"] for item in rounds]
    cpu = [item["server_cpu_ms_per_request"] for item in rounds if item["server_cpu_ms_per_request"] is not None]
    return {
        "host": args.host,
        "path": args.path,
        "plan_requests": len(plan.items) if plan else None,
        "concurrency": args.concurrency,
        "warmup": args.warmup,
        "rounds": rounds,
        "rps_best": max(rps) if rps else None,
        "rps_median": statistics.median(rps) if rps else None,
        "server_cpu_ms_per_request_median": statistics.median(cpu) if cpu else None,
        "loadgen_cpu_ms_per_request_median": statistics.median(item["loadgen_cpu_ms_per_request"] for item in rounds)
        if rounds
        else None,
        "failures": len(failures),
        "failure_examples": failures[:5],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.loadgen", description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="base URL of the server, e.g. http://127.0.0.1:8123")
    parser.add_argument("--host", required=True, help="Host header: the site's domain")
    parser.add_argument("--expect", required=True, help="text every response must contain")
    parser.add_argument("--path", default="/", help="path and query string to request (default /)")
    parser.add_argument("--requests", type=int, default=2000, help="measured requests per round")
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--cookie", help="a Cookie header sent with every request (a member's session)")
    parser.add_argument("--plan", help="a JSON file: the requests to send in turn (see above)")
    parser.add_argument("--server-pid", type=int, help="the server's process id, to report its CPU time per request")
    args = parser.parse_args(argv)
    report = asyncio.run(main_async(args))
    print(json.dumps(report), flush=True)
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
