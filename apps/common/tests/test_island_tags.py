"""The island tags' module links (apps.common.templatetags.islands): made once per manifest
entry and CDN prefix, the same bytes as made afresh, and made again for a rebuilt manifest."""

from __future__ import annotations

from django.utils.html import format_html, format_html_join

from apps.common.templatetags import islands


def fresh(entry: dict, cdn: str) -> str:
    preload = format_html_join(
        "", '<link rel="modulepreload" href="{}">', ((islands._dist_url(p, cdn),) for p in entry["imports"])
    )
    return preload + format_html('<script type="module" src="{}"></script>', islands._dist_url(entry["file"], cdn))


def test_an_entrys_module_tags_are_kept_as_made(monkeypatch):
    monkeypatch.setattr(islands, "_tags_kept", {})
    entry = {"file": "islands/Signup/index-ABC.js", "imports": ["chunks/react-1.js", "chunks/dialog-2.js"]}
    first = islands._module_tags(entry, "")
    assert first == fresh(entry, "")
    assert islands._module_tags(entry, "") is first
    assert '<link rel="modulepreload" href="/static/dist/chunks/react-1.js">' in first


def test_a_rebuilt_manifests_entry_gets_its_own_tags(monkeypatch):
    monkeypatch.setattr(islands, "_tags_kept", {})
    old = {"file": "islands/Signup/index-ABC.js", "imports": []}
    islands._module_tags(old, "")
    new = {"file": "islands/Signup/index-DEF.js", "imports": []}
    assert "index-DEF.js" in islands._module_tags(new, "")
    assert "index-ABC.js" in islands._module_tags(old, "")


def test_the_base_assets_are_those_of_the_manifest():
    data = islands.manifest()
    tags = islands.base_assets()
    assert tags == islands.base_assets()
    assert tags.startswith(format_html('<link rel="stylesheet" href="{}">', islands._dist(data["css"]["main"])))
    assert tags.endswith(fresh(data["base"], ""))
