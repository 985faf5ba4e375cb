"""Benchmark "1,000 requests at once on one process": a burst, not a rate.

One uvicorn worker (the site's application, DEBUG off, the settings' database pool) gets
--burst requests at the same moment, each on a connection of its own, as when a campaign
goes out or a proxy hands over its queue: half the content page /pages/faq (never
cached: the site lookup, the middleware, a page of the database rendered) and half the
landing page (the page cache's hits once the first is stored). Every answer must be a 2xx,
or a 503 with Retry-After (the process sheds what it cannot serve in time,
apps.common.asgi, or the database pool timed out, apps.common.unavailable); any other
status, a reset connection or a timeout misses the goal.

Row: the share of answers that are a 2xx or a 503 with Retry-After (goal: all of them),
with the counts, the wall time of the burst and the latency percentiles of the 2xx.
"""

from __future__ import annotations

import asyncio
import time

from bench.common import BenchError, Result, log, median, uvicorn_server
from bench.many_sites import measured_site_alone

NAME = "burst"
TITLE = "{count:,} requests at once on one process: 2xx or 503 with Retry-After"
DOMAIN = "burst.bench.localhost"
SITE_NAME = "Bench Burst Site"
PATHS = ("/pages/faq", "/")
# The client waits this long for every answer; a request still unanswered then counts as lost.
CLIENT_TIMEOUT = 120


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


async def _burst(base_url: str, count: int) -> tuple[list[dict], float]:
    import httpx

    limits = httpx.Limits(max_connections=count, max_keepalive_connections=0)
    timeout = httpx.Timeout(CLIENT_TIMEOUT, pool=CLIENT_TIMEOUT)
    start = asyncio.Event()
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=timeout) as client:

        async def one(number: int) -> dict:
            path = PATHS[number % len(PATHS)]
            await start.wait()
            began = time.perf_counter()
            try:
                response = await client.get(path, headers={"Host": DOMAIN, "Connection": "close"})
            except httpx.HTTPError as exc:
                return {"path": path, "status": None, "error": type(exc).__name__, "seconds": None}
            return {
                "path": path,
                "status": response.status_code,
                "retry_after": response.headers.get("retry-after"),
                "seconds": time.perf_counter() - began,
            }

        tasks = [asyncio.create_task(one(number)) for number in range(count)]
        await asyncio.sleep(0)  # every task is waiting on the start
        began = time.perf_counter()
        start.set()
        answers = await asyncio.gather(*tasks)
        return answers, time.perf_counter() - began


def run(options) -> list[Result]:
    count = options.burst
    result = Result(name=NAME, title=TITLE.format(count=count), goal="all (1.00)")
    measured_site_alone(name=SITE_NAME, domain=DOMAIN, countries=["GB", "US"])
    with uvicorn_server(DOMAIN, SITE_NAME) as (base_url, _pid):
        log(f"  {count:,} requests at once ({', '.join(PATHS)})")
        answers, seconds = asyncio.run(_burst(base_url, count))
    ok = [answer for answer in answers if answer["status"] is not None and 200 <= answer["status"] < 300]
    shed = [answer for answer in answers if answer["status"] == 503 and answer.get("retry_after")]
    other = [answer for answer in answers if answer not in ok and answer not in shed]
    if not ok:
        raise BenchError(f"no request of the burst was answered with a 2xx: {other[:3]}")
    good = len(ok) + len(shed)
    statuses: dict[str, int] = {}
    for answer in other:
        key = str(answer["status"]) if answer["status"] is not None else answer["error"]
        statuses[key] = statuses.get(key, 0) + 1
    latencies = [answer["seconds"] * 1000 for answer in ok]
    result.baseline, result.baseline_label = count, f"{count:,} sent"
    result.measured, result.measured_label = good, f"{len(ok):,} 2xx + {len(shed):,} 503"
    result.ratio = good / count
    result.goal_met = good == count
    result.notes.append(
        f"burst of {count:,} in {seconds:.1f} s: {len(ok):,} answered 2xx (p50 {median(latencies):.0f} ms, "
        f"p99 {percentile(latencies, 0.99):.0f} ms), {len(shed):,} 503 with Retry-After, "
        f"{len(other):,} other{' ' + str(statuses) if statuses else ''}"
    )
    result.details = {
        "requests": count,
        "seconds": round(seconds, 2),
        "ok": len(ok),
        "shed": len(shed),
        "other": statuses,
        "latency_ms_p50": round(median(latencies), 1),
        "latency_ms_p99": round(percentile(latencies, 0.99), 1),
        "ok_by_path": {path: sum(1 for answer in ok if answer["path"] == path) for path in PATHS},
    }
    return [result]
