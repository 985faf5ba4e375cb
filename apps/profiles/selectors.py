"""Reads about profiles and photos."""

from django.core.paginator import Page, Paginator
from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery
from django.utils.dateparse import parse_datetime

from apps.common.storage import cdn_url
from apps.profiles.models import (
    Gender,
    Photo,
    PhotoStatus,
    Profile,
    ProfileStatus,
    Sexuality,
    Verification,
    VerificationStatus,
)
from apps.tenants.constants import Niche
from apps.tenants.models import Site

FREE_PHOTO_LIMIT = 3
PREMIUM_PHOTO_LIMIT = 25
SIGNUP_MATCHES_PER_PAGE = 12


def photo_limit(user) -> int:
    """How many photos the member may have (spec §5, §9: 3 free, 25 premium)."""
    return PREMIUM_PHOTO_LIMIT if user.paid_user else FREE_PHOTO_LIMIT


def photo_count(profile: Profile) -> int:
    """Photos that count towards the limit: rejected ones do not."""
    return Photo.objects.filter(profile=profile).exclude(status=PhotoStatus.REJECTED).count()


def looking_for_genders(*, site: Site, gender: str, sexuality: str) -> list[str]:
    """The genders a member is looking for, from their own gender and sexuality; on the
    gay niche men look for men whatever they said. Unknown: everyone."""
    if site.niche == Niche.GAY:
        return [Gender.MALE]
    if sexuality == Sexuality.BI or gender not in Gender.values:
        return [Gender.MALE, Gender.FEMALE]
    other = Gender.FEMALE if gender == Gender.MALE else Gender.MALE
    if sexuality in (Sexuality.GAY, Sexuality.LESBIAN):
        return [gender]
    return [other]


def signup_matches(*, site: Site, profile: Profile | None, page: int | str = 1) -> Page:
    """Suggested profiles right after signup: active profiles of the genders the member
    looks for, newest first, the member's own left out. Two queries (count and page),
    whatever the page size."""
    genders = looking_for_genders(
        site=site,
        gender=profile.gender if profile else "",
        sexuality=profile.sexuality if profile else "",
    )
    queryset: QuerySet[Profile] = (
        Profile.objects.filter(status=ProfileStatus.ACTIVE, gender__in=genders)
        .select_related("main_photo")
        .order_by("-created", "-pk")
    )
    if profile is not None:
        queryset = queryset.exclude(pk=profile.pk)
    return Paginator(queryset, SIGNUP_MATCHES_PER_PAGE).get_page(page)


def public_thumb_url(profile: Profile) -> str | None:
    """The main photo's thumbnail as others may see it: only an approved photo."""
    photo = profile.main_photo
    if photo is None or not photo.is_public or not photo.thumb:
        return None
    return cdn_url(photo.thumb.url)


def public_main_image(profile: Profile) -> dict | None:
    """The main photo as others may see it (only an approved one), spec §3 "main_image
    (may be null; has a match path)": `thumb_filename`, the 400 px square thumbnail the
    lists show, and `match_filename`, what the match modal shows in its large circle:
    the re-encoded photo itself (docs/decisions.md, "The match modal's photo"). Reads
    only the main photo the caller loaded with the profile."""
    thumb = public_thumb_url(profile)
    if thumb is None:
        return None
    photo = profile.main_photo
    return {"thumb_filename": thumb, "match_filename": cdn_url(photo.image.url) if photo.image else thumb}


def photos_visible_to(viewer, profile: Profile) -> QuerySet[Photo]:
    """The profile's photos the viewer may see: the owner all of their own (with their
    status), everyone else only approved ones. Oldest first."""
    photos = Photo.objects.filter(profile=profile).order_by("created", "pk")
    if getattr(viewer, "is_authenticated", False) and profile.user_id == viewer.pk:
        return photos
    return photos.filter(status=PhotoStatus.ACTIVE)


def own_photos(profile: Profile) -> QuerySet[Photo]:
    """The member's own photos for the profile page (rejected ones too, with their status)."""
    return Photo.objects.filter(profile=profile).order_by("created", "pk")


def enable_push_alert_key(user, site: Site) -> str:
    """Spec §4 "enable push" alert: the VAPID key the alert subscribes with, for a
    logged-in member who did not dismiss it on a site that offers push; "" otherwise.
    Whether the browser can do push and is subscribed already only the browser knows
    (static_src/base/enablePush.ts shows the alert). No query."""
    from apps.tenants.selectors import push_public_key

    if not getattr(user, "is_authenticated", False) or "enable_push" in (user.dismissals or {}):
        return ""
    return push_public_key(site)


def profile_photo_alert_shown(user) -> bool:
    """Spec §4: a logged-in member without an approved or waiting photo, who did not
    dismiss the alert, is asked to add one. One query."""
    return photo_alerts(user)["add_photo"]


def photo_alerts(user) -> dict:
    """The photo alerts of a logged-in member, in one query: `add_photo` (spec §4: no
    approved or waiting photo, the alert not dismissed), `rejected`, the newest photo
    support rejected since the member last dismissed that alert (a Photo with `pk` and
    `rejection_reason`, or None), and `verification`, support's decision on the member's
    newest verification request when it came after the member last dismissed that alert
    (a Verification with `pk`, `status`, `rejection_reason` and `decided_at`, or None).
    Remembered on the member object for the request."""
    if not getattr(user, "is_authenticated", False):
        return {"add_photo": False, "rejected": None, "verification": None}
    cached = getattr(user, "_photo_alerts", None)
    if cached is not None:
        return cached
    dismissals = user.dismissals or {}
    with_photo = Photo.objects.filter(profile_id=OuterRef("pk"), status__in=[PhotoStatus.ACTIVE, PhotoStatus.PENDING])
    rejected = Photo.objects.filter(profile_id=OuterRef("pk"), status=PhotoStatus.REJECTED, decided_at__isnull=False)
    since = parse_datetime(str(dismissals.get("photo_rejected") or ""))
    if since is not None:
        rejected = rejected.filter(decided_at__gt=since)
    rejected = rejected.order_by("-decided_at", "-pk")
    newest = Verification.objects.filter(profile_id=OuterRef("pk")).order_by("-created", "-pk")
    row = (
        Profile.objects.filter(user_id=user.pk)
        .annotate(
            with_photo=Exists(with_photo),
            rejected_id=Subquery(rejected.values("pk")[:1]),
            rejected_reason=Subquery(rejected.values("rejection_reason")[:1]),
            verification_id=Subquery(newest.values("pk")[:1]),
            verification_status=Subquery(newest.values("status")[:1]),
            verification_reason=Subquery(newest.values("rejection_reason")[:1]),
            verification_decided=Subquery(newest.values("decided_at")[:1]),
        )
        .values(
            "with_photo",
            "rejected_id",
            "rejected_reason",
            "verification_id",
            "verification_status",
            "verification_reason",
            "verification_decided",
        )
        .first()
    )
    state = {"add_photo": False, "rejected": None, "verification": None}
    if row is not None:
        state["add_photo"] = not row["with_photo"] and "profile_photo" not in dismissals
        if row["rejected_id"]:
            state["rejected"] = Photo(pk=row["rejected_id"], rejection_reason=row["rejected_reason"] or "")
        decided = row["verification_decided"]
        verification_since = parse_datetime(str(dismissals.get("verification_decided") or ""))
        if (
            row["verification_status"] in (VerificationStatus.APPROVED, VerificationStatus.REJECTED)
            and decided is not None
            and (verification_since is None or decided > verification_since)
        ):
            state["verification"] = Verification(
                pk=row["verification_id"],
                status=row["verification_status"],
                rejection_reason=row["verification_reason"] or "",
                decided_at=decided,
            )
    user._photo_alerts = state
    return state


def profile_verified(profile: Profile) -> bool:
    """The "verified" badge: the main photo others see is approved and was checked
    against a verification selfie. It goes by itself when the main photo changes to one
    not checked. Reads the loaded main photo; no query when it is loaded."""
    photo = profile.main_photo if profile.main_photo_id else None
    return bool(photo is not None and photo.status == PhotoStatus.ACTIVE and photo.verified)


def verified_q() -> Q:
    """Profiles with the "verified" badge (profile_verified), as a condition without a
    join (a subquery on the main photo), so search's query count and its exclusions
    stay as they are."""
    return Q(Exists(Photo.objects.filter(pk=OuterRef("main_photo_id"), status=PhotoStatus.ACTIVE, verified=True)))


def verification_state(profile: Profile) -> dict:
    """What the member's verification page says: `verified` (the badge), `waiting` (a
    request waits), `last` (the newest request, for a rejection's reason), `can_ask`
    (no request waiting and an approved photo to compare with)."""
    last = Verification.objects.filter(profile=profile).order_by("-created", "-pk").first()
    waiting = last is not None and last.status == VerificationStatus.PENDING
    has_photo = Photo.objects.filter(profile=profile, status=PhotoStatus.ACTIVE).exists()
    return {
        "verified": profile_verified(profile),
        "waiting": waiting,
        "last": last,
        "has_photo": has_photo,
        "can_ask": has_photo and not waiting,
    }
