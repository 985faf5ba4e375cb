"""Complaints (spec §2 route "complaints"), kept for customer support."""

from allauth.core import ratelimit
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.http import HttpRequest
from django.utils.translation import gettext as _

from apps.common.exceptions import ApplicationError
from apps.profiles.models import Complaint, ComplaintReason, Profile
from apps.profiles.visibility import profiles_visible_to

COMPLAINT_MAX_LENGTH = 5000
RATE_LIMIT_ACTION = "complaint"  # settings.ACCOUNT_RATE_LIMITS


def complaint_profile(*, reporter, profile_id: int | None) -> Profile | None:
    """The profile a complaint may be about: one that others may see, not the reporter's
    own. A profile the reporter blocked still counts (block, then report)."""
    if not profile_id:
        return None
    profiles = profiles_visible_to(None)
    if getattr(reporter, "is_authenticated", False):
        profiles = profiles.exclude(user_id=reporter.pk)
    return profiles.filter(pk=profile_id).first()


def complaint_create(
    *,
    request: HttpRequest,
    reporter,
    reason: str,
    text: str,
    email: str,
    profile_id: int | None = None,
) -> Complaint:
    """Store a complaint from a member or a visitor (`reporter` may be anonymous).
    Members who leave the address out are answered at their account's address.
    Raises ApplicationError with `extra["fields"]` for input errors, before anything
    is stored or counted; rate-limited per IP address after that."""
    member = reporter if getattr(reporter, "is_authenticated", False) else None
    errors: dict[str, list[str]] = {}
    if reason not in ComplaintReason.values:
        errors["reason"] = [_("Choose a reason.")]
    text = (text or "").strip()
    if not text:
        errors["text"] = [_("Describe your complaint.")]
    elif len(text) > COMPLAINT_MAX_LENGTH:
        errors["text"] = [_("Your complaint may be at most %(max)s characters long.") % {"max": COMPLAINT_MAX_LENGTH}]
    email = (email or "").strip() or (member.email if member else "")
    if not email:
        errors["email"] = [_("Enter your e-mail address so that we can answer you.")]
    else:
        try:
            validate_email(email)
        except ValidationError:
            errors["email"] = [_("Invalid email")]
    profile = complaint_profile(reporter=reporter, profile_id=profile_id)
    if profile_id and profile is None:
        errors["profile"] = [_("This profile could not be found.")]
    if errors:
        raise ApplicationError("invalid", _("Please check the form."), extra={"fields": errors})
    if not ratelimit.consume(request, action=RATE_LIMIT_ACTION):
        raise ApplicationError(
            "too_many_complaints", _("Too many complaints sent, please try again later."), status_code=429
        )
    return Complaint.objects.create(reporter=member, profile=profile, reason=reason, text=text, email=email)
