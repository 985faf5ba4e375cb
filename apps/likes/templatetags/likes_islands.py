"""Props of the match modal and like modal islands (spec §2, §4, §7), rendered by the
default layout for logged-in members:

    {% load likes_islands %}
    {% match_modal_props as match_props %}{% island "MatchModal" match_props %}
"""

from django import template
from django.urls import reverse

from apps.common.islands import like_modal_strings, match_modal_strings

register = template.Library()


@register.simple_tag
def match_modal_props() -> dict:
    return {
        "autoLikeUrl": reverse("api-auto-like"),
        "likesUrl": reverse("api-likes"),
        "profileUrl": reverse("members-id", kwargs={"id": 0}).replace("/0", "/{id}"),
        "strings": match_modal_strings(),
    }


@register.simple_tag
def like_modal_props() -> dict:
    return {
        "swipeUrl": reverse("swipe-game"),
        "membersUrl": reverse("members"),
        "strings": like_modal_strings(),
    }
