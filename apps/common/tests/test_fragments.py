"""{% include_kept %} (apps.common.templatetags.fragments): a partial rendered once per
process for the same inputs, and only from them."""

from __future__ import annotations

import pytest
from django.template import engines
from django.utils import translation
from django.utils.safestring import mark_safe

from apps.common.templatetags import fragments


@pytest.fixture(autouse=True)
def _nothing_kept():
    fragments._kept.clear()
    yield
    fragments._kept.clear()


@pytest.fixture
def partial(monkeypatch):
    """A partial that shows a card, a variable it is not given, and a translated word."""
    from django.template import loader

    source = (
        "{% load i18n %}[{{ card.name }}|{{ card.tags|join:',' }}|{{ secret }}|{{ site.name }}"
        "|{% translate 'Search' %}]"
    )
    template = engines["django"].from_string(source)
    original = loader.get_template

    def get_template(name, using=None):
        return template if name == "partial.html" else original(name, using)

    monkeypatch.setattr(fragments, "get_template", get_template)
    renders = []
    real = template.template.render
    monkeypatch.setattr(template.template, "render", lambda context: renders.append(1) or real(context))
    return renders


def page(**context) -> str:
    source = '{% include_kept "partial.html" card=card %}'
    return engines["django"].from_string(source).render(context)


def test_the_same_inputs_render_once_and_only_from_what_is_named(site, partial):
    card = {"name": "Ann <b>", "tags": ["a", "b"]}
    first = page(card=card, secret="member only", site=site)
    assert first == f"[Ann &lt;b&gt;|a,b||{site.name}|Search]"  # `secret` is not the partial's
    assert page(card=dict(card), secret="another", site=site) == first
    assert len(partial) == 1
    with translation.override("de"):
        assert page(card=card, site=site) == f"[Ann &lt;b&gt;|a,b||{site.name}|Suchen]"
    assert page(card={**card, "name": "Bo"}, site=site).startswith("[Bo|")
    assert len(partial) == 3


def test_values_other_than_plain_data_are_rendered_and_not_kept(site, partial):
    assert page(card={"name": "<i>x</i>", "tags": []}, site=site).startswith("[&lt;i&gt;")
    assert page(card={"name": mark_safe("<i>x</i>"), "tags": []}, site=site).startswith("[<i>x</i>|")
    assert page(card={"name": mark_safe("<i>x</i>"), "tags": []}, site=site).startswith("[<i>x</i>|")

    class Card:
        name = "Obj"
        tags = ()

    assert page(card=Card(), site=site).startswith("[Obj|")
    page(card=Card(), site=site)
    assert len(partial) == 5
    assert len(fragments._kept) == 1


def test_a_change_of_the_site_is_another_key(site, partial):
    assert f"|{site.name}|" in page(card={"name": "A", "tags": []}, site=site)
    site.name = "Renamed"
    site.__dict__.pop("_page_cache_fingerprint", None)  # as the site cache's reload makes it anew
    assert "|Renamed|" in page(card={"name": "A", "tags": []}, site=site)
    assert len(partial) == 2
