"""The landers' keys: what a lander visit keeps with the tracking (apps.accounts.tracking)."""

GENERIC_LANDERS = (
    "alonetonight",
    "collagelanding",
    "gallery",
    "iconslanding",
    "maplanding",
    "socialnetwork",
    "transitionsvideolanding",
    "video",
)
MEMBER_LANDERS = {"landing": "member-landing", "landing2": "member-landing2", "landing3": "member-landing3"}
# Every lander's key, as kept with the tracking (apps.accounts.tracking): also what `?lb=`
# may name (docs/decisions.md "The lb parameter").
LANDER_KEYS = frozenset({*GENERIC_LANDERS, *MEMBER_LANDERS.values(), "member-signup", "tinderswipe"})
