"""The likes pages (/likes, /likes/<type>), the profile page's like button and its
form fallback, the new-like flag cleared by opening a liker's profile, the top-bar badge."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.likes.models import Like
from apps.likes.services import like_create
from apps.profiles.tests.helpers_view import logged_in, member, photos_add
from conftest import on_site

pytestmark = pytest.mark.django_db


def _like(site, liker, profile) -> None:
    with on_site(site):
        like_create(liker=liker.user, profile_id=profile.pk)


def test_pages_need_a_login(site, client_for):
    for path in ("/likes", "/likes/received"):
        answer = client_for(site).get(path)
        assert answer.status_code == 302
        assert "/login" in answer["Location"]


def test_unknown_type_is_404(site, client_for):
    client = logged_in(site, client_for, member(site, "Me"))
    assert client.get("/likes/others").status_code == 404


def test_overview_and_lists(site, client_for):
    me, fan, crush, match = (member(site, name) for name in ("Me", "Fan", "Crush", "Match"))
    _like(site, fan, me)
    _like(site, match, me)
    _like(site, me, crush)
    _like(site, me, match)
    client = logged_in(site, client_for, me)

    overview = client.get("/likes").content.decode()
    # One row of tabs carries the counts; no second row of pills repeats them.
    assert 'data-testid="likes-count-received">2<' in overview
    assert 'data-testid="likes-count-sent">2<' in overview
    assert 'data-testid="likes-count-matches">1<' in overview
    assert overview.count('data-testid="likes-count-received"') == 1
    assert "likes-overview-counts" not in overview
    assert '<a class="nav-link active" href="/likes" aria-current="page" data-testid="likes-tab-overview">' in overview

    received = client.get("/likes/received").content.decode()
    assert 'data-testid="likes-count-received">2<' in received and 'data-testid="likes-count-matches">1<' in received
    assert 'class="nav-link active" href="/likes/received" aria-current="page"' in received
    assert f'href="/likes/m/{fan.pk}"' in received and f'href="/likes/m/{match.pk}"' in received
    assert received.count('data-testid="like-new"') == 2
    sent = client.get("/likes/sent").content.decode()
    assert f'href="/likes/m/{crush.pk}"' in sent and 'data-testid="like-new"' not in sent
    matches = client.get("/likes/matches").content.decode()
    assert f'href="/likes/m/{match.pk}"' in matches and f'href="/likes/m/{crush.pk}"' not in matches


def _empty_state(body: str) -> str:
    start = body.index('<div class="empty-state')
    return body[start : body.index("</section>", start)]


def test_empty_lists(site, client_for):
    """Each list's empty state: the shared partial with a decorative icon, a title, one line
    of what fills the list and the way there."""
    client = logged_in(site, client_for, member(site, "Me"))
    expected = {
        "received": ("Nobody has liked you yet.", ['href="/profile#photos" data-testid="likes-empty-photo"']),
        "sent": (
            "You have not liked anyone yet.",
            ['href="/swipe-game" data-testid="likes-empty-swipe"', 'href="/members" data-testid="likes-empty-search"'],
        ),
        "matches": ("No matches yet.", ['href="/swipe-game" data-testid="likes-empty-swipe"']),
    }
    for kind, (title, links) in expected.items():
        answer = client.get(f"/likes/{kind}")
        assert answer.status_code == 200
        body = answer.content.decode()
        assert 'data-testid="likes-empty"' in body
        state = _empty_state(body)
        assert '<div class="empty-state" data-testid="likes-empty">' in state
        assert '<span class="empty-state-icon" aria-hidden="true">' in state and "<svg" in state
        assert f'<p class="empty-state-title">{title}</p>' in state
        assert '<p class="empty-state-text">' in state
        for link in links:
            assert link in state, (kind, link)
    matches = _empty_state(client.get("/likes/matches").content.decode())
    assert "like each other" in matches


def test_empty_received_with_a_photo_asks_for_the_rest_of_the_profile(site, client_for):
    me = member(site, "Pic")
    photos_add(site, me, 1)
    body = logged_in(site, client_for, me).get("/likes/received").content.decode()
    assert 'href="/profile" data-testid="likes-empty-profile">Complete your profile</a>' in body
    assert "likes-empty-photo" not in body


def test_overview_sections_show_the_compact_empty_state(site, client_for):
    body = logged_in(site, client_for, member(site, "Over")).get("/likes").content.decode()
    assert body.count('<div class="empty-state empty-state-compact" data-testid="likes-empty">') == 3
    assert "Nothing here yet." not in body


def test_received_page_query_count_is_fixed(site, client_for):
    def page_queries(me, n: int) -> int:
        for i in range(n):
            fan = member(site, f"Fan{me.name}{i}")
            photos_add(site, fan, 1)
            _like(site, fan, me)
            _like(site, me, fan)
        client = logged_in(site, client_for, me)
        client.get("/likes")
        counts = []
        for path in ("/likes", "/likes/received", "/likes/matches"):
            with CaptureQueriesContext(connection) as context:
                client.get(path)
            counts.append(len(context.captured_queries))
        return counts

    assert page_queries(member(site, "One"), 1) == page_queries(member(site, "Ten"), 10)


@pytest.mark.parametrize("path", ["/likes/m/{id}", "/members/{id}"])
def test_opening_a_likers_profile_clears_the_new_flag(site, client_for, path):
    me, fan = member(site, "Me"), member(site, "Fan")
    _like(site, fan, me)
    client = logged_in(site, client_for, me)
    assert 'data-testid="badge-likes">1<' in client.get("/likes").content.decode()
    client.get(path.format(id=fan.pk))
    with on_site(site):
        assert Like.objects.get().is_new is False
    assert 'data-testid="like-new"' not in client.get("/likes/received").content.decode()


def test_badge_caps_at_99(site, client_for):
    me = member(site, "Me")
    fans = [member(site, f"Fan{i}") for i in range(100)]
    with on_site(site):
        Like.objects.bulk_create(Like(liker=fan.user, profile=me) for fan in fans)
    html = logged_in(site, client_for, me).get("/likes").content.decode()
    assert 'data-testid="badge-likes">99+<' in html


def test_like_button_form_fallback(site, client_for):
    me, other = member(site, "Me"), member(site, "Other")
    client = logged_in(site, client_for, me)
    page = client.get(f"/members/{other.pk}").content.decode()
    assert f'action="/members/{other.pk}/like"' in page

    answer = client.post(f"/members/{other.pk}/like", {"next": f"/likes/m/{other.pk}"})
    assert (answer.status_code, answer["Location"]) == (302, f"/likes/m/{other.pk}")
    page = client.get(f"/likes/m/{other.pk}").content.decode()
    assert "Liked" in page and 'data-testid="profile-unlike"' in page

    _like(site, other, me)
    assert "It's a match!" in client.get(f"/members/{other.pk}").content.decode()

    answer = client.post(f"/members/{other.pk}/unlike", {"next": "https://evil.example/"})
    assert answer["Location"] == f"/members/{other.pk}"  # only a local address
    assert 'data-testid="profile-like"' in client.get(f"/members/{other.pk}").content.decode()
    with on_site(site):
        assert list(Like.objects.values_list("liker_id", flat=True)) == [other.user_id]


def test_like_form_twice_shows_the_error(site, client_for):
    me, other = member(site, "Me"), member(site, "Other")
    client = logged_in(site, client_for, me)
    client.post(f"/members/{other.pk}/like")
    page = client.post(f"/members/{other.pk}/like", follow=True).content.decode()
    assert "You already like Other." in page


def test_visitor_like_form_goes_to_login(site, client_for):
    other = member(site, "Other")
    answer = client_for(site).post(f"/members/{other.pk}/like")
    assert answer.status_code == 302 and answer["Location"].startswith("/login?next=")
