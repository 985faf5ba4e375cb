"""Template tags that render islands: a mount point, its props as JSON (json_script,
never |safe) and the hashed module files from esbuild's manifest."""

import itertools
from functools import lru_cache

from django import template
from django.core.signals import setting_changed
from django.templatetags.static import static
from django.utils.html import format_html, format_html_join, json_script
from django.utils.safestring import SafeString, mark_safe

from apps.common.islands import island_strings, manifest
from apps.common.storage import cdn_prefix

register = template.Library()
_counter = itertools.count(1)


def _dist(path: str) -> str:
    """The URL of a built file, from the site's CDN when it has one."""
    return _dist_url(path, cdn_prefix())


@lru_cache(maxsize=4096)
def _dist_url(path: str, cdn: str) -> str:
    """The file's name carries its content's hash, so its URL for one CDN prefix never
    changes while the process runs: looked up once (a page names 10 to 20 of them) instead
    of through the static storage on every page."""
    return static(f"dist/{path}")


def _dist_forget(*, setting: str, **kwargs) -> None:
    if setting in ("STATIC_URL", "STORAGES"):  # a test's other storage
        _dist_url.cache_clear()


setting_changed.connect(_dist_forget, dispatch_uid="islands-dist-forget")


@register.simple_tag
def base_stylesheet() -> SafeString:
    """The stylesheet alone (the unknown host's 404 page runs no script)."""
    return format_html('<link rel="stylesheet" href="{}">', _dist(manifest()["css"]["main"]))


@register.simple_tag
def base_assets() -> SafeString:
    """The stylesheet and the module every page loads."""
    data = manifest()
    css = format_html('<link rel="stylesheet" href="{}">', _dist(data["css"]["main"]))
    preload = format_html_join(
        "", '<link rel="modulepreload" href="{}">', ((_dist(p),) for p in data["base"]["imports"])
    )
    script = format_html('<script type="module" src="{}"></script>', _dist(data["base"]["file"]))
    return mark_safe(css + preload + script)  # noqa: S308 - every part is built by format_html


@register.simple_tag
def island(name: str, props: dict | None = None, variant: str = "") -> SafeString:
    """The island `name` with its props; `variant` picks static_src/islands/<name>/index.<variant>.tsx,
    the same island built with only what one kind of page needs (it mounts as `name` all the same)."""
    key = f"{name}.{variant}" if variant else name
    entry = manifest()["islands"].get(key)
    if entry is None:
        source = f"{name}/index.{variant}.tsx" if variant else f"{name}/index.tsx"
        raise template.TemplateSyntaxError(f"Unknown island {key!r}: is static_src/islands/{source} built?")
    element_id = f"island-{name}-{next(_counter)}"
    payload = {**(props or {}), "strings": {**island_strings(name), **((props or {}).get("strings") or {})}}
    mount = format_html('<div data-island="{}" id="{}"></div>', name, element_id)
    data = json_script(payload, f"{element_id}-props")
    preload = format_html_join("", '<link rel="modulepreload" href="{}">', ((_dist(p),) for p in entry["imports"]))
    script = format_html('<script type="module" src="{}"></script>', _dist(entry["file"]))
    return mark_safe(mount + data + preload + script)  # noqa: S308 - every part is escaped above
