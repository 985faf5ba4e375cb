"""The layers across apps (docs/decisions.md, "The notifications' outbox below the apps"),
read from the code's own imports (every `import apps...` of apps/, also inside functions;
tests and migrations aside):
- no import circle spans two apps, and none is left inside accounts, chat, likes and
  notifications;
- the modules the apps announce through (the notifications' outbox, the real-time
  transport, the current site) reach no app that announces, nor the delivery above;
- common, the ground, imports no app, and the apps announce to moderation and support
  above them through signals ("Fewer arrows back up"), never by importing them;
- every task the outbox queues by name is a task this process knows."""

from __future__ import annotations

import ast
from pathlib import Path

from config.celery import app as celery_app

ROOT = Path(__file__).resolve().parent.parent


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _trees() -> dict[str, tuple[Path, ast.Module]]:
    found = {}
    for path in (ROOT / "apps").rglob("*.py"):
        if "tests" in path.parts or "migrations" in path.parts:
            continue
        found[_module(path)] = (path, ast.parse(path.read_text(encoding="utf-8")))
    return found


def _graph() -> dict[str, set[str]]:
    """Each module of apps/ and the modules of apps/ it imports."""
    trees = _trees()
    graph: dict[str, set[str]] = {}
    for name, (path, tree) in trees.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        imported: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*parts, base] if base else parts)
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in trees:  # the longest module the name names
                    target = target.rpartition(".")[0]
                if target and target != name:
                    imported.add(target)
        graph[name] = imported
    return graph


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of two modules or more (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def _app(module: str) -> str:
    return module.split(".")[1]


def _reached(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for name in graph[todo.pop()]:
            if name not in seen:
                seen.add(name)
                todo.append(name)
    return seen


def test_the_import_graph_reader_finds_a_circle_and_its_apps():
    graph = {"apps.a.x": {"apps.b.y"}, "apps.b.y": {"apps.a.x"}, "apps.a.z": {"apps.a.x"}}
    assert _circles(graph) == [{"apps.a.x", "apps.b.y"}]
    assert _reached(graph, "apps.a.z") == {"apps.a.x", "apps.b.y"}


def test_no_import_circle_spans_two_apps():
    across = [sorted(circle) for circle in _circles(_graph()) if len({_app(name) for name in circle}) > 1]
    assert across == []


def test_no_import_circle_inside_accounts_chat_likes_and_notifications():
    inside = [
        sorted(circle)
        for circle in _circles(_graph())
        if {_app(name) for name in circle} <= {"accounts", "chat", "likes", "notifications"}
    ]
    assert inside == []


def test_the_outbox_the_event_transport_and_the_current_site_reach_no_app_that_announces():
    graph = _graph()
    announcing = ("apps.accounts.", "apps.chat.", "apps.likes.", "apps.profiles.")
    outbox = _reached(graph, "apps.notifications.outbox")
    # The member's and the notice's models; nothing that delivers, no app that announces.
    above = [
        name
        for name in outbox - {"apps.accounts.models", "apps.notifications.models"}
        if name.startswith(("apps.notifications.", *announcing))
    ]
    assert above == []
    assert "apps.accounts.models" in outbox  # the reader sees the outbox's imports at all
    current = _reached(graph, "apps.tenants.current")
    assert "apps.tenants.models" in current
    assert sorted(name for name in current if name.startswith(announcing)) == []
    # The transport stands in common, below every app: it reaches the current site
    # through apps.common.sites, which the sites' app fills when it starts.
    transport = _reached(graph, "apps.common.realtime")
    assert "apps.common.sites" in transport
    assert sorted(name for name in transport if not name.startswith("apps.common.")) == []


def _queued_names() -> set[str]:
    """The task names given to the outbox's task_queue anywhere in apps/ (a string, or a
    constant of the module that calls it)."""
    names = set()
    for _name, (_path, tree) in _trees().items():
        constants = {
            node.targets[0].id: node.value.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "task_queue" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant):
                    names.add(first.value)
                elif isinstance(first, ast.Name):
                    names.add(constants[first.id])
    return names


def test_common_imports_no_app_and_nothing_below_imports_moderation_or_support():
    graph = {name: {t for t in targets if "." in t} for name, targets in _graph().items() if "." in name}
    above_common = sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        if _app(name) == "common"
        for target in targets
        if _app(target) != "common"
    )
    assert above_common == []
    top = {"moderation": {"support"}, "support": set()}
    reaching_up = sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        for target in targets
        if _app(target) in top and _app(name) != _app(target) and _app(name) not in top[_app(target)]
    )
    assert reaching_up == []
    assert "apps.support.apps" in graph and "apps.moderation.apps" in graph  # the reader sees both apps


def test_every_task_the_outbox_queues_by_name_is_known_to_this_process():
    names = _queued_names()
    assert {
        "apps.notifications.tasks.notice_send",
        "apps.notifications.tasks.notices_send_batch",
        "apps.notifications.tasks.campaign_start",
        "apps.accounts.tasks.mail_send",
    } <= names
    # Registered by the apps' ready(), without Celery's worker-only autodiscovery.
    assert sorted(names - set(celery_app.tasks)) == []
