"""The swipe game island's strings, translated on the server (registered in
apps.likes.apps, like the other apps' islands)."""

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.likes.swipe import SWIPE_LIKES_PER_DAY


def swipe_game_strings() -> dict:
    """The swipe game (/swipe-game, /landers/tinderswipe). `{count}`, `{wait}`,
    `{name}`, `{hours}` and `{minutes}` are filled in by the island."""
    return {
        "like": _("Like"),
        "pass": _("Pass"),
        "likesLeft": _("Likes left today: {count}"),
        "limitReached": ngettext(
            "You have used your %(count)s like for today. New likes in {wait}.",
            "You have used your %(count)s likes for today. New likes in {wait}.",
            SWIPE_LIKES_PER_DAY,
        )
        % {"count": SWIPE_LIKES_PER_DAY},
        "waitHours": _("{hours} h {minutes} min"),
        "waitMinutes": _("{minutes} min"),
        "matchTitle": _("It's a match!"),
        "matchBody": _("You and {name} like each other."),
        "matchLink": _("View profile"),
        "close": _("Close"),
        "empty": _("There is nobody new to swipe right now."),
        "emptyLink": _("Search members"),
        "signup": _("Sign up for free"),
        "loading": _("Loading…"),
        "noPhoto": _("No photo"),
        "fictional": _("Fictional profile"),
        "hint": _("Swipe right to like, left to pass, or use the arrow keys."),
        "keys": _("Keyboard: the left arrow key passes, the right arrow key likes."),
        "error": _("An error has occurred."),
    }
