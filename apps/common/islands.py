"""Islands: the esbuild manifest, and the translated strings each island receives."""

import json
import threading
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.utils.translation import gettext as _

_manifest_lock = threading.Lock()
_manifest: dict = {"mtime": None, "data": None}


class ManifestMissing(RuntimeError):
    pass


def manifest() -> dict:
    """esbuild's manifest, re-read when the file changes (the watcher rewrites it)."""
    path = Path(settings.ISLANDS_MANIFEST)
    try:
        mtime = path.stat().st_mtime
    except FileNotFoundError as exc:
        raise ManifestMissing(f"{path} is missing: run `npm run build` (make run does it).") from exc
    if _manifest["mtime"] != mtime:
        with _manifest_lock:
            _manifest["data"] = json.loads(path.read_text())
            _manifest["mtime"] = mtime
    return _manifest["data"]


def entry_warning_strings(min_age: int = 18) -> dict:
    return {
        "title": _("Adults only"),
        "body": _(
            "This website contains material of an adult nature and is only meant for adults.\n"
            "By entering you confirm that you are at least %(min_age)s years old and that you do not find "
            "such content offensive."
        )
        % {"min_age": min_age},
        "enter": _("I am %(min_age)s or older, enter") % {"min_age": min_age},
        "leave": _("Leave"),
    }


# Every string an island shows, translated on the server (islands never hard-code text).
ISLAND_STRINGS: dict[str, Callable[[], dict]] = {
    "EntryWarning": entry_warning_strings,
}


def island_strings(name: str) -> dict:
    builder = ISLAND_STRINGS.get(name)
    return builder() if builder else {}
