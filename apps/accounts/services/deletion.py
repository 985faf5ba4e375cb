"""Deleting an account (spec §3 delete reasons, §4 "Account deletion", §9 reactivation
within 14 days): save-offers first, then deletion; a link in an e-mail reactivates the
account for `REACTIVATION_DAYS`; afterwards a daily sweep erases it for good."""

import logging
from datetime import datetime, timedelta
from importlib import import_module
from urllib.parse import urlencode

from allauth.account.models import EmailAddress
from allauth.core import ratelimit
from django.conf import settings
from django.contrib.auth import SESSION_KEY, login, logout
from django.contrib.sessions.models import Session
from django.db import transaction
from django.db.models import Q
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django_tenants.utils import get_public_schema_name, tenant_context

from apps.accounts.mail import mail_send_later
from apps.accounts.models import DeleteReason, PushSubscription, User, UserStatus
from apps.accounts.services.directory import directory_remove, directory_sync
from apps.accounts.services.settings import link_invalid_error
from apps.accounts.services.tokens import member_token_make, member_token_read
from apps.accounts.signals import sessions_ended
from apps.common.exceptions import ApplicationError
from apps.profiles.models import Photo, Profile, ProfileStatus
from apps.tenants.models import Site

logger = logging.getLogger(__name__)

AUTH_BACKEND = "allauth.account.auth_backends.AuthenticationBackend"
REACTIVATE = "reactivate"
REMARKS_MAX_LENGTH = 2000

# Save-offers (spec §4) that answer each reason for leaving, best first.
OFFER_CHANGE_EMAIL = "change_email"
OFFER_PRIVACY = "privacy"
OFFER_TRYOUT = "tryout"
OFFER_DISCOUNT = "discount"
ALL_OFFERS = (OFFER_CHANGE_EMAIL, OFFER_PRIVACY, OFFER_TRYOUT, OFFER_DISCOUNT)
OFFERS_BY_REASON = {
    DeleteReason.PRICE: (OFFER_DISCOUNT, OFFER_TRYOUT),
    DeleteReason.FOUND_SOMEONE: (OFFER_PRIVACY, OFFER_CHANGE_EMAIL),
    DeleteReason.NOT_LOOKING: (OFFER_PRIVACY, OFFER_CHANGE_EMAIL),
    DeleteReason.SITE_PROBLEMS: (OFFER_CHANGE_EMAIL, OFFER_DISCOUNT),
    DeleteReason.NO_MEMBERS: (OFFER_TRYOUT, OFFER_DISCOUNT),
    DeleteReason.TIME: (OFFER_PRIVACY, OFFER_CHANGE_EMAIL),
    DeleteReason.OTHER: ALL_OFFERS,
}

# Files other apps keep for a member (e.g. chat photos), deleted when the member is
# erased, before the rows go: callables(user=...). Registered by those apps.
MEMBER_FILE_ERASERS: list = []


# Records other apps keep about a member outside the member's rows (the audit trail's
# mentions of the e-mail address), made anonymous in the erasure's transaction before the
# rows go: callables(site=..., user=...). Registered by those apps.
MEMBER_RECORD_ERASERS: list = []


def member_file_eraser_register(erase) -> None:
    if erase not in MEMBER_FILE_ERASERS:
        MEMBER_FILE_ERASERS.append(erase)


def member_record_eraser_register(erase) -> None:
    if erase not in MEMBER_RECORD_ERASERS:
        MEMBER_RECORD_ERASERS.append(erase)


def _reactivation_seconds() -> int:
    return settings.REACTIVATION_DAYS * 24 * 60 * 60


def tryout_url(*, request: HttpRequest, user: User) -> str | None:
    """The save-offer's tryout package: the site's smallest package on sale in the member's
    currency, straight to its checkout. None for a premium member (they have bought and
    know the packages) and on a site that sells none: then the offer is not made."""
    if user.paid_user:
        return None
    # Lazy: payments imports accounts' models; the delete flow reads what the site sells.
    from apps.payments.selectors import packages_offered, payment_country

    offered = packages_offered(site=request.site, country=payment_country(request=request, user=user))
    smallest = min(offered, key=lambda package: (package.credits, package.amount), default=None)
    return reverse("credits-id-paymentmethod", args=[smallest.id]) if smallest is not None else None


def delete_discount_percent(*, site: Site) -> int:
    company = site.company
    return company.delete_discount if company is not None else 0


def delete_offers(*, request: HttpRequest, user: User, reason: str) -> list[str]:
    """The save-offers for this reason that the site can make this member."""
    site = request.site
    available = {
        OFFER_CHANGE_EMAIL: True,
        OFFER_PRIVACY: True,
        OFFER_TRYOUT: tryout_url(request=request, user=user) is not None,
        OFFER_DISCOUNT: delete_discount_percent(site=site) > 0,
    }
    return [offer for offer in OFFERS_BY_REASON.get(reason, ALL_OFFERS) if available[offer]]


def delete_reason_validate(*, reason: str, remarks: str) -> dict:
    """Step 1 of the delete flow. Returns the cleaned reason and remarks."""
    reason = (reason or "").strip()
    remarks = (remarks or "").strip()
    errors: dict[str, list[str]] = {}
    if reason not in DeleteReason.values:
        errors["reason"] = [_("Please choose why you want to delete your account.")]
    elif reason == DeleteReason.OTHER and not remarks:
        errors["remarks"] = [_("Please tell us why you want to delete your account.")]
    if len(remarks) > REMARKS_MAX_LENGTH:
        errors["remarks"] = [
            _("Please use at most %(max)s characters.") % {"max": REMARKS_MAX_LENGTH},
        ]
    if errors:
        raise ApplicationError("invalid", _("Please check the fields marked in red."), extra={"fields": errors})
    return {"reason": reason, "remarks": remarks}


def member_sessions_end(*, user_id: int) -> int:
    """End every session of the member in this site's schema. Sessions are signed
    blobs, so each live one is decoded; a member has few, a site many, hence the
    streaming read."""
    engine = import_module(settings.SESSION_ENGINE)
    store = engine.SessionStore()
    keys = [
        session.session_key
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator(chunk_size=2000)
        if str(store.decode(session.session_data).get(SESSION_KEY)) == str(user_id)
    ]
    for key in keys:
        engine.SessionStore(session_key=key).delete()
    sessions_ended.send(sender=User, user_id=user_id)
    return len(keys)


def member_delete(*, request: HttpRequest, user: User, reason: str, remarks: str, password: str) -> User:
    """Delete the member's account (reactivable for REACTIVATION_DAYS): hide the
    profile, end all the member's sessions including this one, mail the reactivation
    link."""
    data = delete_reason_validate(reason=reason, remarks=remarks)
    if not ratelimit.consume(request, action="reauthenticate", user=user):
        raise ApplicationError(
            "rate_limited", _("Too many attempts. Please wait a minute and try again."), status_code=429
        )
    if not user.check_password(password or ""):
        raise ApplicationError(
            "invalid",
            _("Please check the fields marked in red."),
            extra={"fields": {"password": [_("Please check your password.")]}},
        )
    with transaction.atomic():
        member = User.objects.select_for_update().get(pk=user.pk)
        if member.status == UserStatus.DELETED:
            raise ApplicationError("account_deleted", _("Your account is already deleted."))
        profile_was_active = (
            Profile.objects.filter(user=member, status=ProfileStatus.ACTIVE).update(status=ProfileStatus.DISABLED) > 0
        )
        member.status = UserStatus.DELETED
        member.deleted_at = timezone.now()
        member.delete_reason = data["reason"]
        member.delete_remarks = data["remarks"]
        member.save(update_fields=["status", "deleted_at", "delete_reason", "delete_remarks"])
        # A deleted member gets no pushes; the browser subscribes again after a reactivation.
        PushSubscription.objects.filter(user=member).delete()
        member_sessions_end(user_id=member.pk)
        directory_sync(user=member)
        token = member_token_make(
            purpose=REACTIVATE, member_id=member.pk, d=member.deleted_at.isoformat(), p=profile_was_active
        )
        link = request.build_absolute_uri(reverse("reactivate") + "?" + urlencode({"token": token}))
        mail_send_later(
            template_prefix="account/email/account_deleted",
            email=member.email,
            context={"user": member, "link": link, "days": settings.REACTIVATION_DAYS},
        )
    logout(request)
    return member


def reactivation_check(*, token: str, now: datetime | None = None) -> tuple[User, dict]:
    """The member a reactivation link is for, or ApplicationError when it is forged,
    of another site, of an earlier deletion, used, or older than REACTIVATION_DAYS."""
    payload = member_token_read(purpose=REACTIVATE, token=token, max_age=_reactivation_seconds())
    if payload is None:
        raise link_invalid_error()
    now = now or timezone.now()
    user = User.objects.filter(pk=payload["m"], status=UserStatus.DELETED).first()
    if (
        user is None
        or user.deleted_at is None
        or user.deleted_at.isoformat() != payload.get("d")
        or now - user.deleted_at > timedelta(days=settings.REACTIVATION_DAYS)
    ):
        raise link_invalid_error()
    return user, payload


@transaction.atomic
def member_reactivate(*, request: HttpRequest, token: str, now: datetime | None = None) -> User:
    """Undo the deletion and log the member in. The link works once: it names the
    deletion time, which the reactivation clears."""
    user, payload = reactivation_check(token=token, now=now)
    user = User.objects.select_for_update().get(pk=user.pk)
    if user.status != UserStatus.DELETED or user.deleted_at is None or user.deleted_at.isoformat() != payload["d"]:
        raise link_invalid_error()
    confirmed = EmailAddress.objects.filter(user=user, email__iexact=user.email, verified=True).exists()
    user.status = UserStatus.ACTIVE if confirmed else UserStatus.NOT_CONFIRMED
    user.deleted_at = None
    user.delete_reason = ""
    user.delete_remarks = ""
    user.save(update_fields=["status", "deleted_at", "delete_reason", "delete_remarks"])
    if payload.get("p"):
        Profile.objects.filter(user=user).update(status=ProfileStatus.ACTIVE)
    directory_sync(user=user)
    login(request, user, backend=AUTH_BACKEND)
    return user


# --- The daily sweep ----------------------------------------------------------------


def _expired(cutoff: datetime) -> Q:
    return Q(status=UserStatus.DELETED, deleted_at__lt=cutoff)


def member_erase(*, site: Site, member_id: int, cutoff: datetime) -> bool:
    """Erase one member deleted before `cutoff`, in the current (the site's) schema:
    photo files, rows, cache entries and the directory entry. Returns False when the
    member is gone or was reactivated meanwhile. Files go first, under the row lock:
    if the rows then fail to go, the next sweep finds the member again."""
    with transaction.atomic():
        user = User.objects.select_for_update().filter(_expired(cutoff), pk=member_id).first()
        if user is None:
            return False
        for image, thumb in Photo.objects.filter(profile__user=user).values_list("image", "thumb"):
            for field_name, name in (("image", image), ("thumb", thumb)):
                if name:
                    Photo._meta.get_field(field_name).storage.delete(name)
        for erase in MEMBER_FILE_ERASERS:
            erase(user=user)
        for erase in MEMBER_RECORD_ERASERS:
            erase(site=site, user=user)
        user.delete()  # cascades: profile, photos, push subscriptions, tracking, signup messages, addresses
    directory_remove(site_id=site.pk, member_id=member_id)
    return True


def members_erase_expired(*, now: datetime | None = None) -> int:
    """Erase, on every site, the members deleted more than REACTIVATION_DAYS ago.
    Idempotent; safe to re-run or to run twice at once (each member is erased under its
    row lock). Returns how many members were erased."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.REACTIVATION_DAYS)
    erased = 0
    for site in Site.objects.exclude(schema_name=get_public_schema_name()).order_by("pk"):
        with tenant_context(site):
            member_ids = list(User.objects.filter(_expired(cutoff)).order_by("pk").values_list("pk", flat=True))
            for member_id in member_ids:
                try:
                    erased += member_erase(site=site, member_id=member_id, cutoff=cutoff)
                except Exception:  # one member must not stop the sweep; the next run retries
                    logger.exception("Erasing member %s of site %s failed", member_id, site.schema_name)
    return erased
