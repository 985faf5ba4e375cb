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


# The tags that load a manifest entry (its imports preloaded, then its own file) from one
# CDN prefix, made once per entry and prefix: a page's islands and base module are a dozen
# links, each escaped and joined on every page otherwise. Each is kept with its entry,
# whose identity is the key: a rebuilt manifest is new entries.
_tags_kept: dict[tuple[int, str], tuple[object, SafeString]] = {}
TAGS_KEPT = 1024


def _kept_tags(entry: object, cdn: str, make) -> SafeString:
    key = (id(entry), cdn)
    kept = _tags_kept.get(key)
    if kept is not None and kept[0] is entry:
        return kept[1]
    tags = make()
    if len(_tags_kept) >= TAGS_KEPT:
        _tags_kept.clear()
    _tags_kept[key] = (entry, tags)
    return tags


def _module_tags(entry: dict, cdn: str) -> SafeString:
    def make() -> SafeString:
        preload = format_html_join(
            "", '<link rel="modulepreload" href="{}">', ((_dist_url(p, cdn),) for p in entry["imports"])
        )
        script = format_html('<script type="module" src="{}"></script>', _dist_url(entry["file"], cdn))
        return mark_safe(preload + script)  # noqa: S308 - every part is built by format_html

    return _kept_tags(entry, cdn, make)


def _dist_forget(*, setting: str, **kwargs) -> None:
    if setting in ("STATIC_URL", "STORAGES"):  # a test's other storage
        _dist_url.cache_clear()
        _tags_kept.clear()


setting_changed.connect(_dist_forget, dispatch_uid="islands-dist-forget")


@register.simple_tag
def base_stylesheet() -> SafeString:
    """The stylesheet alone (the unknown host's 404 page runs no script)."""
    return format_html('<link rel="stylesheet" href="{}">', _dist(manifest()["css"]["main"]))


@register.simple_tag
def base_assets() -> SafeString:
    """The stylesheet and the module every page loads."""
    data, cdn = manifest(), cdn_prefix()

    def make() -> SafeString:
        css = format_html('<link rel="stylesheet" href="{}">', _dist_url(data["css"]["main"], cdn))
        return mark_safe(css + _module_tags(data["base"], cdn))  # noqa: S308 - every part is built by format_html

    return _kept_tags(data, cdn, make)


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
    return mark_safe(mount + data + _module_tags(entry, cdn_prefix()))  # noqa: S308 - every part is escaped above
