"""The landers' cards and photos written out in Python (apps.landers.templatetags.lander_cards)
give exactly the markup of the partials they replaced (landers/_card.html and
landers/_photo.html, kept below as they were), escaped alike, in every language."""

from __future__ import annotations

import pytest
from django.template import Context, engines
from django.utils import translation

from apps.landers.templatetags.lander_cards import cards_html, photo_html
from apps.tenants.models import Site

# The partials as they were, the photo included by name in the card.
REPLACED_PHOTO = """{% comment %}A profile's approved thumbnail (square, thumb_side px), or its initial. card.eager: in the first screen of a phone.{% endcomment %}
{% if card.thumb %}<img class="lander-photo" src="{{ card.thumb }}" width="{{ thumb_side }}" height="{{ thumb_side }}" alt="{{ card.name }}"{% if card.eager %} fetchpriority="high"{% else %} loading="lazy" decoding="async"{% endif %}>{% else %}<span class="lander-photo lander-initial" aria-hidden="true">{{ card.name|first|upper }}</span>{% endif %}
"""  # noqa: E501
REPLACED_CARD = """{% load i18n %}{% comment %}A profile card that leads into signup with a message to that member, or, with
member_links (the home page for members), to the profile. A fictional profile carries the
site's fictional icon (spec: profiles are disclosed per the site's fictional settings).{% endcomment %}
<article class="lander-card" data-testid="lander-card" data-profile-id="{{ card.id }}">
  {% if member_links %}<a class="lander-card-link" href="{% url 'members-id' card.id %}">{% elif signups_open %}<a class="lander-card-link" href="{% url 'members-id-signup' card.id %}">{% endif %}
  <div class="lander-card-media">{% include photo with card=card thumb_side=thumb_side %}{% if card.active_recently %}<span class="badge text-bg-success lander-badge">{% translate "Active in the last 24 hours" %}</span>{% endif %}</div>
  <div class="lander-card-body">
    <span class="lander-card-name">{{ card.name }}{% if card.age %}, {{ card.age }}{% endif %}{% if card.fictional %} {% include "landers/_fictional.html" %}{% endif %}</span>
    {% if card.city %}<span class="lander-card-place">{{ card.city }}</span>{% endif %}
  </div>
  {% if member_links or signups_open %}</a>{% endif %}
</article>
"""  # noqa: E501

CARDS = [
    {
        "id": 7,
        "name": "Anna",
        "age": 31,
        "city": "Leeds",
        "thumb": "/media/s/photos/thumbs/a.jpg",
        "eager": True,
        "fictional": False,
        "active_recently": True,
    },
    {
        "id": 8,
        "name": "<script>alert(1)</script>",
        "age": None,
        "city": "",
        "thumb": "",
        "fictional": True,
        "active_recently": False,
    },
    {
        "id": 9,
        "name": 'O\'Brien & "Co"',
        "age": 0,
        "city": "<b>Cork</b>",
        "thumb": "/media/t.jpg?a=1&b=<2>",
        "fictional": True,
        "active_recently": True,
        "eager": False,
    },
    {"id": 10, "name": "élodie", "age": 45, "city": "Nîmes", "thumb": "", "fictional": False, "active_recently": False},
    {
        "id": 11,
        "name": "",
        "age": 22,
        "city": "Paris",
        "thumb": "/media/x.jpg",
        "fictional": False,
        "active_recently": False,
    },
]


def _site() -> Site:
    return Site(name="Fast & <Cards>", fictional_icon="<★>", fictional_singular='a "made-up" <profile>')


def _replaced_card(card, *, site, member_links, signups_open, thumb_side=400) -> str:
    photo = engines["django"].from_string(REPLACED_PHOTO).template
    template = engines["django"].from_string(REPLACED_CARD).template
    values = {"card": card, "member_links": member_links, "signups_open": signups_open, "thumb_side": thumb_side}
    return template.render(Context({**values, "site": site, "photo": photo}))


def _replaced_photo(card, thumb_side=400) -> str:
    return (
        engines["django"].from_string(REPLACED_PHOTO).template.render(Context({"card": card, "thumb_side": thumb_side}))
    )


@pytest.mark.parametrize("language", ["en", "fr", "de"])
@pytest.mark.parametrize(("member_links", "signups_open"), [(False, True), (True, False), (True, True), (False, False)])
def test_cards_are_the_replaced_partials_markup(language, member_links, signups_open):
    site = _site()
    with translation.override(language):
        fast = cards_html(CARDS, site=site, member_links=member_links, signups_open=signups_open, thumb_side=400)
        replaced = "".join(
            _replaced_card(card, site=site, member_links=member_links, signups_open=signups_open) for card in CARDS
        )
    assert fast == replaced
    assert "<script>" not in fast and "&lt;script&gt;alert(1)&lt;/script&gt;" in fast
    assert "&lt;★&gt;" in fast and "a &quot;made-up&quot; &lt;profile&gt;" in fast


def test_the_badge_is_in_the_pages_language():
    with translation.override("fr"):
        french = cards_html(CARDS[:1], site=_site(), member_links=False, signups_open=True, thumb_side=400)
    with translation.override("en"):
        english = cards_html(CARDS[:1], site=_site(), member_links=False, signups_open=True, thumb_side=400)
    assert "Active in the last 24 hours" in english
    assert "Active in the last 24 hours" not in french and "lander-badge" in french


@pytest.mark.parametrize("card", CARDS)
def test_a_photo_is_the_replaced_partials_markup(card):
    assert photo_html(card, "400") == _replaced_photo(card)
    assert photo_html(card, "240") == _replaced_photo(card, thumb_side=240)


def test_the_tags_render_the_same_in_a_page():
    source = (
        "{% load lander_cards %}{% lander_card_list cards member_links=False signups_open=True thumb_side=400 %}"
        "|{% for card in cards %}{% lander_photo card 400 %}{% endfor %}"
    )
    site = _site()
    html = engines["django"].from_string(source).render({"cards": CARDS, "site": site})
    listed, photos = html.split("|")
    assert listed == "".join(_replaced_card(card, site=site, member_links=False, signups_open=True) for card in CARDS)
    assert photos == "".join(_replaced_photo(card) for card in CARDS)
