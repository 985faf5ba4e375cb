"""Reads about member accounts."""

from datetime import date

from django.http import HttpRequest
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.tracking import has_tracking_network
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
        "credits": getattr(user, "credits_balance", 0),
        "paid_user": bool(getattr(user, "paid_user", False)),
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
        "main_image": {"filename": main.image.url, "thumb_filename": main.thumb.url} if main else None,
    }
