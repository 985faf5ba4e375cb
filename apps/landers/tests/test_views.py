"""The landers of spec §2 on both demo sites: every route and its slug, 404s, the niche's
copy, the signups setting (spec §5), approved photos only, and the tracking parameters
(spec §7) with the lander and campaign landing on the account made from it."""

import re
import uuid

import pytest

from apps.accounts.models import SignupTracking, User
from apps.landers.keys import GENERIC_LANDERS
from apps.landers.tests.helpers import island_props, lander_profiles, thumb_of
from apps.profiles.models import Photo, PhotoStatus, Profile, ProfileStatus
from apps.profiles.tests.helpers_view import logged_in, member
from apps.tenants.models import Site
from conftest import on_site

pytestmark = pytest.mark.django_db

PASSWORD = "a-Long-passphrase-42"
MEMBER_LANDERS = ("landing", "landing2", "landing3")


def profiles_for(site: Site, count: int = 6, **fields) -> list[Profile]:
    return lander_profiles(site, count, gender="male" if site.niche == 7 else "female", **fields)


def signup(client, email: str):
    return client.post(
        "/api/signup.php",
        {"email": email, "name": f"N{uuid.uuid4().hex[:10]}", "date_of_birth": "1990-04-05", "password": PASSWORD},
        content_type="application/json",
    )


@pytest.fixture(params=["localhost", "gay.localhost"])
def any_site(request, db) -> Site:
    return Site.objects.get(domains__domain=request.param)


class TestGenericLanders:
    @pytest.mark.parametrize("lander", GENERIC_LANDERS)
    def test_every_lander_with_and_without_a_slug(self, any_site, client_for, lander):
        profiles = profiles_for(any_site)
        client = client_for(any_site)
        for path in (f"/landers/{lander}", f"/landers/{lander}/spring-2026"):
            response = client.get(path)
            assert response.status_code == 200, path
            html = response.content.decode()
            assert "layout-lander" in html and f'data-lander="{lander}"' in html
            assert 'data-testid="lander-heading"' in html
            # Into signup: a plain link to the steps page that the modal island takes over.
            assert re.search(r'<a [^>]*href="/signup" data-signup-modal data-testid="lander-signup"', html)
            [props] = island_props(html)
            assert props["mode"] == "modal" and props["signupsOpen"] is True
            assert response.resolver_match.url_name == f"landers-{lander}"
        if lander not in ("iconslanding", "maplanding"):
            assert thumb_of(any_site, profiles[-1]) in html  # the site's own newest profile

    def test_the_layouts_differ(self, site, client_for):
        profiles_for(site)
        client = client_for(site)
        marks = {
            "alonetonight": "Most recently active first",
            "collagelanding": "lander-collage-tile",
            "gallery": "lander-grid-gallery",
            "iconslanding": "lander-benefit-icon",
            "maplanding": 'data-testid="lander-map"',
            "socialnetwork": 'data-testid="lander-post"',
            "transitionsvideolanding": "lander-cinema",
            "video": "lander-video-frame",
        }
        for lander, mark in marks.items():
            html = client.get(f"/landers/{lander}").content.decode()
            assert mark in html, lander
            assert all(other not in html for name, other in marks.items() if name != lander), lander

    def test_the_niche_chooses_the_copy(self, two_sites, client_for):
        general, gay = two_sites
        profiles_for(general)
        profiles_for(gay)
        general_html = client_for(general).get("/landers/gallery").content.decode()
        gay_html = client_for(gay).get("/landers/gallery").content.decode()
        assert "The newest singles on the site" in general_html and "lander-theme-general" in general_html
        assert "The newest guys on the site" in gay_html and "lander-theme-gay" in gay_html
        assert 'data-niche-prefix="gay"' in gay_html and 'data-niche-prefix=""' in general_html
        assert "The newest guys" not in general_html

    def test_the_copy_is_translated(self, site, client_for, settings):
        profiles_for(site, 1)
        client = client_for(site)
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
        html = client.get("/landers/alonetonight").content.decode()
        assert '<html lang="fr">' in html
        assert "Inscrivez-vous gratuitement" in html  # the catalogue's French for "Sign up for free"

    def test_only_the_sites_own_profiles(self, two_sites, client_for):
        general, gay = two_sites
        profiles_for(general, 1, prefix="OwnName")
        profiles_for(gay, 1, prefix="ForeignName")
        html = client_for(general).get("/landers/gallery").content.decode()
        assert "OwnName0" in html and "ForeignName0" not in html

    def test_the_map_lists_members_by_region_of_the_visitors_country(self, site, client_for, settings):
        profiles_for(site, 6)
        html = (
            client_for(site, **{f"HTTP_{settings.GEOIP_COUNTRY_HEADER[5:]}": "GB"})
            .get("/landers/maplanding")
            .content.decode()
        )
        assert "Singles near you in United Kingdom" in html
        assert html.count('data-testid="lander-region"') == 2
        assert "Scotland" in html and "England" in html
        assert "3 members" in html

    def test_images_have_sizes_and_below_the_fold_load_lazily(self, site, client_for):
        profiles_for(site, 10)
        html = client_for(site).get("/landers/gallery").content.decode()
        images = re.findall(r"<img [^>]*>", html)
        assert len(images) == 10
        assert all('width="400" height="400"' in image for image in images)
        assert all("/photos/thumbs/" in image for image in images)  # thumbnails, never the full photos
        assert ['loading="lazy"' in image for image in images] == [False] * 4 + [True] * 6

    def test_a_members_visit_goes_to_the_members_area(self, site, client_for):
        profile = member(site, "Visiting")
        response = logged_in(site, client_for, profile).get("/landers/gallery/x")
        assert response.status_code == 302 and response.headers["Location"] == "/members"

    def test_the_query_count_does_not_grow_with_the_profiles(self, site, client_for, django_assert_max_num_queries):
        profiles_for(site, 3)
        client = client_for(site)
        client.get("/landers/socialnetwork")
        from django.core.cache import caches

        caches["volatile"].clear()  # the landers' lists
        profiles_for(site, 20)
        with django_assert_max_num_queries(12):
            assert client.get("/landers/socialnetwork").status_code == 200


class TestHonestOnlineCopy:
    """The "alone tonight" lander claims no one is online: members are listed most recently
    active first, and only a member who signed in within the last 24 hours carries the
    badge that says so."""

    def test_alonetonight_claims_no_presence_and_badges_only_recent_sign_ins(self, any_site, client_for):
        from datetime import timedelta

        from django.utils import timezone

        from apps.profiles.tests.helpers_view import photos_add

        gender = "male" if any_site.niche == 7 else "female"
        now = timezone.now()
        recent = member(any_site, "RecentOne", gender=gender, user_fields={"last_login": now - timedelta(hours=2)})
        away = member(any_site, "AwayOne", gender=gender, user_fields={"last_login": now - timedelta(days=3)})
        for profile in (recent, away):
            photos_add(any_site, profile, 1)
        html = client_for(any_site).get("/landers/alonetonight").content.decode()
        words = re.sub(r"<[^>]+>", " ", html.split("<body", 1)[1]).lower()
        assert "online" not in words
        assert "Most recently active first" in html
        cards = re.findall(r'<article class="lander-card".*?</article>', html, re.S)
        by_id = {int(re.search(r'data-profile-id="(\d+)"', card).group(1)): card for card in cards}
        assert list(by_id)[:2] == [recent.pk, away.pk]  # the most recent sign-in first
        assert "Active in the last 24 hours" in by_id[recent.pk]
        assert "Active in the last 24 hours" not in by_id[away.pk]


class TestNotFound:
    @pytest.mark.parametrize(
        "path",
        [
            "/landers/gallery/Spring",  # upper case
            "/landers/gallery/spring_2026",
            "/landers/gallery/spring.2026",
            "/landers/gallery/..",
            "/landers/gallery/%2E%2E",
            "/landers/gallery/a/b",
            "/landers/gallery/" + "a" * 41,
            "/landers/gallery/",
            "/landers/unknownlander",
            "/landers/tinderswipe/slug",
            "/members/1/landing2/Bad",
            "/members/1/landing3/a%20b",
            "/members/abc/landing",
        ],
    )
    def test_bad_addresses_are_the_normal_404_page(self, site, client_for, path):
        profiles_for(site, 1)
        response = client_for(site).get(path)
        assert response.status_code == 404
        assert "This page could not be found" in response.content.decode()

    def test_head_is_answered_and_other_methods_are_not_allowed(self, site, client_for):
        [featured] = profiles_for(site, 1)
        client = client_for(site)
        assert client.head("/landers/gallery/x").status_code == 200
        assert client.head(f"/members/{featured.pk}/landing").status_code == 200
        assert client.post("/landers/gallery").status_code == 405
        assert client.delete(f"/members/{featured.pk}/landing3").status_code == 405

    def test_a_nul_byte_is_refused(self, site, client_for):
        response = client_for(site).get("/landers/gallery/a%00b")
        assert response.status_code == 400  # the project's rule for NUL bytes (BadInputMiddleware)

    @pytest.mark.parametrize("variant", [*MEMBER_LANDERS, "signup"])
    def test_unknown_hidden_and_foreign_members_are_404(self, two_sites, client_for, variant):
        general, gay = two_sites
        [disabled] = profiles_for(general, 1)
        with on_site(general):
            Profile.objects.filter(pk=disabled.pk).update(status=ProfileStatus.DISABLED)
        invisible = member(general, f"Inv{uuid.uuid4().hex[:6]}", user_fields={"invisible": True})
        foreign = profiles_for(gay, 1)[0]
        with on_site(general):
            highest = Profile.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        with on_site(gay):
            # A profile id that exists on the other site only.
            while not Profile.objects.filter(pk=foreign.pk).exists() or foreign.pk <= highest:
                foreign = profiles_for(gay, 1)[0]
        client = client_for(general)
        for profile_id in (disabled.pk, invisible.pk, foreign.pk, 99_999_999):
            response = client.get(f"/members/{profile_id}/{variant}")
            assert response.status_code == 404, (variant, profile_id)
            assert "This page could not be found" in response.content.decode()


class TestMemberLanders:
    @pytest.mark.parametrize("variant", MEMBER_LANDERS)
    def test_each_features_the_member_and_leads_to_signup_back_to_them(self, any_site, client_for, variant):
        featured, *_others = profiles_for(any_site, 4, prefix="Featured")
        client = client_for(any_site)
        paths = [f"/members/{featured.pk}/{variant}"]
        if variant != "landing":
            paths.append(f"/members/{featured.pk}/{variant}/summer")
        for path in paths:
            response = client.get(path)
            assert response.status_code == 200, path
            html = response.content.decode()
            assert f'data-lander="member-{variant}"' in html
            assert "Featured0" in html
            assert f'href="/members/{featured.pk}/signup" data-signup-modal' in html
            [props] = island_props(html)
            assert props["profile"]["id"] == featured.pk
            assert props["urls"]["afterLogin"] == f"/members/{featured.pk}"
        assert (
            response.resolver_match.url_name
            == {
                "landing": "members-id-landing",
                "landing2": "members-id-landing2-slug",
                "landing3": "members-id-landing3-slug",
            }[variant]
        )

    def test_the_album_shows_only_the_first_approved_photo(self, site, client_for):
        [featured] = profiles_for(site, 1)
        with on_site(site):
            for status in (PhotoStatus.ACTIVE, PhotoStatus.ACTIVE, PhotoStatus.PENDING):
                Photo.objects.create(profile=featured, image="x.jpg", thumb=f"{site.schema_name}/t-{status}.jpg",
                                     width=400, height=400, status=status)  # fmt: skip
        html = client_for(site).get(f"/members/{featured.pk}/landing3").content.decode()
        assert "Featured0 has 3 photos." not in html and "has 3 photos" in html
        assert html.count('data-testid="lander-album-locked"') == 2
        assert "t-pending" not in html

    def test_signup_page_of_a_member_is_a_lander(self, site, client_for):
        [featured] = profiles_for(site, 1)
        response = client_for(site).get(f"/members/{featured.pk}/signup")
        html = response.content.decode()
        assert response.status_code == 200 and "layout-lander" in html
        assert 'data-lander="member-signup"' in html
        [props] = island_props(html)
        assert props["mode"] == "page" and props["profile"]["id"] == featured.pk

    def test_members_go_to_the_profile(self, site, client_for):
        [featured] = profiles_for(site, 1)
        client = logged_in(site, client_for, member(site, "Reader"))
        for variant in (*MEMBER_LANDERS, "signup"):
            response = client.get(f"/members/{featured.pk}/{variant}")
            assert response.status_code == 302 and response.headers["Location"] == f"/members/{featured.pk}"


class TestPendingPhotos:
    def test_a_profile_whose_photo_waits_for_approval_does_not_show_it(self, site, client_for):
        approved, waiting = profiles_for(site, 2)
        with on_site(site):
            Photo.objects.filter(pk=Profile.objects.get(pk=waiting.pk).main_photo_id).update(status=PhotoStatus.PENDING)
            waiting_thumb = Photo.objects.get(profile=waiting).thumb.url
        client = client_for(site)
        for path in [f"/landers/{lander}" for lander in GENERIC_LANDERS] + [
            f"/members/{waiting.pk}/{variant}" for variant in (*MEMBER_LANDERS, "signup")
        ]:
            html = client.get(path).content.decode()
            assert waiting_thumb not in html, path
        assert thumb_of(site, approved) in client.get("/landers/gallery").content.decode()


class TestSignupsSetting:
    @pytest.fixture
    def closed_site(self, site):
        Site.objects.filter(pk=site.pk).update(signups="with_trafficsource")
        from apps.tenants.middleware import site_cache_clear

        site_cache_clear()
        yield Site.objects.get(pk=site.pk)

    @pytest.mark.parametrize("lander", GENERIC_LANDERS)
    def test_without_a_network_no_offer_but_a_message(self, closed_site, client_for, lander):
        profiles_for(closed_site, 2)
        html = client_for(closed_site).get(f"/landers/{lander}").content.decode()
        assert "data-signup-modal" not in html and 'href="/signup"' not in html
        assert 'data-testid="lander-signup-closed"' in html
        assert "Signing up here is not possible right now." in html
        assert island_props(html) == []

    def test_member_landers_too_and_the_signup_is_refused(self, closed_site, client_for):
        [featured] = profiles_for(closed_site, 1)
        client = client_for(closed_site)
        for variant in MEMBER_LANDERS:
            html = client.get(f"/members/{featured.pk}/{variant}").content.decode()
            assert 'data-testid="lander-signup-closed"' in html and "data-signup-modal" not in html
        [props] = island_props(client.get(f"/members/{featured.pk}/signup").content.decode())
        assert props["signupsOpen"] is False
        response = signup(client, f"closed-{uuid.uuid4().hex[:6]}@example.com")
        assert response.status_code == 403 and response.json()["error"]["code"] == "signups_closed"

    def test_with_a_network_the_lander_offers_signup(self, closed_site, client_for):
        profiles_for(closed_site, 2)
        client = client_for(closed_site)
        assert client.get("/landers/video?network=adnet").status_code == 302
        html = client.get("/landers/video").content.decode()
        assert 'href="/signup" data-signup-modal' in html
        [props] = island_props(html)
        assert props["signupsOpen"] is True
        assert signup(client, f"open-{uuid.uuid4().hex[:6]}@example.com").status_code == 201


class TestTracking:
    def test_the_parameters_the_lander_and_its_campaign_land_on_the_account(self, any_site, client_for):
        profiles_for(any_site, 2)
        client = client_for(any_site)
        query = "network=adnet&ref=r7&sub=s0&sub1=one&sub2=two&sub3=three&aff_sub=a0&aff_sub1=a1&aff_sub2=a2"
        response = client.get(f"/landers/socialnetwork/spring-24?{query}&aff_sub3=a3&cpc=0.12&lang=x")
        # Kept, then removed from the address (spec §7); other parameters stay.
        assert response.status_code == 302 and response.headers["Location"] == "/landers/socialnetwork/spring-24?lang=x"
        assert client.get(response.headers["Location"]).status_code == 200
        email = f"tracked-{uuid.uuid4().hex[:8]}@example.com"
        assert signup(client, email).status_code == 201
        with on_site(any_site):
            tracking = SignupTracking.objects.get(user=User.objects.get(email=email))
        assert (tracking.network, tracking.ref, tracking.sub, tracking.sub1, tracking.sub2, tracking.sub3) == (
            "adnet", "r7", "s0", "one", "two", "three",
        )  # fmt: skip
        assert (tracking.aff_sub, tracking.aff_sub1, tracking.aff_sub2, tracking.aff_sub3, tracking.cpc) == (
            "a0", "a1", "a2", "a3", "0.12",
        )  # fmt: skip
        assert (tracking.lander, tracking.campaign) == ("socialnetwork", "spring-24")

    def test_the_last_lander_counts_and_the_parameters_stay(self, site, client_for):
        [featured] = profiles_for(site, 1)
        client = client_for(site)
        client.get("/landers/gallery/first?network=adnet&sub1=x")
        client.get("/landers/gallery/first")
        client.get(f"/members/{featured.pk}/landing2")
        email = f"last-{uuid.uuid4().hex[:8]}@example.com"
        assert signup(client, email).status_code == 201
        with on_site(site):
            tracking = SignupTracking.objects.get(user__email=email)
        assert (tracking.network, tracking.sub1, tracking.lander, tracking.campaign) == (
            "adnet", "x", "member-landing2", "",
        )  # fmt: skip

    def test_lb_names_the_lander_a_visitor_comes_back_from_and_lands_on_the_account(self, site, client_for):
        """docs/decisions.md "The lb parameter": ?lb=<lander key> on any page counts as a
        visit of that lander (a partner's pre-lander linking back), and leaves the address."""
        client = client_for(site)
        client.get("/landers/gallery/first?network=adnet")
        response = client.get("/members?lb=tinderswipe&page=2")
        assert response.status_code == 302 and response.headers["Location"] == "/members?page=2"
        email = f"back-{uuid.uuid4().hex[:8]}@example.com"
        assert signup(client, email).status_code == 201
        with on_site(site):
            tracking = SignupTracking.objects.get(user__email=email)
        assert (tracking.network, tracking.lander, tracking.campaign) == ("adnet", "tinderswipe", "")

    @pytest.mark.parametrize(
        "value", ["", "nope", "gallery/first", "<b>x</b>", "x" * 5000, "%E2%80%AE", "member-landing2%0d%0aSet-Cookie:x"]
    )
    @pytest.mark.parametrize("path", ["/", "/members", "/landers/video", "/pages/faq", "/signup", "/no-such-page"])
    def test_any_other_lb_is_dropped_and_never_breaks_a_page(self, site, client_for, path, value):
        from apps.accounts.tracking import COOKIE

        client = client_for(site)
        response = client.get(f"{path}?lb={value}")
        assert response.status_code == 302 and response.headers["Location"] == path
        assert COOKIE not in response.cookies
        assert client.get(path).status_code in (200, 302, 404)

    def test_a_visit_without_parameters_sets_no_cookie_twice_and_no_banner(self, site, client_for):
        from apps.accounts.tracking import COOKIE

        client = client_for(site)
        first = client.get("/landers/iconslanding/promo")
        assert COOKIE in first.cookies and first.cookies[COOKIE]["max-age"] == ""  # until the browser closes
        again = client.get("/landers/iconslanding/promo")
        assert COOKIE not in again.cookies  # the cookie holds the lander already
        assert COOKIE in client.get("/landers/iconslanding/other").cookies
        assert 'data-testid="cookie-banner"' not in client.get("/").content.decode()
