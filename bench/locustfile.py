"""The soak scenario (bench/bench_soak.py runs it with Locust, headless): members of two
sites browse, search, like, chat over their WebSocket and buy credits on the sandbox.

Each simulated member logs in with a session made for it (SOAK_DATA, a JSON file written
by the driver), keeps one WebSocket open at /ws/ like a page does, and sends chat
messages over HTTP; the socket's own copy of each message ("message.new" with the same
client_id) is reported as the request "WS message.new", timed from the POST. Any answer
other than the expected one counts as a failure."""

from __future__ import annotations

import itertools
import json
import os
import random
import threading
import time
import uuid

import gevent
import websocket
from locust import HttpUser, between, events, task

DATA = json.loads(open(os.environ["SOAK_DATA"]).read())  # noqa: SIM115 - read once at import
CSRF = "s" * 32
BUY_EVERY_SECONDS = 90
_members = itertools.cycle([(site, member) for member in range(DATA["members_per_site"]) for site in DATA["sites"]])
_lock = threading.Lock()


class Member(HttpUser):
    wait_time = between(0.5, 2.0)

    def on_start(self) -> None:
        with _lock:
            site, index = next(_members)
        self.site = site
        self.me = site["members"][index]
        self.others = [m for i, m in enumerate(site["members"]) if i != index]
        self.client.headers.update(
            {"Host": f"{site['domain']}:{DATA['port']}", "X-CSRFToken": CSRF, "Referer": self.url("/")}
        )
        self.client.cookies.set(DATA["session_cookie"], self.me["session"])
        self.client.cookies.set(DATA["csrf_cookie"], CSRF)
        self.waiting: dict[str, float] = {}
        self.socket = None
        self.reader = gevent.spawn(self._read_socket)

    def on_stop(self) -> None:
        self.reader.kill()
        if self.socket is not None:
            self.socket.close()

    def url(self, path: str) -> str:
        return f"http://{self.site['domain']}:{DATA['port']}{path}"

    # --- The live connection ------------------------------------------------------------

    def _read_socket(self) -> None:
        cookie = f"{DATA['session_cookie']}={self.me['session']}"
        while True:
            try:
                self.socket = websocket.create_connection(
                    f"ws://127.0.0.1:{DATA['port']}/ws/",
                    host=f"{self.site['domain']}:{DATA['port']}",
                    origin=f"http://{self.site['domain']}:{DATA['port']}",
                    cookie=cookie,
                    timeout=30,
                )
                while True:
                    frame = json.loads(self.socket.recv())
                    if frame.get("type") == "message.new":
                        started = self.waiting.pop(frame["message"].get("client_id") or "", None)
                        if started is not None:
                            events.request.fire(
                                request_type="WS",
                                name="message.new",
                                response_time=(time.perf_counter() - started) * 1000,
                                response_length=0,
                                exception=None,
                            )
            except websocket.WebSocketTimeoutException:
                self.socket.send('{"type":"ping"}')
            except Exception as error:  # noqa: BLE001 - reported, then the page's client reconnects
                events.request.fire(
                    request_type="WS", name="socket", response_time=0, response_length=0, exception=error
                )
                gevent.sleep(1)

    # --- What members do ------------------------------------------------------------------

    @task(6)
    def browse_a_profile(self) -> None:
        other = random.choice(self.others)
        self.client.get(f"/members/{other['profile']}", name="/members/[id]")

    @task(4)
    def search(self) -> None:
        self.client.get("/api/search.php", params={"page": random.randint(1, 3)}, name="/api/search.php")

    @task(3)
    def chats(self) -> None:
        self.client.get("/chats")
        self.client.get("/api/chats.php")

    @task(2)
    def like(self) -> None:
        other = random.choice(self.others)
        with self.client.post("/api/likes.php", json={"profile": other["profile"]}, catch_response=True) as answer:
            if answer.status_code == 200 or (answer.status_code == 400 and "already" in answer.text):
                answer.success()

    @task(5)
    def chat(self) -> None:
        client_id = uuid.uuid4().hex
        body = {"conversation": self.me["conversation"], "client_id": client_id, "text": "Hello from the soak"}
        self.waiting[client_id] = time.perf_counter()
        with self.client.post("/api/message.php", json=body, catch_response=True) as answer:
            if answer.status_code != 201:
                self.waiting.pop(client_id, None)
                answer.failure(f"{answer.status_code}: {answer.text[:200]}")

    @task(1)
    def buy_credits(self) -> None:
        # A member buys now and then, not every few seconds (the site refuses more than
        # 10 payment starts in 10 minutes with 429, as it should).
        if time.monotonic() - getattr(self, "bought_at", -BUY_EVERY_SECONDS) < BUY_EVERY_SECONDS:
            return
        self.bought_at = time.monotonic()
        body = {"package": self.site["package"], "method": "visa"}
        with self.client.post("/api/payment.php", json=body, catch_response=True) as answer:
            if answer.status_code != 201:
                answer.failure(f"{answer.status_code}: {answer.text[:200]}")
                return
            payment = answer.json()["payment"]
            checkout = answer.json()["checkout_url"]
        path = "/" + checkout.split("/", 3)[3] if checkout.startswith("http") else checkout
        self.client.post(path, data={"action": "pay"}, name="/sandbox/checkout/[id]", allow_redirects=False)
        for _ in range(20):
            status = self.client.get("/api/payment.php", params={"id": payment["id"]}, name="/api/payment.php?id")
            if status.ok and status.json()["payment"]["status"] == "completed":
                return
            gevent.sleep(0.5)
        events.request.fire(
            request_type="SANDBOX", name="paid", response_time=0, response_length=0, exception=RuntimeError("unpaid")
        )
