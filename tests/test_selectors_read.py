"""Selectors only read (HackSoft's styleguide; docs/decisions.md, "Selectors free of
writes"): no selectors module of apps/ imports a services module, at the top or inside a
function. What both need (a rule, a price, a visibility filter) lives in the selectors
or in a module of its own that both read."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _is_selectors(path: Path) -> bool:
    return path.stem == "selectors" or path.stem.startswith("selectors_") or "selectors" in path.parts


def _is_services(module: str) -> bool:
    return any(part == "services" or part.startswith("services_") for part in module.split("."))


def _imported_modules(tree: ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_no_selectors_module_imports_services():
    selectors = [
        path
        for path in (ROOT / "apps").rglob("*.py")
        if _is_selectors(path) and "tests" not in path.parts and "migrations" not in path.parts
    ]
    assert len(selectors) >= 10  # the search found the apps' selectors, not an empty tree
    offending = {
        str(path.relative_to(ROOT)): sorted(
            module for module in _imported_modules(ast.parse(path.read_text())) if _is_services(module)
        )
        for path in selectors
    }
    assert {path: modules for path, modules in offending.items() if modules} == {}


def test_the_check_sees_an_import_inside_a_function():
    tree = ast.parse("def member_overview():\n    from apps.credits.services import ledger_balance\n")
    assert any(_is_services(module) for module in _imported_modules(tree))
