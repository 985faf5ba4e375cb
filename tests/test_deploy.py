"""The production process layout (docs/deploy.md) holds together: the Procfile and
deploy/compose.yaml name processes, modules, settings and queues that exist; every task
goes to the queue of its kind; the production settings load and pass Django's deployment
checks. Docker is not run here: tests/test_two_processes.py runs the Procfile's lines."""

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml
from django.conf import settings

from config.celery import app as celery_app
from tests.production import production_environment

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PROCESSES = {"web", "worker-notify", "worker-money", "worker-default", "beat"}


def procfile() -> dict[str, list[str]]:
    lines = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        match = re.fullmatch(r"([a-z-]+):\s*(.+)", line)
        if match:
            lines[match[1]] = shlex.split(match[2])
    return lines


def option(words: list[str], *names: str) -> str:
    for index, word in enumerate(words):
        if word in names:
            return words[index + 1]
    raise AssertionError(f"none of {names} in {words}")


def module_exists(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def test_the_procfile_starts_each_process_from_modules_and_queues_that_exist():
    lines = procfile()
    assert set(lines) == PROCESSES
    for name, words in lines.items():
        assert (BIN / words[0]).exists(), f"{name}: {words[0]} is not installed"
    web = lines["web"]
    assert web[0] == "uvicorn"
    module, attribute = web[1].split(":")
    assert module_exists(module) and attribute == "application"
    assert "--workers" in web  # several ASGI processes per machine
    declared = {queue.name for queue in settings.CELERY_TASK_QUEUES}
    consumed = set()
    for name in ("worker-notify", "worker-money", "worker-default"):
        words = lines[name]
        assert words[:4] == ["celery", "-A", "config", "worker"], words
        queues = set(option(words, "-Q", "--queues").split(","))
        assert queues <= declared, f"{name} consumes undeclared queues {queues - declared}"
        consumed |= queues
    assert consumed == declared  # no queue is left without a worker
    assert lines["beat"][:4] == ["celery", "-A", "config", "beat"]


def test_every_task_goes_to_the_queue_of_its_kind():
    celery_app.loader.import_default_modules()
    expected = {
        "apps.accounts.tasks.mail_send": "notify",
        "apps.accounts.tasks.members_erase_expired": "default",
        "apps.payments.tasks.payment_webhook_send": "money",
        "apps.payments.tasks.payments_reconcile": "money",
    }
    tasks = sorted(name for name in celery_app.tasks if name.startswith("apps."))
    assert set(expected) <= set(tasks)
    for name in tasks:
        if name.startswith("apps.notifications."):
            queue = "notify"
        elif name.startswith(("apps.payments.", "apps.credits.")):
            queue = "money"
        else:
            queue = expected.get(name, "default")
        route = celery_app.amqp.router.route({}, name)
        assert (name, route["queue"].name) == (name, queue)
        # Queues declared by name only are all bound with the key "default".
        assert route["queue"].routing_key == queue
    keys = [queue.routing_key for queue in settings.CELERY_TASK_QUEUES]
    assert len(set(keys)) == len(keys)
    # A worker started without -Q (`make run`, the benchmarks) consumes all of them.
    # (The app's queue map also gains the queues tests send to by name: read the setting.)
    assert {queue.name for queue in celery_app.conf.task_queues} == {"default", "notify", "money"}


def test_the_compose_file_runs_the_procfiles_processes_with_the_production_settings():
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    services = compose["services"]
    assert {"postgres", "redis", "pgbouncer", "migrate"} | PROCESSES <= set(services)
    run = ROOT / "deploy" / "run.sh"
    assert os.access(run, os.X_OK)
    for name in PROCESSES:
        service = services[name]
        assert service["command"] == ["deploy/run.sh", name]
        assert service["environment"]["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
        assert service["build"]["dockerfile"] == "deploy/Dockerfile"
        assert (ROOT / service["build"]["dockerfile"]).exists()
    assert module_exists("config.settings.production")
    command = services["migrate"]["command"]
    assert command[:3] == ["python", "manage.py", "migrate_all"]
    assert (ROOT / "apps" / "tenants" / "management" / "commands" / "migrate_all.py").exists()
    assert services["pgbouncer"]["environment"]["POOL_MODE"] == "session"
    assert services["beat"]["deploy"]["replicas"] == 1
    for name in ("web", "worker-notify", "worker-money", "worker-default", "beat", "migrate"):
        environment = services[name]["environment"]
        for variable in ("DJANGO_SECRET_KEY", "DATABASE_URL", "REDIS_URL", "VAPID_PRIVATE_KEY", "SECRETS_KEYS"):
            assert variable in environment, (name, variable)


def test_web_believes_forwarded_headers_from_the_proxys_address_only():
    """uvicorn's --forwarded-allow-ips (Procfile) takes FORWARDED_ALLOW_IPS: "*" would let
    any container, or a process on the machine through the published port, set the
    client address that rate limits and arrivals are keyed by."""
    import ipaddress
    import re

    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    default = re.compile(r"^\$\{\w+:-(.+)\}$")

    def value(text: str) -> str:
        found = default.match(text)
        return found.group(1) if found else text

    trusted = value(compose["services"]["web"]["environment"]["FORWARDED_ALLOW_IPS"])
    proxy = value(compose["services"]["proxy"]["networks"]["default"]["ipv4_address"])
    subnet = value(compose["networks"]["default"]["ipam"]["config"][0]["subnet"])
    assert trusted == proxy
    assert ipaddress.ip_address(proxy) in ipaddress.ip_network(subnet)
    assert '--forwarded-allow-ips "${FORWARDED_ALLOW_IPS:-127.0.0.1}"' in (ROOT / "Procfile").read_text()


def test_the_production_settings_load_from_the_environment_and_pass_the_deployment_checks():
    base = {key: value for key, value in os.environ.items() if not key.startswith(("DJANGO_", "VAPID_"))}
    base["DJANGO_SETTINGS_MODULE"] = "config.settings.production"
    check = [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"]
    missing = subprocess.run(check, cwd=ROOT, env=base, capture_output=True, text=True, timeout=120)
    assert missing.returncode != 0 and "DJANGO_SECRET_KEY" in missing.stderr  # no silent default
    env = production_environment()
    passed = subprocess.run(check, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert passed.returncode == 0, passed.stdout + passed.stderr
