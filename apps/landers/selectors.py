"""Reads for the landers: the site's own visible profiles as cards (approved photos
only), a featured member, members by region, the site's lander video and site pages.

Landers are what paid traffic hits first, so their lists are cached per site for a
short while (the cache keys carry the site's schema: django_tenants.cache.make_key):
a profile hidden or a photo rejected leaves the landers within LIST_CACHE_SECONDS. They
live in the evictable cache, whose reads fail open: without it the lists are read from
the database for the request (apps.common.cache.volatile_get_or_set)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from django.db.models import Count, F, QuerySet
from django.utils import timezone
from django.utils.translation import get_language
from django_tenants.utils import get_public_schema_name

from apps.common.cache import volatile_delete_many, volatile_get_or_set
from apps.common.prepared import PreparedQuery
from apps.common.storage import cdn_url
from apps.landers.models import LanderVideo, SitePage
from apps.profiles.cards import card_basics
from apps.profiles.models import PhotoStatus, Profile
from apps.profiles.selectors import looking_for_genders, photos_visible_to, public_thumb_url
from apps.profiles.visibility import profiles_visible_to
from apps.tenants.models import Site
from apps.tenants.regions import region_name

LIST_CACHE_SECONDS = 60
LIST_SIZE = 24
THUMB_SIDE = 400  # apps.profiles.images.process_upload's square thumbnails
RECENT_LOGIN = timedelta(hours=24)


def _niche_genders(site: Site) -> tuple[str, ...]:
    return tuple(looking_for_genders(site=site, gender="", sexuality=""))


def _visible_of(genders: tuple[str, ...]) -> QuerySet[Profile]:
    return profiles_visible_to(None).filter(gender__in=genders)


def _niche_visible(site: Site) -> QuerySet[Profile]:
    """Profiles visible to visitors, of the genders a visitor of this niche looks for."""
    return _visible_of(_niche_genders(site))


def _with_photo_of(genders: tuple[str, ...]) -> QuerySet[Profile]:
    return (
        _visible_of(genders)
        .filter(main_photo__status=PhotoStatus.ACTIVE)
        .exclude(main_photo__thumb="")
        .select_related("main_photo", "user")
    )


def _niche_profiles(site: Site) -> QuerySet[Profile]:
    """Those with an approved main photo (a pending or rejected one is never shown to
    visitors)."""
    return _with_photo_of(_niche_genders(site))


def profile_card(profile: Profile, *, site: Site, today=None) -> dict:
    """What a lander shows of a profile: only the fields the site shows. No translated
    text: the lists are cached per site, for every language."""
    shown = site.visible_profile_fields
    user = profile.user if profile.user_id else None
    last_login = getattr(user, "last_login", None)
    return {
        **card_basics(profile, shown, today),
        "about_me": profile.about_me if "about_me" in shown else "",
        "interests": list(profile.interests[:3]) if "interests" in shown else [],
        "thumb": public_thumb_url(profile),
        "fictional": profile.is_fictional,
        "joined": profile.created,
        "active_recently": bool(last_login and timezone.now() - last_login < RECENT_LOGIN),
    }


# The card lists' statements, one per list and niche genders (a handful in all), compiled
# once per process: with many sites most builds are a site's first in LIST_CACHE_SECONDS
# (docs/bench.md, "landing" at full size).
_CARD_QUERIES: dict[tuple[str, tuple[str, ...]], PreparedQuery] = {}


def _card_profiles(site: Site, name: str, ordering: tuple) -> list[Profile]:
    genders = _niche_genders(site)
    query = _CARD_QUERIES.get((name, genders))
    if query is None:
        query = _CARD_QUERIES.setdefault(
            (name, genders), PreparedQuery(lambda: _with_photo_of(genders).order_by(*ordering)[:LIST_SIZE])
        )
    return query.objects()


def _cached_cards(site: Site, name: str, ordering: tuple, limit: int) -> list[dict]:
    """The first LIST_SIZE profiles with an approved photo in `ordering`, as cards, cached
    briefly under `name` (which names one ordering); the first `limit` of them."""

    def build() -> list[dict]:
        today = timezone.localdate()
        return [profile_card(profile, site=site, today=today) for profile in _card_profiles(site, name, ordering)]

    return volatile_get_or_set(_list_key(name, site.pk), build, LIST_CACHE_SECONDS)[:limit]


def _list_key(name: str, site_id: int) -> str:
    return f"landers:{name}:{site_id}"


def lander_lists_forget_on_commit() -> None:
    """Once the change is committed, drop the card lists of the connection's site (a
    photo approved, rejected or removed, a profile deleted: apps.landers.apps), so they
    leave the landers at once instead of within LIST_CACHE_SECONDS."""
    from django.db import connection, transaction

    site_id = getattr(getattr(connection, "tenant", None), "pk", None)
    if site_id is None or getattr(connection, "schema_name", None) == get_public_schema_name():
        return
    transaction.on_commit(lambda: volatile_delete_many([_list_key("cards", site_id), _list_key("online", site_id)]))


def lander_cards(site: Site, *, limit: int = LIST_SIZE) -> list[dict]:
    """The newest visible profiles with an approved photo, as cards (cached briefly)."""
    return _cached_cards(site, "cards", ("-created", "-pk"), limit)


# The home page (pages/index.html): a mosaic of HOME_MOSAIC photos in the hero, then up
# to HOME_MORE more below it. The first HOME_EAGER are in a phone's first screen.
HOME_MOSAIC = 6
HOME_MORE = 12
HOME_EAGER = 3


def home_cards(*, site, viewer) -> list[dict]:
    """The site's members for its home page (and the first few on the activation page):
    visible profiles of the niche with an approved main photo, newest first, from the
    briefly cached list above (no query for visitors). For a member their own profile
    and blocks in either direction are left out (one query over the listed ids). The
    first HOME_EAGER are marked `eager`."""
    cards = lander_cards(site, limit=HOME_MOSAIC + HOME_MORE + 2)
    if viewer is not None and viewer.is_authenticated and cards:
        shown = set(
            profiles_visible_to(viewer).filter(pk__in=[card["id"] for card in cards]).values_list("pk", flat=True)
        )
        cards = [card for card in cards if card["id"] in shown]
    cards = cards[: HOME_MOSAIC + HOME_MORE]
    return [{**card, "eager": index < HOME_EAGER} for index, card in enumerate(cards)]


def online_cards(site: Site, *, limit: int = LIST_SIZE) -> list[dict]:
    """For "alone tonight": members who logged in most recently first, then the newest."""
    return _cached_cards(site, "online", (F("user__last_login").desc(nulls_last=True), "-created", "-pk"), limit)


def region_groups(site: Site, *, country: str, limit: int = 6, per_region: int = 4) -> list[dict]:
    """Members of `country` by region, the regions with most members first:
    [{"code", "name", "count", "cards"}]. Two queries, cached briefly."""

    def build() -> list[dict]:
        by_region = _niche_visible(site).filter(country=country).values_list("region").annotate(count=Count("pk"))
        counts = Counter(dict(by_region.order_by()))
        top = [code for code, _count in counts.most_common(limit) if code]
        today = timezone.localdate()
        cards: dict[str, list[dict]] = {code: [] for code in top}
        with_photo = (
            _niche_profiles(site).filter(country=country, region__in=top).order_by("-created", "-pk")[: limit * 12]
        )
        for profile in with_photo:
            if len(cards[profile.region]) < per_region:
                cards[profile.region].append(profile_card(profile, site=site, today=today))
        return [{"code": code, "name": region_name(code), "count": counts[code], "cards": cards[code]} for code in top]

    return volatile_get_or_set(f"landers:regions:{site.pk}:{country}", build, LIST_CACHE_SECONDS)


def featured_profile(profile_id: int) -> Profile | None:
    """A member landers may feature: visible to visitors (not disabled, invisible or
    deleted). Its photo is shown only when approved (member_photos)."""
    return profiles_visible_to(None).select_related("main_photo", "user").filter(pk=profile_id).first()


def member_photos(profile: Profile, *, limit: int = 6) -> list[dict]:
    """The member's approved photos' thumbnails, main photo first."""
    photos = photos_visible_to(None, profile).exclude(thumb="")
    items = [{"id": photo.pk, "thumb": cdn_url(photo.thumb.url)} for photo in photos[: limit + 1]]
    items.sort(key=lambda item: item["id"] != profile.main_photo_id)
    return items[:limit]


def approved_photo_count(profile: Profile) -> int:
    return photos_visible_to(None, profile).count()


def site_lander_video(site: Site) -> LanderVideo | None:
    return LanderVideo.objects.filter(site=site).first()


def site_page(site: Site, token: str) -> SitePage | None:
    """The published page at /<token> in the current language, else in the site's
    domain or first language."""
    pages = {
        page.language: page for page in SitePage.objects.filter(site=site, token=token, published=True).order_by("pk")
    }
    for language in (get_language(), site.domain_language, site.default_language):
        if language in pages:
            return pages[language]
    return None
