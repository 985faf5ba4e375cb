"""What the benchmarks share: the bench database, Django set-up, a uvicorn server in
a subprocess, the load generator process and the result rows of the table."""

from __future__ import annotations

import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "bench" / "results"
VENV_BIN = ROOT / ".venv" / "bin"
PYTHON = str(VENV_BIN / "python") if (VENV_BIN / "python").exists() else sys.executable
UVICORN = str(VENV_BIN / "uvicorn")

# BENCH_DATABASE in the environment names another one: two people sharing one PostgreSQL
# server each run their own bench without dropping the other's database.
BENCH_DATABASE = os.environ.get("BENCH_DATABASE") or "dating_bench"
DEFAULT_DATABASE_URL = "postgres://postgres@localhost:5432/dating"
# Cache keys of the bench never mix with the development site's (same Redis).
BENCH_CACHE_PREFIX = "bench"


def log(message: str) -> None:
    print(f"[bench] {message}", flush=True)


class BenchError(RuntimeError):
    """A benchmark could not run (as opposed to a goal that was missed)."""


# --- The database ------------------------------------------------------------------


def bench_database_url(url: str, name: str = BENCH_DATABASE) -> str:
    """`url` with only its database name replaced. The host part may be a
    percent-encoded Unix socket directory; it is kept as it is."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql", "pgsql", "postgis"):
        raise BenchError(f"DATABASE_URL must be a PostgreSQL URL, not {parts.scheme}://")
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def database_name(url: str) -> str:
    return unquote(urlsplit(url).path.lstrip("/"))


def connect_kwargs(url: str, dbname: str | None = None) -> dict:
    """psycopg keyword arguments for `url` (the same reading as config.settings.base)."""
    import environ

    config = environ.Env.db_url_config(url)
    kwargs = {
        "dbname": dbname or config.get("NAME"),
        "user": config.get("USER") or None,
        "password": config.get("PASSWORD") or None,
        "host": unquote(config.get("HOST") or "") or None,
        "port": config.get("PORT") or None,
        **(config.get("OPTIONS") or {}),
    }
    return {key: value for key, value in kwargs.items() if value not in (None, "")}


def server_connect(url: str, dbname: str | None = None):
    import psycopg

    return psycopg.connect(**connect_kwargs(url, dbname), autocommit=True, connect_timeout=10)


def maintenance_connect(source_url: str):
    """A connection to the server of `source_url` that is not in the bench database:
    to "postgres", else to DATABASE_URL's own database."""
    last_error: Exception | None = None
    for maintenance in ("postgres", database_name(source_url)):
        try:
            return server_connect(source_url, maintenance)
        except Exception as exc:  # noqa: BLE001 - try the next maintenance database
            last_error = exc
    raise BenchError(f"cannot reach the database server of DATABASE_URL: {last_error}")


def recreate_database(source_url: str, bench_url: str) -> None:
    """Drop and create the bench database on the server of `source_url`."""
    from psycopg import sql

    name = database_name(bench_url)
    if name == database_name(source_url):
        raise BenchError(f"DATABASE_URL already names {name!r}: the bench needs a database of its own")
    with maintenance_connect(source_url) as conn:
        # WITH (FORCE) ends connections a previous, interrupted run left behind.
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def drop_database(source_url: str, bench_url: str) -> None:
    from psycopg import sql

    name = database_name(bench_url)
    if name == database_name(source_url):
        raise BenchError(f"refusing to drop {name!r}: it is DATABASE_URL's own database")
    with maintenance_connect(source_url) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def server_version(url: str) -> str:
    with maintenance_connect(url) as conn:
        return conn.execute("SHOW server_version").fetchone()[0]


def database_stats(url: str) -> dict:
    """Counters of the bench database: sessions opened and transactions so far."""
    with server_connect(url) as conn:
        row = conn.execute(
            "SELECT sessions, xact_commit + xact_rollback, tup_returned + tup_fetched "
            "FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
    return {"sessions": row[0], "transactions": row[1], "tuples_read": row[2]}


# --- Django --------------------------------------------------------------------------


def setup_django(bench_url: str) -> None:
    """Point this process at the bench database, then set Django up. Must run before
    anything imports the settings."""
    if "django.conf" in sys.modules:
        from django.conf import settings

        if settings.configured:
            raise BenchError("Django was set up before the bench database was chosen")
    os.environ["DATABASE_URL"] = bench_url
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
    os.environ["DJANGO_DEBUG"] = "false"
    os.environ["CACHE_KEY_PREFIX"] = BENCH_CACHE_PREFIX
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)

    import django

    django.setup()
    import logging

    logging.getLogger("httpx").setLevel(logging.WARNING)  # no line per request of the site checks
    from django.conf import settings

    configured = settings.DATABASES["default"]["NAME"]
    if configured != database_name(bench_url):
        raise BenchError(f"Django uses database {configured!r}, not the bench database")


def server_env(settings_module: str = "config.settings.local") -> dict:
    """Environment of a server process: this process's, which already points at the
    bench database (setup_django). `settings_module` may be bench.settings, which adds
    bench-only URLs."""
    env = dict(os.environ)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": settings_module,
            "DJANGO_DEBUG": "false",
            "CACHE_KEY_PREFIX": BENCH_CACHE_PREFIX,
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


# --- Processes -----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stop_process(process: subprocess.Popen, timeout: float = 10) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=5)


@contextmanager
def uvicorn_server(
    host_header: str,
    expect: str,
    *,
    start_timeout: float = 60,
    path: str = "/",
    settings_module: str = "config.settings.local",
    app: str = "config.asgi:application",
    env: dict | None = None,
) -> Iterator[tuple[str, int]]:
    """A uvicorn worker serving `app` on a free port; yields its base URL and process id
    once GET `path` for `host_header` answers 200 and contains `expect`. With --workers 1
    uvicorn serves in that very process. `env` adds to the server's environment."""
    import httpx

    port = free_port()
    args = [
        UVICORN, app, "--host", "127.0.0.1", "--port", str(port),
        "--workers", "1", "--lifespan", "off", "--log-level", "warning",
    ]  # fmt: skip
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    server_log = RESULTS_DIR / "uvicorn.log"
    with server_log.open("a") as output:
        output.write(f"--- uvicorn on port {port}, Host {host_header}, {time.strftime('%H:%M:%S')}\n")
        output.flush()
        process = subprocess.Popen(
            args,
            cwd=ROOT,
            env={**server_env(settings_module), **(env or {})},
            start_new_session=True,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_timeout
        last = "no answer"
        while True:
            if process.poll() is not None:
                raise BenchError(f"uvicorn exited with status {process.returncode} while starting; see {server_log}")
            try:
                response = httpx.get(base_url + path, headers={"Host": host_header}, timeout=10)
                if response.status_code == 200 and expect in response.text:
                    break
                last = f"status {response.status_code}"
            except httpx.TransportError as exc:
                last = type(exc).__name__
            if time.monotonic() > deadline:
                raise BenchError(
                    f"uvicorn did not serve {host_header} within {start_timeout:.0f} s ({last}); see {server_log}"
                )
            time.sleep(0.1)
        yield base_url, process.pid
    finally:
        stop_process(process)


def run_loadgen(
    base_url: str,
    host: str,
    expect: str,
    *,
    requests: int,
    warmup: int,
    concurrency: int,
    rounds: int,
    server_pid: int | None = None,
    timeout: float = 600,
    path: str = "/",
    cookie: str | None = None,
    plan: list[dict] | None = None,
) -> dict:
    """Runs bench.loadgen in a process of its own and returns its JSON report. `plan`: the
    requests to send in turn instead of one (bench.loadgen --plan), each a dict with
    `host`, `path` and optionally `expect`, `cookie`, `language`, `country`, `follow`."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", prefix="bench-plan-", suffix=".json", delete=False) as plan_file:
        json.dump(plan or [], plan_file)
    args = [
        PYTHON, "-m", "bench.loadgen", "--url", base_url, "--host", host, "--expect", expect, "--path", path,
        "--requests", str(requests), "--warmup", str(warmup), "--concurrency", str(concurrency),
        "--rounds", str(rounds), *(["--server-pid", str(server_pid)] if server_pid else []),
        *(["--cookie", cookie] if cookie else []), *(["--plan", plan_file.name] if plan else []),
    ]  # fmt: skip
    try:
        completed = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"the load generator did not finish within {timeout:.0f} s") from exc
    finally:
        os.unlink(plan_file.name)
    try:
        report = json.loads(completed.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError) as exc:
        raise BenchError(
            f"the load generator failed (status {completed.returncode}): {completed.stderr.strip()[-2000:]}"
        ) from exc
    if completed.returncode != 0 or report.get("failures"):
        raise BenchError(f"the load generator saw bad responses: {json.dumps(report.get('failure_examples'))}")
    return report


# --- Results -------------------------------------------------------------------------


def median(values: list[float]) -> float:
    return statistics.median(values)


@dataclass
class Result:
    """One row of the table. `ratio` compares `measured` with `baseline`; `goal_met`
    is None while the benchmark has not produced a ratio."""

    name: str
    title: str
    baseline: float | None = None
    baseline_label: str = ""
    measured: float | None = None
    measured_label: str = ""
    ratio: float | None = None
    ratio_format: str = "{:.2f}"
    goal: str = ""
    goal_met: bool | None = None
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    details: dict = field(default_factory=dict)
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)


def hard_coded_goals(paths: list[Path] | None = None) -> list[str]:
    """Where a module under bench/ sets a row's `goal_met` to a constant (`goal_met=True`,
    `row.goal_met = False`, in a tuple assignment too): "file:line" of each. A row's goal
    is met or missed by its measured numbers only, never by a label written beside them,
    so the bench refuses to run while one is left (bench.__main__)."""
    import ast

    found = []
    for path in paths or sorted((ROOT / "bench").glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            pairs: list[tuple[ast.AST, ast.AST]] = []
            if isinstance(node, ast.keyword) and node.arg == "goal_met":
                pairs.append((node, node.value))
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                        pairs += list(zip(target.elts, node.value.elts, strict=False))
                    elif node.value is not None:
                        pairs.append((target, node.value))
            for target, value in pairs:
                named = isinstance(target, ast.keyword) or (
                    isinstance(target, ast.Attribute | ast.Name)
                    and getattr(target, "attr", getattr(target, "id", "")) == "goal_met"
                )
                if named and isinstance(value, ast.Constant) and value.value is not None:
                    found.append(f"{path.name}:{value.lineno}")
    return found


def rss_bytes(pid: int) -> int:
    try:
        import psutil

        return psutil.Process(pid).memory_info().rss
    except ImportError:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    raise BenchError(f"cannot read the memory of process {pid}")


def members_with_sessions(*, count: int, prefix: str, email_domain: str, credits: int, gender) -> tuple:
    """In the current site's schema: `count` active members with profiles, `credits` each
    and a logged-in session each (db session engine). `gender(n)` gives the n-th member's.
    Returns (users, profiles, session keys)."""
    from datetime import date
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends import db

    from apps.accounts.models import User, UserStatus
    from apps.credits.models import EntryKind
    from apps.credits.services import credits_grant
    from apps.profiles.models import Profile, ProfileStatus

    store_class = import_module(settings.SESSION_ENGINE).SessionStore
    if not issubclass(store_class, db.SessionStore):
        raise BenchError(f"the bench writes sessions for the db engine, not {settings.SESSION_ENGINE}")
    users = User.objects.bulk_create(
        [
            User(
                username=f"{prefix}{n:05d}",
                email=f"{prefix}{n:05d}@{email_domain}",
                password="!",  # unusable: nobody logs in with a password here
                status=UserStatus.ACTIVE,
            )
            for n in range(count)
        ]
    )
    profiles = Profile.objects.bulk_create(
        [
            Profile(
                user=user,
                name=user.username,
                status=ProfileStatus.ACTIVE,
                gender=gender(n),
                country="GB",
                city="Leeds",
                date_of_birth=date(1990, 1, 1 + n % 28),
            )
            for n, user in enumerate(users)
        ]
    )
    sessions = []
    for user in users:
        credits_grant(user=user, credits=credits, kind=EntryKind.SIGNUP_BONUS, key=f"bench:{user.pk}")
        store = store_class()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "allauth.account.auth_backends.AuthenticationBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        sessions.append(store.session_key)
    return users, profiles, sessions
