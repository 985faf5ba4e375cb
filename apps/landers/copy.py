"""The landers' words per niche (spec §9: niche 1 to 7 map to the lander prefixes none,
she, bdsm, bbw, gilf, milf, gay). Every text is a whole translatable sentence: a niche's
copy is never made by putting a noun into a shared sentence, which would not translate.

`%(place)s` in `map_heading` is the visitor's country or region name; `%(name)s` in the
member landers' texts is the featured member's name."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from apps.tenants.constants import LANDER_PREFIXES, Niche


@dataclass(frozen=True)
class NicheCopy:
    prefix: str  # spec §9, "" for the general niche
    headline: Promise
    tagline: Promise
    online_heading: Promise  # alonetonight; claims no presence (the cards say who was active)
    collage_heading: Promise
    gallery_heading: Promise
    map_heading: Promise  # with %(place)s
    feed_heading: Promise  # socialnetwork
    video_heading: Promise
    captions: tuple[Promise, ...]  # the video's captions, one per slide, repeated
    members_tagline: Promise  # the home page (apps.pages.views.index), for members

    @property
    def theme(self) -> str:
        """The CSS class suffix: lander-theme-<theme>."""
        return self.prefix or "general"


# Captions several niches share.
_LIKE_HER = _("Like her profile, get a match")
_CHAT = _("Chat, flirt and meet")
_SIGN_UP = _("Sign up for free")

COPY: dict[str, NicheCopy] = {
    copy.prefix: copy
    for copy in (
        NicheCopy(
            prefix="",
            headline=_("Meet singles near you"),
            tagline=_("Real people, free sign-up, and a first chat within minutes."),
            online_heading=_("Alone tonight? Meet singles near you."),
            collage_heading=_("Thousands of singles are looking for someone like you"),
            gallery_heading=_("The newest singles on the site"),
            map_heading=_("Singles near you in %(place)s"),
            feed_heading=_("See what singles near you are up to"),
            video_heading=_("Your next date could be one message away"),
            captions=(_("Singles near you were active recently"), _("Like a profile, get a match"), _CHAT, _SIGN_UP),
            members_tagline=_("New singles join every day. Like them, play the swipe game or start a chat."),
        ),
        NicheCopy(
            prefix="she",
            headline=_("Women who love women, near you"),
            tagline=_("A warm place for women to meet women. Free sign-up."),
            online_heading=_("Alone tonight? Meet women near you."),
            collage_heading=_("Thousands of women are looking for a woman like you"),
            gallery_heading=_("The newest women on the site"),
            map_heading=_("Women near you in %(place)s"),
            feed_heading=_("See what women near you are up to"),
            video_heading=_("She could be one message away"),
            captions=(_("Women near you were active recently"), _LIKE_HER, _CHAT, _SIGN_UP),
            members_tagline=_("New women join every day. Like them, play the swipe game or start a chat."),
        ),
        NicheCopy(
            prefix="bdsm",
            headline=_("Explore your desires with like-minded adults"),
            tagline=_("Discreet, respectful and consensual. Free sign-up."),
            online_heading=_("Alone tonight? Meet kinky adults near you."),
            collage_heading=_("Thousands of kinky adults share your curiosity"),
            gallery_heading=_("The newest kinky adults on the site"),
            map_heading=_("Kinky adults near you in %(place)s"),
            feed_heading=_("See what kinky adults near you are up to"),
            video_heading=_("Your boundaries, your rules, your match"),
            captions=(
                _("Like-minded adults were active recently"),
                _("Discreet and consensual"),
                _("Chat about what you like"),
                _SIGN_UP,
            ),
            members_tagline=_("New kinky adults join every day. Like them, play the swipe game or start a chat."),
        ),
        NicheCopy(
            prefix="bbw",
            headline=_("Curvy women and the people who adore them"),
            tagline=_("Meet confident, curvy women near you. Free sign-up."),
            online_heading=_("Alone tonight? Meet curvy women near you."),
            collage_heading=_("Thousands of curvy women are waiting to meet you"),
            gallery_heading=_("The newest curvy women on the site"),
            map_heading=_("Curvy women near you in %(place)s"),
            feed_heading=_("See what curvy women near you are up to"),
            video_heading=_("Curves, confidence and a lot of fun"),
            captions=(_("Curvy women near you were active recently"), _LIKE_HER, _CHAT, _SIGN_UP),
            members_tagline=_("New curvy women join every day. Like them, play the swipe game or start a chat."),
        ),
        NicheCopy(
            prefix="gilf",
            headline=_("Mature women with time for you"),
            tagline=_("Experienced, elegant and looking to meet. Free sign-up."),
            online_heading=_("Alone tonight? Meet mature women near you."),
            collage_heading=_("Thousands of mature women are looking for company"),
            gallery_heading=_("The newest mature women on the site"),
            map_heading=_("Mature women near you in %(place)s"),
            feed_heading=_("See what mature women near you are up to"),
            video_heading=_("Experience makes every date better"),
            captions=(
                _("Mature women near you were active recently"),
                _LIKE_HER,
                _("Chat and take your time"),
                _SIGN_UP,
            ),
            members_tagline=_("New mature women join every day. Like them, play the swipe game or start a chat."),
        ),
        NicheCopy(
            prefix="milf",
            headline=_("Confident women in their prime, near you"),
            tagline=_("They know what they want. Free sign-up."),
            online_heading=_("Alone tonight? Meet confident women near you."),
            collage_heading=_("Thousands of confident women are waiting for you"),
            gallery_heading=_("The newest confident women on the site"),
            map_heading=_("Confident women near you in %(place)s"),
            feed_heading=_("See what confident women near you are up to"),
            video_heading=_("She knows what she wants"),
            captions=(_("Confident women near you were active recently"), _LIKE_HER, _CHAT, _SIGN_UP),
            members_tagline=_("New confident women join every day. Like them, play the swipe game or start a chat."),
        ),
        NicheCopy(
            prefix="gay",
            headline=_("Men meeting men, near you"),
            tagline=_("Chat, flirt and date other men. Free sign-up."),
            online_heading=_("Alone tonight? Meet guys near you."),
            collage_heading=_("Thousands of guys are looking for a man like you"),
            gallery_heading=_("The newest guys on the site"),
            map_heading=_("Guys near you in %(place)s"),
            feed_heading=_("See what guys near you are up to"),
            video_heading=_("Your next date is one message away"),
            captions=(_("Guys near you were active recently"), _("Like his profile, get a match"), _CHAT, _SIGN_UP),
            members_tagline=_("New guys join every day. Like them, play the swipe game or start a chat."),
        ),
    )
}


def niche_copy(niche: int) -> NicheCopy:
    """The copy of a site's niche (spec §9 prefix); the general copy for an unknown one."""
    try:
        return COPY[LANDER_PREFIXES[Niche(niche)]]
    except (ValueError, KeyError):
        return COPY[""]
