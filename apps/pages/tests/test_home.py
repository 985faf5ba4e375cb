"""The home page per niche (apps.pages.views.index): the niche's words, a mosaic of the
site's own members' approved photos, the way in for visitors and members, an empty state,
fictional profiles disclosed, never the internal niche label, and a cached list."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.landers.tests.helpers import lander_profiles, thumb_of
from apps.profiles.models import Block, PhotoStatus
from apps.profiles.tests.helpers_view import logged_in, member
from apps.tenants.models import Site
from conftest import on_site

pytestmark = pytest.mark.django_db


def profiles_for(site: Site, count: int = 8, **fields):
    return lander_profiles(site, count, gender="male" if site.niche == 7 else "female", **fields)


@pytest.fixture(params=["localhost", "gay.localhost"])
def any_site(request, db) -> Site:
    return Site.objects.get(domains__domain=request.param)


def main_text(html: str) -> str:
    """The visible text of <main>, tags removed."""
    main = html[html.index("<main") : html.index("</main>")]
    return re.sub(r"<[^>]+>", " ", main)


class TestVisitors:
    def test_the_niche_s_words_and_no_internal_niche_label(self, two_sites, client_for):
        general, gay = two_sites
        first = client_for(general).get("/").content.decode()
        second = client_for(gay).get("/").content.decode()
        assert "Meet singles near you" in first and "Men meeting men, near you" in second
        assert "Men meeting men" not in first and "Meet singles" not in second
        assert 'class="home lander lander-theme-general"' in first
        assert 'class="home lander lander-theme-gay"' in second
        for html in (first, second):
            text = main_text(html)
            assert "GENERAL" not in text and "GAY" not in text
            assert 'data-testid="niche"' not in html

    def test_a_mosaic_of_the_site_s_own_approved_photos_leading_into_signup(self, any_site, client_for):
        profiles = profiles_for(any_site, 8)
        html = client_for(any_site).get("/").content.decode()
        mosaic = html[html.index('data-testid="home-mosaic"') : html.index("</ul>", html.index("home-mosaic"))]
        assert thumb_of(any_site, profiles[-1]) in mosaic  # newest first
        assert mosaic.count("<img") == 6
        assert f'href="/members/{profiles[-1].pk}/signup"' in mosaic
        # Dimensions (no layout shift), alt texts, eager first screen and lazy rest.
        images = re.findall(r"<img [^>]*>", html[html.index('data-testid="home"') :])
        photos = [image for image in images if "lander-photo" in image]
        assert len(photos) == 8
        assert all('width="400" height="400"' in image and 'alt="Lander' in image for image in photos)
        assert sum('loading="lazy"' in image for image in photos) == 5
        assert 'loading="lazy"' not in photos[0]

    def test_the_layouts_member_only_parts_are_not_rendered(self, site, client_for):
        """The activation reminder, the photo, verification, notification and push alerts,
        the bottom bar and the activation dialog are a member's: a visitor's page does not
        render their partials at all."""
        response = client_for(site).get("/")
        used = {template.name for template in response.templates}
        assert "layouts/default.html" in used
        member_only = {
            "partials/activation_reminder.html",
            "partials/bottom_nav.html",
            "profiles/partials/photo_rejected_alert.html",
            "profiles/partials/verification_decided_alert.html",
            "profiles/partials/profile_photo_alert.html",
            "profiles/partials/enable_push_alert.html",
            "notifications/partials/disabled_alert.html",
        }
        assert used.isdisjoint(member_only)
        html = response.content.decode()
        assert 'data-island="ActivationReminder"' not in html and 'data-testid="bottom-nav"' not in html

    def test_signup_is_a_plain_link_the_modal_takes_over(self, site, client_for):
        html = client_for(site).get("/").content.decode()
        assert re.search(r'<a [^>]*href="/signup" data-signup-modal data-testid="signup-cta"', html)
        assert 'data-testid="search-cta"' not in html

    def test_with_signups_closed_no_offer_but_a_login_link(self, site, client_for):
        site.signups = "with_trafficsource"
        site.save()
        html = client_for(site).get("/").content.decode()
        assert 'data-testid="signup-cta"' not in html
        assert 'data-testid="lander-signup-closed"' in html

    def test_other_sites_hidden_and_unapproved_photos_stay_out(self, two_sites, client_for):
        general, gay = two_sites
        theirs = profiles_for(gay, 2)
        pending = profiles_for(general, 1, prefix="Pending")[0]
        hidden = profiles_for(general, 1, prefix="Hidden", status="disabled")[0]
        with on_site(general):
            photo = pending.main_photo
            photo.status = PhotoStatus.PENDING
            photo.save()
        html = client_for(general).get("/").content.decode()
        assert thumb_of(gay, theirs[0]) not in html
        assert "Pending0" not in html and thumb_of(general, hidden) not in html

    def test_an_empty_site_shows_a_calm_empty_state(self, any_site, client_for):
        html = client_for(any_site).get("/").content.decode()
        assert 'data-testid="home-empty"' in html
        assert "New members join every day. Be one of the first." in html
        assert 'data-testid="home-mosaic"' not in html and 'data-testid="home-more"' not in html
        assert 'data-testid="signup-cta"' in html

    def test_fictional_profiles_are_marked_and_the_site_s_warning_shown(self, site, client_for):
        site.fictional_icon = "✪"
        site.fictional_warning = "Profiles with ✪ are played by our staff."
        site.fictional_singular = "staff profile"
        site.save()
        profiles_for(site, 2)
        html = client_for(site).get("/").content.decode()
        assert 'data-testid="home-fictional"' not in html and "fictional-mark" not in html
        profiles_for(site, 1, prefix="Demo", is_fictional=True)
        from django.core.cache import caches

        caches["volatile"].clear()  # the landers' list the home page shows
        html = client_for(site).get("/").content.decode()
        tile = html[html.index("Demo0") : html.index("</li>", html.index("Demo0"))]
        assert 'data-testid="fictional-mark"' in tile and "✪" in tile and "(staff profile)" in tile
        notice = html[html.index('data-testid="home-fictional"') :]
        assert "Profiles with ✪ are played by our staff." in notice[: notice.index("</p>")]

    def test_the_list_is_cached_like_the_landers(self, site, client_for):
        profiles_for(site, 3)
        client = client_for(site)
        client.get("/")
        with CaptureQueriesContext(connection) as first:
            client.get("/")
        profiles_for(site, 3, prefix="Later")
        with CaptureQueriesContext(connection) as second:
            html = client.get("/").content.decode()
        assert "Later0" not in html  # still the cached list
        assert not any("profiles_profile" in query["sql"] for query in second.captured_queries)
        assert len(second.captured_queries) == len(first.captured_queries)

    def test_the_page_is_translated(self, gay_site, client_for):
        from django.conf import settings

        client = client_for(gay_site)
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = "nl"
        html = client.get("/").content.decode()
        assert '<html lang="nl">' in html
        assert "Sign up for free" not in main_text(html)


class TestMembers:
    def test_search_swipe_game_and_likes_and_profile_links(self, any_site, client_for):
        profiles = profiles_for(any_site, 4)
        me = member(any_site, "Homer")
        html = logged_in(any_site, client_for, me).get("/").content.decode()
        assert 'data-testid="signup-cta"' not in html
        assert re.search(r'href="/members" data-testid="search-cta"', html)
        assert re.search(r'href="/swipe-game" data-testid="swipe-cta"', html)
        assert re.search(r'href="/likes" data-testid="likes-cta"', html)
        assert f'href="/members/{profiles[-1].pk}"' in html
        assert "/signup" not in html[html.index('data-testid="home"') : html.index("</main>")]
        text = main_text(html)
        assert "GENERAL" not in text and "GAY" not in text

    def test_the_member_and_blocked_profiles_are_left_out(self, site, client_for):
        others = profiles_for(site, 3)
        me = member(site, "Marge")
        with on_site(site):
            from apps.profiles.models import Photo

            photo = Photo.objects.create(
                profile=me, image="x/me.jpg", thumb="x/me-t.jpg", width=600, height=600, status=PhotoStatus.ACTIVE
            )
            me.main_photo = photo
            me.save(update_fields=["main_photo"])
            Block.objects.create(blocker=me.user, blocked=others[0])
        html = logged_in(site, client_for, me).get("/").content.decode()
        mosaic = html[html.index('data-testid="home-mosaic"') : html.index("</ul>", html.index("home-mosaic"))]
        assert f"/members/{me.pk}" not in mosaic
        assert f'href="/members/{others[0].pk}"' not in mosaic
        assert f'href="/members/{others[1].pk}"' in mosaic

    def test_empty_site_for_a_member(self, gay_site, client_for):
        me = member(gay_site, "Bart", gender="male")
        html = logged_in(gay_site, client_for, me).get("/").content.decode()
        assert 'data-testid="home-empty"' in html and 'data-testid="search-cta"' in html
