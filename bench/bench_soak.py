"""Soak: members of two sites (general and gay niche) browse, search, like, chat over
WebSockets and buy credits on the sandbox for SOAK_MINUTES (default 10), driven by Locust
(bench/locustfile.py) against one uvicorn worker and one Celery worker.

Goals: zero failed requests; the p99 of every endpoint reported; the memory (RSS) of every
process flat: at the end no more than 10 % above its level after the first minute."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import threading
import time

from bench.common import (
    RESULTS_DIR,
    ROOT,
    BenchError,
    Result,
    log,
    members_with_sessions,
    rss_bytes,
    server_env,
    stop_process,
    uvicorn_server,
)

NAME = "soak"
TITLE = "soak: members of two sites for 10 minutes"
SITES = [("soak-general.bench.localhost", "Soak general", 1), ("soak-gay.bench.localhost", "Soak gay", 7)]
MEMORY_GOAL = 1.10
CREDITS = 1_000_000


def make_sites(members: int) -> list[dict]:
    from django.db import connection
    from django_tenants.utils import tenant_context

    from apps.chat.services import conversation_open
    from apps.payments.models import CreditPackage
    from apps.payments.packages import packages_default_ensure
    from apps.tenants.services import site_create

    made = []
    for domain, name, niche in SITES:
        connection.set_schema_to_public()
        site = site_create(
            name=name, domain=domain, countries=["GB"], languages=["en"], domain_language="en",
            support_email=f"support@{domain}", niche=niche,
        )  # fmt: skip
        packages_default_ensure(site)
        package = CreditPackage.objects.filter(site=site, credits=50).values_list("pk", flat=True).get()
        with tenant_context(site):
            users, profiles, sessions = members_with_sessions(
                count=members,
                prefix="soak",
                email_domain=domain,
                credits=CREDITS,
                gender=lambda n, niche=niche: "male" if niche == 7 or n % 2 else "female",
            )
            rows = [
                {
                    "session": session,
                    "profile": profile.pk,
                    "conversation": conversation_open(user=user, profile_id=profiles[(n + 1) % members].pk).pk,
                }
                for n, (user, profile, session) in enumerate(zip(users, profiles, sessions, strict=True))
            ]
        made.append({"domain": domain, "name": name, "package": package, "members": rows})
    connection.set_schema_to_public()
    return made


def celery_worker(port: int) -> subprocess.Popen:
    log_file = (RESULTS_DIR / "soak-celery.log").open("a")
    env = {**server_env(), "SANDBOX_WEBHOOK_ADDRESS": f"127.0.0.1:{port}"}
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config.celery", "worker", "-P", "solo", "-l", "warning"],
        cwd=ROOT, env=env, start_new_session=True, stdout=log_file, stderr=subprocess.STDOUT,
    )  # fmt: skip


def run(options) -> list[Result]:
    from django.conf import settings

    minutes = float(os.environ.get("SOAK_MINUTES", "10"))
    users = int(os.environ.get("SOAK_USERS", "40"))
    members = max(users, 10)
    log(f"  creating 2 sites with {members} members each")
    sites = make_sites(members)
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    worker = None
    try:
        with uvicorn_server(SITES[0][0], SITES[0][1]) as (base_url, pid):
            port = int(base_url.rsplit(":", 1)[1])
            worker = celery_worker(port)
            data_file = RESULTS_DIR / "soak-data.json"
            data_file.write_text(
                json.dumps(
                    {
                        "port": port,
                        "sites": sites,
                        "members_per_site": members,
                        "session_cookie": settings.SESSION_COOKIE_NAME,
                        "csrf_cookie": settings.CSRF_COOKIE_NAME,
                    }
                )
            )
            processes = {"uvicorn": pid, "celery": worker.pid}
            samples: dict[str, list[tuple[float, int]]] = {key: [] for key in processes}
            stop = threading.Event()

            def sample() -> None:
                started = time.monotonic()
                while not stop.wait(15):
                    for key, process_id in processes.items():
                        samples[key].append((time.monotonic() - started, rss_bytes(process_id)))

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            prefix = RESULTS_DIR / "soak"
            command = [
                sys.executable, "-m", "locust", "-f", str(ROOT / "bench" / "locustfile.py"), "--headless",
                "-u", str(users), "-r", str(max(1, users // 10)), "-t", f"{int(minutes * 60)}s",
                "--host", base_url, "--csv", str(prefix), "--only-summary", "--stop-timeout", "10",
            ]  # fmt: skip
            log(f"  locust: {users} members for {minutes:g} min against {base_url}")
            env = {**os.environ, "SOAK_DATA": str(data_file)}
            subprocess.run(command, cwd=ROOT, env=env, check=False, timeout=minutes * 60 + 300)
            stop.set()
            sampler.join()
    finally:
        if worker is not None:
            stop_process(worker)
    return results(prefix, samples, minutes, users)


def results(prefix, samples: dict, minutes: float, users: int) -> list[Result]:
    with open(f"{prefix}_stats.csv") as handle:
        rows = list(csv.DictReader(handle))
    endpoints = [row for row in rows if row["Name"] != "Aggregated"]
    total = next(row for row in rows if row["Name"] == "Aggregated")
    failures = int(total["Failure Count"])
    requests = int(total["Request Count"])
    if not requests:
        raise BenchError("the soak made no request")
    errors = Result(name=NAME, title="soak: failed requests", goal="0", ratio_format="{:.0f}")
    errors.baseline, errors.baseline_label = requests, f"{requests:,} requests"
    errors.measured, errors.measured_label = failures, f"{failures:,} failed"
    errors.ratio = failures
    errors.goal_met = failures == 0
    errors.notes.append(
        f"{users} members on 2 sites for {minutes:g} min; p99 ms per endpoint: "
        + ", ".join(f"{row['Type']} {row['Name']} {row['99%']} ({row['Request Count']})" for row in endpoints)
    )
    memory = Result(name=NAME, title="soak: memory growth (end / after 1 min)", goal=f"<= {MEMORY_GOAL:.2f}",
                    ratio_format="{:.2f}")  # fmt: skip
    growth = {}
    for key, values in samples.items():
        settled = [rss for at, rss in values if at >= 60] or [rss for _at, rss in values]
        if settled:
            growth[key] = (settled[0], settled[-1], settled[-1] / settled[0])
    worst = max(growth.values(), key=lambda item: item[2]) if growth else (0, 0, 0.0)
    memory.baseline, memory.baseline_label = worst[0], f"{worst[0] / 2**20:.1f} MB"
    memory.measured, memory.measured_label = worst[1], f"{worst[1] / 2**20:.1f} MB"
    memory.ratio = worst[2]
    memory.goal_met = bool(growth) and all(item[2] <= MEMORY_GOAL for item in growth.values())
    memory.notes.append(
        "; ".join(f"{key} {a / 2**20:.1f} -> {b / 2**20:.1f} MB ({r:.2f}x)" for key, (a, b, r) in growth.items())
    )
    details = {
        "endpoints": {
            f"{row['Type']} {row['Name']}": {
                "requests": int(row["Request Count"]),
                "failures": int(row["Failure Count"]),
                "p50_ms": row["50%"],
                "p99_ms": row["99%"],
                "rps": row["Requests/s"],
            }
            for row in endpoints
        },
        "rss_samples": dict(samples),
    }
    errors.details = memory.details = details
    return [errors, memory]
