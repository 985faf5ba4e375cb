"""python -m bench [--only NAME] [--sites N] [--requests N] ...

Creates the bench database ("dating_bench") next to DATABASE_URL's, migrates it,
runs the benchmarks, prints the table and writes bench/results/latest.json.
Exits 1 if a benchmark could not run; a missed goal only shows in the table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import traceback
from datetime import UTC, datetime

from bench import (
    bench_burst,
    bench_js,
    bench_landers,
    bench_landing,
    bench_notify,
    bench_reports,
    bench_scale,
    bench_search,
    bench_site_create,
    bench_soak,
    bench_ws,
)
from bench.common import (
    BENCH_DATABASE,
    DEFAULT_DATABASE_URL,
    RESULTS_DIR,
    BenchError,
    Result,
    bench_database_url,
    drop_database,
    hard_coded_goals,
    log,
    recreate_database,
    server_version,
    setup_django,
)

BENCHMARKS = {
    bench_site_create.NAME: bench_site_create,
    bench_landing.NAME: bench_landing,
    bench_landers.NAME: bench_landers,
    bench_search.NAME: bench_search,
    bench_ws.NAME: bench_ws,
    bench_notify.NAME: bench_notify,
    bench_scale.NAME: bench_scale,
    bench_js.NAME: bench_js,
    bench_burst.NAME: bench_burst,
    bench_reports.NAME: bench_reports,
}
# Run only when asked for (--only soak, make soak): ten minutes of load.
OPTIONAL = {bench_soak.NAME: bench_soak}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description="Benchmarks of the multi-site platform.")
    parser.add_argument(
        "--keep-database", action="store_true",
        help=f"keep the {BENCH_DATABASE} database after the run (it is kept anyway when a benchmark failed)",
    )  # fmt: skip
    parser.add_argument("--only", choices=sorted({**BENCHMARKS, **OPTIONAL}), help="run only this benchmark")
    parser.add_argument("--sites", type=int, default=1000, help="sites in the landing benchmark (default 1000)")
    parser.add_argument(
        "--requests", type=int, default=2000, help="measured requests per landing-page phase (default 2000)"
    )
    parser.add_argument("--warmup", type=int, default=200, help="warm-up requests per phase (default 200)")
    parser.add_argument(
        "--rounds", type=int, default=5, help="the requests are timed in this many rounds; the best counts (default 5)"
    )
    parser.add_argument("--concurrency", type=int, default=8, help="requests in flight (default 8)")
    parser.add_argument("--create-sites", type=int, default=5, help="sites per path in site creation (default 5)")
    parser.add_argument(
        "--create-budget", type=float, default=300,
        help="seconds the landing benchmark may spend creating sites before it gives up (default 300)",
    )  # fmt: skip
    parser.add_argument(
        "--profiles", type=int, default=1_000_000, help="profiles in the search benchmark's site (default 1000000)"
    )
    parser.add_argument("--deep-page", type=int, default=400, help="the search benchmark's deep page (default 400)")
    parser.add_argument(
        "--latency-samples", type=int, default=50, help="requests per page in the search latency (default 50)"
    )
    parser.add_argument(
        "--ws-connections", type=int, default=1000, help="WebSocket connections in the ws benchmark (default 1000)"
    )
    parser.add_argument("--ws-sends", type=int, default=500, help="measured sends in the ws benchmark (default 500)")
    parser.add_argument(
        "--scale-members", type=int, default=200, help="members with a socket in scale's messages/s (default 200)"
    )
    parser.add_argument("--scale-seconds", type=float, default=20, help="seconds of posting per scale phase")
    parser.add_argument(
        "--scale-sockets", type=int, default=10_000, help="idle sockets over scale's 2 processes (default 10000)"
    )
    parser.add_argument("--burst", type=int, default=1000, help="requests at once in the burst benchmark")
    parser.add_argument(
        "--notify-members", type=int, default=100_000,
        help="members who get the fan-out's news notice (default 100000)",
    )  # fmt: skip
    parser.add_argument(
        "--notify-senders", type=int, default=1000, help="members who send a message at once (default 1000)"
    )
    args = parser.parse_args(argv)
    if args.notify_members < 100 or args.notify_senders < 20:
        parser.error("--notify-members must be at least 100 and --notify-senders at least 20")
    if args.ws_connections < 40 or args.ws_connections % 2 or args.ws_sends < 1:
        parser.error("--ws-connections must be an even number of at least 40, --ws-sends positive")
    if args.burst < 2:
        parser.error("--burst must be at least 2")
    if args.deep_page < 2 or args.latency_samples < 1:
        parser.error("--deep-page must be at least 2 and --latency-samples positive")
    if args.requests < 1 or args.rounds < 1 or args.concurrency < 1 or args.create_sites < 1 or args.warmup < 0:
        parser.error("--requests, --rounds, --concurrency and --create-sites must be positive")
    return args


def format_table(results: list[Result]) -> str:
    header = ("benchmark", "baseline", "measured", "ratio", "goal", "result")
    rows = []
    for result in results:
        if result.error:
            outcome = "error"
        elif result.goal_met is None:
            outcome = "-"
        else:
            outcome = "ok" if result.goal_met else "goal missed"
        ratio = result.ratio_format.format(result.ratio) if result.ratio is not None else "-"
        rows.append(
            (result.title, result.baseline_label or "-", result.measured_label or "-", ratio, result.goal, outcome)
        )
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
             for row in [header, *rows]]  # fmt: skip
    for result in results:
        if result.error:
            lines.append(f"error in {result.name}: {result.error}")
    notes = [f"- {result.name}: {note}" for result in results for note in result.notes]
    if notes:
        lines += ["", "notes:", *notes]
    return "\n".join(lines)


def environment(source_url: str) -> dict:
    import django

    info = {
        "python": platform.python_version(),
        "django": django.get_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "database": BENCH_DATABASE,
    }
    try:
        info["postgresql"] = server_version(source_url)
    except Exception as exc:  # noqa: BLE001 - informative only
        info["postgresql"] = f"unknown ({type(exc).__name__})"
    return info


def _by_name(results: list[Result]) -> dict:
    """Each benchmark's row, or its rows (a list) when it gives several."""
    grouped: dict[str, list[dict]] = {}
    for result in results:
        grouped.setdefault(result.name, []).append(result.as_dict())
    return {name: rows[0] if len(rows) == 1 else rows for name, rows in grouped.items()}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    hard_coded = hard_coded_goals()
    if hard_coded:
        raise BenchError(f"goal_met set to a constant, not from the measured numbers: {', '.join(hard_coded)}")
    started = time.perf_counter()
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    source_url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    bench_url = bench_database_url(source_url)

    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / "uvicorn.log").write_text("")  # the servers of this run write here
    log(f"recreating database {BENCH_DATABASE!r} on the server of DATABASE_URL")
    recreate_database(source_url, bench_url)
    setup_django(bench_url)
    from django.core.management import call_command
    from django.db import connections

    t0 = time.perf_counter()
    call_command("migrate_all", verbosity=0)
    migrate_seconds = time.perf_counter() - t0
    log(f"migrate_all: {migrate_seconds:.1f} s")

    selected = [args.only] if args.only else list(BENCHMARKS)
    results: list[Result] = []
    for name in selected:
        module = {**BENCHMARKS, **OPTIONAL}[name]
        log(f"benchmark {name}")
        t0 = time.perf_counter()
        try:
            outcome = module.run(args)
        except Exception as exc:  # noqa: BLE001 - reported in the table; the exit status says it
            if not isinstance(exc, BenchError):
                traceback.print_exc()
            title = module.title(args.sites) if callable(getattr(module, "title", None)) else module.TITLE
            outcome = Result(name=name, title=title, error=f"{type(exc).__name__}: {exc}")
        # A benchmark gives one row, or several (search: throughput and depth).
        rows = outcome if isinstance(outcome, list) else [outcome]
        for row in rows:
            row.seconds = round(time.perf_counter() - t0, 1)
        log(f"benchmark {name}: {rows[0].seconds:.1f} s")
        results.extend(rows)

    connections.close_all()
    total = time.perf_counter() - started
    table = format_table(results)
    print()
    print(table)
    print(f"\n(total {total:.0f} s; results in {RESULTS_DIR.relative_to(RESULTS_DIR.parent.parent)}/latest.json)")

    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    report = {
        "started_at": started_at,
        "seconds": round(total, 1),
        "migrate_all_seconds": round(migrate_seconds, 1),
        "arguments": vars(args),
        "environment": environment(source_url),
        "table": table,
        "benchmarks": _by_name(results),
        "ok": not any(result.error for result in results),
    }
    (RESULTS_DIR / "latest.json").write_text(json.dumps(report, indent=2) + "\n")
    if report["ok"] and not args.keep_database:
        # 1,000 schemas take room on a development machine's server; the next run
        # creates the database again anyway.
        try:
            drop_database(source_url, bench_url)
        except Exception as exc:  # noqa: BLE001 - the results stand
            log(f"could not drop {BENCH_DATABASE}: {exc}")
    elif not report["ok"]:
        log(f"kept database {BENCH_DATABASE!r} for a look at what failed")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
