"""The swipe game page (/swipe-game, members) and its lander (/landers/tinderswipe,
visitors), spec §2. Both show the SwipeGame island; the lander's deck is fixed and the
signup opens after a few swipes."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from apps.accounts.tracking import lander_visit_keep
from apps.accounts.views_signup import member_required
from apps.common.exceptions import ApplicationError
from apps.likes.swipe import VISITOR_FREE_SWIPES, deck_cards, demo_deck, swipe_payload, swipe_verified_param


def _common_props() -> dict:
    return {
        "apiUrl": "/api/swipe.php",
        "profileUrl": "/members/{id}",
        "membersUrl": reverse("members"),
    }


@member_required
def swipe_game_page(request: HttpRequest) -> HttpResponse:
    """?verified=1: only members with the "verified" badge (the island's later fetches
    keep the choice through its API address); another value is a 400."""
    try:
        verified = swipe_verified_param(request.GET.get("verified"))
    except ApplicationError as error:
        return render(request, "likes/swipe_game.html", {"swipe_error": error.message}, status=400)
    payload = swipe_payload(site=request.site, user=request.user, verified=verified)
    props = {
        **_common_props(),
        "apiUrl": "/api/swipe.php?verified=1" if verified else "/api/swipe.php",
        "mode": "member",
        "deck": payload["deck"],
        "likesLeft": payload["likes_left"],
        "nextLikesAt": payload["next_likes_at"],
    }
    return render(request, "likes/swipe_game.html", {"swipe_props": props, "verified_only": verified})


def tinderswipe_lander(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("swipe-game")
    game = reverse("swipe-game")
    props = {
        **_common_props(),
        "mode": "visitor",
        "deck": deck_cards(demo_deck(site=request.site)),
        "likesLeft": None,
        "nextLikesAt": None,
        "freeSwipes": VISITOR_FREE_SWIPES,
        "signupUrl": f"{reverse('signup')}?next={game}",
    }
    response = render(request, "landers/tinderswipe.html", {"swipe_props": props})
    lander_visit_keep(response, request, lander="tinderswipe")  # stored with the account (apps.landers)
    return response
