"""The swipe game page (/swipe-game, members) and its lander (/landers/tinderswipe,
visitors), spec §2. Both show the SwipeGame island; the lander's deck is fixed and the
signup opens after a few swipes."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from apps.accounts.tracking import lander_visit_keep
from apps.accounts.views_signup import member_required
from apps.likes.swipe import VISITOR_FREE_SWIPES, deck_cards, demo_deck, swipe_payload


def _common_props() -> dict:
    return {
        "apiUrl": "/api/swipe.php",
        "profileUrl": "/members/{id}",
        "membersUrl": reverse("members"),
    }


@member_required
def swipe_game_page(request: HttpRequest) -> HttpResponse:
    payload = swipe_payload(site=request.site, user=request.user)
    props = {
        **_common_props(),
        "mode": "member",
        "deck": payload["deck"],
        "likesLeft": payload["likes_left"],
        "nextLikesAt": payload["next_likes_at"],
    }
    return render(request, "likes/swipe_game.html", {"swipe_props": props})


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
