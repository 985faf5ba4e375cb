"""The markup of the landers' profile cards and photos (the landers, the home page, the
activation page): {% lander_photo card thumb_side %} and {% lander_card_list cards
member_links=... signups_open=... thumb_side=... %}.

Written out here in Python rather than as included partials: a lander shows up to 24
cards, and the template engine's loop and include cost 50 to 150 µs per card, most of a
page's render (docs/bench.md, "landers"). What every card of a list shares (the links'
shape, the badge's words in the page's language, the fictional mark of the site) is
worked out once per list. Every value is escaped as the template engine escapes it.

A card is a dict of apps.landers.selectors.profile_card (id, name, age, city, thumb,
fictional, active_recently) and, from the views, `eager`: in the first screen of a phone."""

from __future__ import annotations

import html

from django import template
from django.template.context import Context
from django.template.loader import get_template
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.translation import gettext

register = template.Library()


def escape(value) -> str:
    """What {{ value }} writes in an autoescaped template (django.utils.html.escape's
    characters and entities, without its handling of lazy strings, which no card holds)."""
    return html.escape(str(value))


# An id no profile has, reversed once per list: the link of card N is the parts around it.
_ID_MARK = 987654321987


def photo_html(card: dict, side: str) -> str:
    """A profile's approved thumbnail (square, `side` px, escaped), or its initial."""
    if card.get("thumb"):
        loading = ' fetchpriority="high"' if card.get("eager") else ' loading="lazy" decoding="async"'
        return (
            f'\n<img class="lander-photo" src="{escape(card["thumb"])}" width="{side}" '
            f'height="{side}" alt="{escape(card["name"])}"{loading}>\n'
        )
    return f'\n<span class="lander-photo lander-initial" aria-hidden="true">{escape(card["name"][:1].upper())}</span>\n'


def _link_parts(name: str) -> tuple[str, str]:
    before, after = reverse(name, args=[_ID_MARK]).split(str(_ID_MARK))
    return escape(before), escape(after)


def fictional_mark(site) -> str:
    """A fictional profile's mark (landers/_fictional.html: the site's icon, named for
    screen readers)."""
    return get_template("landers/_fictional.html").template.render(Context({"site": site}))


def cards_html(cards: list[dict], *, site, member_links: bool, signups_open: bool, thumb_side: int) -> str:
    """Profile cards that lead into signup with a message to that member, or, with
    member_links (the home page for members), to the profile. A fictional profile carries
    the site's fictional icon (spec: profiles are disclosed per the site's fictional
    settings)."""
    if member_links:
        link = _link_parts("members-id")
    elif signups_open:
        link = _link_parts("members-id-signup")
    else:
        link = None
    close = "</a>" if link else ""
    side = escape(thumb_side)
    badge = None
    fictional = None
    parts = []
    for card in cards:
        card_id = card["id"]
        opening = f'<a class="lander-card-link" href="{link[0]}{card_id}{link[1]}">' if link else ""
        if card.get("active_recently"):
            if badge is None:
                badge = (
                    '<span class="badge text-bg-success lander-badge">'
                    f"{escape(gettext('Active in the last 24 hours'))}</span>"
                )
            active = badge
        else:
            active = ""
        age = card.get("age")
        name = escape(card["name"]) + (f", {escape(age)}" if age else "")
        if card.get("fictional"):
            if fictional is None:
                fictional = fictional_mark(site)
            name += " " + fictional
        city = card.get("city")
        place = f'<span class="lander-card-place">{escape(city)}</span>' if city else ""
        parts.append(
            f'\n<article class="lander-card" data-testid="lander-card" data-profile-id="{card_id}">\n'
            f"  {opening}\n"
            f'  <div class="lander-card-media">{photo_html(card, side)}{active}</div>\n'
            f'  <div class="lander-card-body">\n'
            f'    <span class="lander-card-name">{name}</span>\n'
            f"    {place}\n"
            f"  </div>\n"
            f"  {close}\n"
            f"</article>\n"
        )
    return "".join(parts)


@register.simple_tag
def lander_photo(card: dict, thumb_side: int) -> SafeString:
    return SafeString(photo_html(card, escape(thumb_side)))


@register.simple_tag(takes_context=True)
def lander_card_list(
    context: Context, cards: list[dict], *, member_links=False, signups_open=False, thumb_side: int
) -> SafeString:
    return SafeString(
        cards_html(
            cards,
            site=context.get("site"),
            member_links=bool(member_links),
            signups_open=bool(signups_open),
            thumb_side=thumb_side,
        )
    )
