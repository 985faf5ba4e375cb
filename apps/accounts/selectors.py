"""Reads about member accounts."""

from collections.abc import Callable, Mapping
from datetime import date

from django.http import HttpRequest
from django.utils import timezone

from apps.accounts.models import User, UserStatus
from apps.accounts.tracking import has_tracking_network
from apps.profiles.models import ProfileStatus
from apps.tenants.constants import Signups


def signup_allowed(*, request: HttpRequest) -> bool:
    """Spec §5: signups are open when `signups` is "all", or "with_trafficsource" and
    the visitor arrived with a tracking network."""
    site = request.site
    return site.signups == Signups.ALL or has_tracking_network(request)


def age_on(born: date, today: date) -> int:
    return today.year - born.year - ((today.month, today.day) < (born.month, born.day))


def user_by_email(email: str) -> User | None:
    return User.objects.filter(email__iexact=email.strip()).first()


def user_payload(user: User) -> dict:
    """The user object of spec §3 / §7 (`GET /api/user.php`). Only the member's own."""
    profile = getattr(user, "profile", None)
    return {
        "id": user.pk,
        "name": user.username,
        "email": user.email,
        "status": user.status,
        "credits": user_credits(user),
        "paid_user": user.paid_user,
        "language": user.language,
        "country": user.country.code if user.country else None,
        "notifications_disabled": user.notifications_disabled,
        "signup_date": timezone.localtime(user.date_joined).isoformat(),
        "invisible": user.invisible,
        "profile": profile_summary(profile) if profile else None,
    }


def profile_summary(profile) -> dict:
    main = profile.main_photo
    return {
        "id": profile.pk,
        "name": profile.name,
        "status": profile.status,
        "gender": profile.gender or None,
        "sexuality": profile.sexuality or None,
        "country": profile.country.code if profile.country else None,
        "region": profile.region or None,
        "city": profile.city or None,
        # The member's own main photo, whatever its state (only they get this answer);
        # the match modal's rendition is the photo itself (docs/decisions.md, "The match
        # modal's photo").
        "main_image": {"filename": main.image.url, "thumb_filename": main.thumb.url, "match_filename": main.image.url}
        if main
        else None,
    }


def user_credits(user: User) -> int:
    """The member's balance as cached on the account row (apps.credits keeps it equal to
    the ledger's sum)."""
    return user.credits


# --- Top-bar totals ----------------------------------------------------------------

TotalsContributor = Callable[[User], Mapping[str, int]]
_totals_contributors: list[TotalsContributor] = []


def member_totals_register(contributor: TotalsContributor) -> TotalsContributor:
    """Let an app add its counts to member_totals() (e.g. chat: {"unreadMessages": n},
    likes: {"newLikes": n}). Call from AppConfig.ready(); usable as a decorator."""
    if contributor not in _totals_contributors:
        _totals_contributors.append(contributor)
    return contributor


def member_totals_unregister(contributor: TotalsContributor) -> None:
    if contributor in _totals_contributors:
        _totals_contributors.remove(contributor)


def member_totals(user: User) -> dict:
    """The top bar's counts: {"unreadMessages", "newLikes", "credits"}."""
    totals = {"unreadMessages": 0, "newLikes": 0, "credits": user_credits(user)}
    for contributor in _totals_contributors:
        totals.update(contributor(user))
    return totals


BADGE_CAP = 99


def badge_label(count: int) -> str:
    """Spec §9 "Badge cap 99+": "" for nothing, "1".."99", then "99+"."""
    count = int(count or 0)
    if count <= 0:
        return ""
    return f"{BADGE_CAP}+" if count > BADGE_CAP else str(count)


CREDITS_BADGE_THRESHOLD = 10


def credits_badge(credits: int) -> dict | None:
    """Spec §2: a badge at 10 credits or fewer, warning style above 0, danger at 0."""
    if credits > CREDITS_BADGE_THRESHOLD:
        return None
    return {"label": str(max(credits, 0)), "style": "danger" if credits <= 0 else "warning"}


# --- Activation reminder (spec §4) ---------------------------------------------------

# Routes (and the pages under their paths) where the reminder would only be in the way:
# signing up (complete-signup is its last step) and the account settings.
ACTIVATION_REMINDER_HIDDEN_ROUTES = frozenset({"signup", "complete-signup", "notifications"})
ACTIVATION_REMINDER_HIDDEN_PATHS = ("/signup", "/notifications")
SIGNUP_COMPLETE_PARAM = "api_signup_complete"


def activation_reminder(*, request: HttpRequest) -> str | None:
    """Which reminder to show: "modal", "alert" or None. For a logged-in member whose
    address is not confirmed and whose profile is disabled: a modal right after signing up
    (?api_signup_complete), an alert otherwise. Phones skip the modal (the base script)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or user.status != UserStatus.NOT_CONFIRMED:
        return None
    profile = getattr(user, "profile", None)
    if profile is not None and profile.status != ProfileStatus.DISABLED:
        return None
    match = getattr(request, "resolver_match", None)
    if match is not None and match.url_name in ACTIVATION_REMINDER_HIDDEN_ROUTES:
        return None
    if any(request.path == path or request.path.startswith(f"{path}/") for path in ACTIVATION_REMINDER_HIDDEN_PATHS):
        return None
    return "modal" if SIGNUP_COMPLETE_PARAM in request.GET else "alert"
