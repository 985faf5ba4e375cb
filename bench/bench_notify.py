"""Benchmark "notifications": fan-out of one news notice, and a new message's push.

One site (`notify.bench.localhost`) with --notify-members (100,000) members who opted in
to "news" by push, each with a subscription at the bench's push service
(bench/push_sink.py: a process of its own that answers 201 and checks one push in 100 in
full, VAPID and aes128gcm).

(a) fan-out: a worker process (bench/notify_worker.py) makes the campaign's notices and
    sends them chunk by chunk with the Celery task's body, as one worker would. Its
    notices per second against the per-push cryptography the application does, timed
    alone in this run: pywebpush's WebPusher encrypting the payload for a device, with
    the VAPID header from the sender's cache (signed once per push service for hours,
    apps.common.vapid), goal >= 0.5. Everything else a notice costs (the
    database, its text, the request and the answer) is what the ratio weighs.
(b) memory: the same worker's peak RSS for a tenth of the members (a campaign to the
    German-speaking tenth) and for all of them; flat means the ratio stays <= 1.2.
(c) message to push: --notify-senders (1,000) members each send one message at the same
    moment (POST /api/message.php on a uvicorn server) to a member with a device; a real
    Celery worker (two processes) sends the pushes. The time from each POST until the
    push service received its push, p50 and p99, against a Redis PING round trip
    measured in the same run. Then the same one message at a time (no queueing), which
    is the path's own latency. NOTICE_DELAY_PUSH is 0 for this row: the delay that
    waits for a member to read a message is a product setting, not a cost.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import statistics
import subprocess
import time
import uuid

from bench.common import (
    PYTHON,
    RESULTS_DIR,
    ROOT,
    VENV_BIN,
    BenchError,
    Result,
    free_port,
    log,
    members_with_sessions,
    server_env,
    stop_process,
    uvicorn_server,
)

NAME = "notify"
DOMAIN = "notify.bench.localhost"
TITLE = "notify fan-out (notices/s per worker) vs the per-push crypto the app does (encrypt, cached VAPID)/s"
MEMORY_TITLE = "notify worker peak RSS (MB), all members vs a tenth"
LATENCY_TITLE = "message->push p99 (ms), 1,000 senders at once (100 in flight) vs Redis PING"
SEQUENTIAL_TITLE = "message->push p99 (ms), one at a time vs Redis PING"
FANOUT_GOAL = 0.5
MEMORY_GOAL = 1.2
BASELINE_SAMPLES = 2000
BURST_CONNECTIONS = 100


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


def _b64(data: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _device_keys() -> dict:
    """One browser key pair for every bench subscription (the sink decrypts with it)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return {
        "private": _b64(key.private_numbers().private_value.to_bytes(32, "big")),
        "p256dh": _b64(public),
        "auth": _b64(secrets.token_bytes(16)),
    }


class PushSink:
    def __init__(self, keys: dict) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **server_env(),
            "BENCH_PUSH_PRIVATE_KEY": keys["private"],
            "BENCH_PUSH_AUTH": keys["auth"],
            "BENCH_PUSH_ORIGIN": self.url,
        }
        args = [PYTHON, "-m", "bench.push_sink", str(self.port)]
        self.process = subprocess.Popen(args, cwd=ROOT, env=env, start_new_session=True)
        self._wait()

    def _wait(self) -> None:
        import httpx

        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/stats", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.1)
        raise BenchError("the bench push service did not start")

    def get(self, path: str) -> dict:
        import httpx

        return httpx.get(self.url + path, timeout=30).json()

    def stop(self) -> None:
        stop_process(self.process)


def baseline_rate(keys: dict, payload: bytes, private_key: str) -> dict:
    """The per-push cryptography the application does, without the request: the VAPID
    header from the sender's cache (apps.common.vapid, signed once here before the
    clock starts, as for the first push to a push service) and pywebpush's WebPusher
    encrypting the payload for the device (a fresh ECDH key and salt, aes128gcm), as
    apps.notifications.webpush does for every push."""
    from pywebpush import WebPusher

    from apps.common.vapid import vapid_headers

    subscription = {
        "endpoint": "https://push.example.net/push/x",
        "keys": {"p256dh": keys["p256dh"], "auth": keys["auth"]},
    }
    signing = {
        "private_key": private_key,
        "audience": "https://push.example.net",
        "subject": "mailto:bench@example.net",
    }
    vapid_headers(**signing)
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(BASELINE_SAMPLES):
        vapid_headers(**signing)
        WebPusher(subscription).encode(payload, "aes128gcm")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"per_second": BASELINE_SAMPLES / wall, "cpu_ms": 1000 * cpu / BASELINE_SAMPLES}


def make_audience(site, count: int, keys: dict, sink: PushSink) -> None:
    """`count` members who want "news" by push, each with a device; the first tenth
    reads the site in German."""
    from django_tenants.utils import tenant_context

    from apps.accounts.models import PushSubscription, User, UserStatus

    with tenant_context(site):
        for start in range(0, count, 5000):
            users = User.objects.bulk_create(
                [
                    User(
                        username=f"fan{n:06d}",
                        email=f"fan{n:06d}@{DOMAIN}",
                        password="!",
                        status=UserStatus.ACTIVE,
                        language="de" if n < count // 10 else "en",
                        email_notifications=[],
                        push_notifications=["news"],
                    )
                    for n in range(start, min(start + 5000, count))
                ]
            )
            PushSubscription.objects.bulk_create(
                [
                    PushSubscription(
                        user=user, endpoint=f"{sink.url}/push/{user.username}", p256dh=keys["p256dh"], auth=keys["auth"]
                    )
                    for user in users
                ]
            )


def settle_database(site) -> None:
    """VACUUM ANALYZE what the bench just wrote: a site's tables are not 100,000 rows
    fresh from one insert, and autovacuum catching up must not run during the fan-out."""
    from django.db import connection

    from apps.accounts.models import PushSubscription, User
    from apps.notifications.models import Notice

    with connection.cursor() as cursor:
        for model in (User, PushSubscription, Notice):
            table = f"{connection.ops.quote_name(site.schema_name)}.{connection.ops.quote_name(model._meta.db_table)}"
            cursor.execute(f"VACUUM ANALYZE {table}")


def fan_out(site, *, language: str) -> dict:
    from apps.tenants.models import Campaign

    campaign = Campaign.objects.create(
        site=site, kind="news", language=language, title="News", body="Something new on the site", email=False
    )
    output = subprocess.run(
        [PYTHON, "-m", "bench.notify_worker", str(campaign.pk)],
        cwd=ROOT,
        env=server_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    if output.returncode:
        raise BenchError(f"the notify worker failed: {output.stderr[-2000:]}")
    return json.loads(output.stdout.strip().splitlines()[-1])


def redis_ping() -> dict:
    import redis
    from django.conf import settings

    client = redis.Redis.from_url(settings.REDIS_URL)
    client.ping()
    samples = []
    for _ in range(1000):
        started = time.perf_counter()
        client.ping()
        samples.append(time.perf_counter() - started)
    client.close()
    ms = [value * 1000 for value in samples]
    return {"p50": statistics.median(ms), "p99": percentile(ms, 0.99)}


# --- (c) message to push ------------------------------------------------------------


def make_pairs(site, senders: int, keys: dict, sink: PushSink) -> dict:
    from django_tenants.utils import tenant_context

    from apps.accounts.models import PushSubscription
    from apps.chat.services import conversation_open

    with tenant_context(site):
        users, profiles, sessions = members_with_sessions(
            count=2 * senders, prefix="pair", email_domain=DOMAIN, credits=100, gender=lambda n: "female"
        )
        PushSubscription.objects.bulk_create(
            [
                PushSubscription(
                    user=users[2 * j + 1],
                    endpoint=f"{sink.url}/push/{users[2 * j + 1].username}",
                    p256dh=keys["p256dh"],
                    auth=keys["auth"],
                )
                for j in range(senders)
            ]
        )
        conversations = [
            conversation_open(user=users[2 * j], profile_id=profiles[2 * j + 1].pk).pk for j in range(senders)
        ]
    return {
        "sessions": [sessions[2 * j] for j in range(senders)],
        "tokens": [users[2 * j + 1].username for j in range(senders)],
        "conversations": conversations,
    }


def celery_worker() -> subprocess.Popen:
    args = [str(VENV_BIN / "celery"), "-A", "config", "worker", "--concurrency=2", "--loglevel=WARNING",
            "--without-heartbeat", "--without-mingle", "--without-gossip"]  # fmt: skip
    with (RESULTS_DIR / "uvicorn.log").open("a") as output:
        return subprocess.Popen(
            args, cwd=ROOT, env=server_env(), start_new_session=True, stdout=output, stderr=subprocess.STDOUT
        )


async def send_messages(
    base_url: str, data: dict, indexes: list[int], *, at_once: bool, answered: dict | None = None
) -> dict[int, float]:
    import httpx
    from django.conf import settings

    csrf = secrets.token_hex(16)
    started: dict[int, float] = {}
    # At once: every sender's request is made at the same moment, over at most
    # BURST_CONNECTIONS connections (one server process with its pool of database
    # connections; more in flight only wait for a connection and time out).
    limits = httpx.Limits(max_connections=min(len(indexes), BURST_CONNECTIONS) if at_once else 1)
    gate = asyncio.Semaphore(limits.max_connections or 1)
    async with httpx.AsyncClient(base_url=base_url, timeout=120, headers={"Host": DOMAIN}, limits=limits) as http:

        async def one(index: int) -> None:
            async with gate:
                started[index] = time.time()
                response = await http.post(
                    "/api/message.php",
                    json={"conversation": data["conversations"][index], "client_id": uuid.uuid4().hex, "text": "hi"},
                    headers={
                        "Origin": f"http://{DOMAIN}",
                        "X-CSRFToken": csrf,
                        "Cookie": f"{settings.SESSION_COOKIE_NAME}={data['sessions'][index]}; "
                        f"{settings.CSRF_COOKIE_NAME}={csrf}",
                    },
                )
            if response.status_code not in (200, 201):
                raise BenchError(f"POST /api/message.php answered {response.status_code}: {response.text[:300]}")
            if answered is not None:
                answered[index] = time.time() - started[index]

        if at_once:
            await asyncio.gather(*(one(index) for index in indexes))
        else:
            for index in indexes:
                await one(index)
    return started


def arrivals(sink: PushSink, data: dict, started: dict[int, float], timeout: float = 120) -> list[float]:
    """Seconds from each POST to its push at the sink (waits until all arrived)."""
    deadline = time.monotonic() + timeout
    while True:
        times = sink.get("/times")
        latencies = []
        for index, at in started.items():
            after = [t for t in times.get(data["tokens"][index], []) if t >= at]
            if after:
                latencies.append(min(after) - at)
        if len(latencies) == len(started):
            return latencies
        if time.monotonic() > deadline:
            raise BenchError(f"only {len(latencies)} of {len(started)} pushes arrived")
        time.sleep(0.2)


def message_to_push(site, options, keys: dict, sink: PushSink) -> tuple[dict, dict]:
    senders = options.notify_senders
    data = make_pairs(site, senders, keys, sink)
    worker = celery_worker()
    try:
        with uvicorn_server(DOMAIN, "", path="/healthz", settings_module="bench.settings") as (base_url, _pid):
            # Warm up both processes of the worker and the server.
            warm = list(range(senders - 10, senders))
            arrivals(sink, data, asyncio.run(send_messages(base_url, data, warm, at_once=False)))
            burst = list(range(senders - 10))
            at_once = arrivals(sink, data, asyncio.run(send_messages(base_url, data, burst, at_once=True)))
            one_by_one = list(range(min(100, senders - 10)))
            answers: dict[int, float] = {}
            sent = asyncio.run(send_messages(base_url, data, one_by_one, at_once=False, answered=answers))
            sequential = arrivals(sink, data, sent)
    finally:
        stop_process(worker)

    def stats(values: list[float]) -> dict:
        ms = [value * 1000 for value in values]
        return {"samples": len(ms), "p50": statistics.median(ms), "p99": percentile(ms, 0.99), "max": max(ms)}

    return stats(at_once), {**stats(sequential), "answer": stats(list(answers.values()))}


def run(options) -> list[Result]:
    from django.conf import settings
    from django.db import connection

    from apps.common.vapid import vapid_keys_generate
    from apps.tenants.services import site_create

    vapid_private, vapid_public = vapid_keys_generate()
    os.environ.update(
        {
            "VAPID_PRIVATE_KEY": vapid_private,
            "VAPID_PUBLIC_KEY": vapid_public,
            "PUSH_ENDPOINT_CHECK": "false",
            "NOTICE_DELAY_PUSH": "0",
            "CELERY_BROKER_URL": settings.REDIS_URL.rsplit("/", 1)[0] + "/14",
        }
    )
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY = vapid_private, vapid_public
    keys = _device_keys()
    sink = PushSink(keys)
    try:
        connection.set_schema_to_public()
        site = site_create(
            name="Bench Notify Site", domain=DOMAIN, countries=["GB"], languages=["en", "de"], domain_language="en",
            support_email=f"support@{DOMAIN}",
        )  # fmt: skip
        members = options.notify_members
        log(f"notify: {members} members with a device")
        started = time.perf_counter()
        make_audience(site, members, keys, sink)
        log(f"notify: members made in {time.perf_counter() - started:.0f} s")
        settle_database(site)
        # A campaign push's payload as the sender gets it (sending.push_payload): the same
        # fields and about the same size, so the baseline encrypts what the fan-out does.
        icon = "/icons/icon-192.png?v=0123456789ab"
        payload = json.dumps(
            {"id": "1234567", "kind": "news", "title": "News", "body": "Something new on the site", "url": "/",
             "checkUrl": "/", "tag": "campaign-1", "icon": icon, "badgeIcon": icon.replace("icon-192", "badge-96")},
            separators=(",", ":"),
        )  # fmt: skip
        # The baseline three times, around the fan-outs (the machine's load drifts): the median.
        rounds = [baseline_rate(keys, payload.encode(), vapid_private)]
        tenth = fan_out(site, language="de")
        log(f"notify: a tenth: {tenth}")
        rounds.append(baseline_rate(keys, payload.encode(), vapid_private))
        full = fan_out(site, language="")
        log(f"notify: all: {full}")
        rounds.append(baseline_rate(keys, payload.encode(), vapid_private))
        baseline = sorted(rounds, key=lambda item: item["per_second"])[1]
        sink_stats = sink.get("/stats")
        if sink_stats["failed"] or not sink_stats["verified"]:
            raise BenchError(f"the push service found bad pushes: {sink_stats}")
        at_once, sequential = message_to_push(site, options, keys, sink)
        ping = redis_ping()
    finally:
        sink.stop()
    rate = full["notices"] / full["send_seconds"]
    cpu_ms = 1000 * full["send_cpu_seconds"] / full["notices"]
    memory_ratio = full["maxrss_kb"] / tenth["maxrss_kb"]
    results = [
        Result(
            name=NAME,
            title=TITLE,
            baseline_label=f"{baseline['per_second']:.0f}/s ({baseline['cpu_ms']:.2f} ms CPU)",
            measured_label=f"{rate:.0f}/s ({cpu_ms:.2f} ms CPU)",
            ratio=rate / baseline["per_second"],
            goal=f">= {FANOUT_GOAL}",
            goal_met=rate / baseline["per_second"] >= FANOUT_GOAL,
            details={"baseline": baseline, "tenth": tenth, "all": full, "push_service": sink_stats},
            notes=[
                f"{full['notices']} notices to {members} members: sent {full['sent']}, failed {full['failed']}, "
                f"skipped {full['skipped']}; made in {full['insert_seconds']:.1f} s, sent in "
                f"{full['send_seconds']:.1f} s by one process; the push service checked {sink_stats['verified']} "
                "pushes in full (VAPID, aes128gcm) and found none bad",
                f"CPU per notice beyond the per-push crypto (the database, the notice's text, the request and "
                f"its answer): {cpu_ms - baseline['cpu_ms']:.2f} ms",
            ],
        ),
        Result(
            name=NAME,
            title=MEMORY_TITLE,
            baseline_label=f"{tenth['maxrss_kb'] / 1024:.0f} MB ({tenth['notices']})",
            measured_label=f"{full['maxrss_kb'] / 1024:.0f} MB ({full['notices']})",
            ratio=memory_ratio,
            ratio_format="{:.2f}",
            goal=f"<= {MEMORY_GOAL}",
            goal_met=memory_ratio <= MEMORY_GOAL,
        ),
        Result(
            name=NAME,
            title=LATENCY_TITLE,
            baseline_label=f"{ping['p50']:.2f} ms p50",
            measured_label=f"p50 {at_once['p50']:.0f} ms, p99 {at_once['p99']:.0f} ms",
            ratio=at_once["p99"] / ping["p50"],
            ratio_format="{:.0f}x",
            goal="(reported)",
            goal_met=None,
            details={"at_once": at_once, "redis_ping": ping},
        ),
        Result(
            name=NAME,
            title=SEQUENTIAL_TITLE,
            baseline_label=f"{ping['p50']:.2f} ms p50",
            measured_label=f"p50 {sequential['p50']:.1f} ms, p99 {sequential['p99']:.1f} ms",
            notes=[
                f"of which the sender's HTTP answer: p50 {sequential['answer']['p50']:.1f} ms, "
                f"p99 {sequential['answer']['p99']:.1f} ms (the push task is queued when the message commits)"
            ],
            ratio=sequential["p99"] / ping["p50"],
            ratio_format="{:.0f}x",
            goal="(reported)",
            goal_met=None,
            details={"sequential": sequential},
        ),
    ]
    return results
