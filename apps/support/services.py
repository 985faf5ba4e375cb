"""Support's actions on a member. Each runs in the member's site schema, takes the staff
member and the reason they gave, and writes one audit row with the state before and
after, in the same transaction as the change (the audit table is in the public schema,
on the same connection). Errors are ApplicationError with a translated message."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.test import RequestFactory
from django.urls import get_urlconf, reverse, set_urlconf
from django.utils import timezone
from django.utils.translation import gettext as _
from django_tenants.utils import tenant_context

from apps.common.exceptions import ApplicationError
from apps.support.audit import audit_record
from apps.support.models import AuditEntry
from apps.tenants.models import MemberDirectoryEntry

if TYPE_CHECKING:
    from apps.moderation.models import ComplaintCase

REASON_MIN_LENGTH = 5
REASON_MAX_LENGTH = 1000
# The member's data export must be this recent when the account is erased.
EXPORT_FRESH = timedelta(hours=24)


def reason_clean(reason: str) -> str:
    reason = (reason or "").replace("\x00", "").strip()
    if len(reason) < REASON_MIN_LENGTH:
        raise ApplicationError(
            "reason_required", _("Say why (at least %(min)d characters).") % {"min": REASON_MIN_LENGTH}
        )
    if len(reason) > REASON_MAX_LENGTH:
        raise ApplicationError(
            "reason_too_long", _("Please use at most %(max)s characters.") % {"max": REASON_MAX_LENGTH}
        )
    return reason


def _gone() -> ApplicationError:
    return ApplicationError("member_gone", _("The member no longer exists on the site."), status_code=404)


def site_request(site, path: str = "/"):
    """A request on the site's primary host, for services that build links to the site
    (activation, password reset) when support acts from the operators' host."""
    from apps.notifications.mailing import site_url

    address = urlsplit(site_url(site, path))
    request = RequestFactory().get(address.path, HTTP_HOST=address.netloc, secure=address.scheme == "https")
    request.tenant = request.site = site
    request.LANGUAGE_CODE = site.domain_language or "en"
    return request


def _account_state(member) -> dict:
    return {
        "status": member.status,
        "credits": member.credits,
        "credits_frozen": member.credits_frozen,
        "credits_owed": member.credits_owed,
        "direct_debit_blocked": member.direct_debit_blocked,
        "password_usable": member.has_usable_password(),
    }


@dataclass
class Act:
    """What an action did, for its audit row: the member (locked when asked), the state
    before and after, and the object it touched."""

    member: object
    reason: str
    before: dict
    after: dict | None = None
    target: str = ""


@contextmanager
def member_action(actor, entry: MemberDirectoryEntry, action: str, reason: str, *, lock: bool = True):
    """`with member_action(actor, entry, "action", reason) as act:` runs the block in the
    member's site schema and one transaction, with the site's URLs for the links it
    mails, and writes the audit row (act.before / act.after / act.target / act.reason,
    the reason cleaned) when the block succeeds."""
    from apps.accounts.models import User

    reason = reason_clean(reason)
    urlconf = get_urlconf()
    with tenant_context(entry.site):
        set_urlconf(settings.ROOT_URLCONF)
        try:
            with transaction.atomic():
                members = User.objects.select_for_update() if lock else User.objects
                member = members.filter(pk=entry.member_id).first()
                if member is None:
                    raise _gone()
                act = Act(member=member, reason=reason, before=_account_state(member))
                yield act
                audit_record(
                    actor=actor,
                    action=action,
                    site=entry.site,
                    member_id=entry.member_id,
                    target=act.target,
                    before=act.before,
                    after=act.after,
                    reason=reason,
                )
        finally:
            set_urlconf(urlconf)


def _refreshed(member) -> dict:
    member.refresh_from_db()
    return _account_state(member)


# --- Account -----------------------------------------------------------------------


def activation_resend(*, actor, entry: MemberDirectoryEntry, reason: str) -> None:
    from allauth.account.models import EmailAddress

    with member_action(actor, entry, "member.activation_resend", reason, lock=False) as act:
        address = EmailAddress.objects.filter(user=act.member, email__iexact=act.member.email).first()
        if address is None or address.verified:
            raise ApplicationError("already_confirmed", _("The member's e-mail address is already confirmed."))
        address.send_confirmation(site_request(entry.site))
        act.target = act.member.email
        act.after = act.before


def password_reset_force(*, actor, entry: MemberDirectoryEntry, reason: str) -> None:
    """The old password stops working, every session (and live connection) ends, and the
    member gets a link to choose a new one."""
    from apps.accounts.mail import mail_send_later
    from apps.accounts.services.deletion import member_sessions_end
    from apps.accounts.services.password_reset import password_reset_key_make
    from apps.notifications.mailing import site_url

    with member_action(actor, entry, "member.password_reset", reason) as act:
        member = act.member
        member.set_unusable_password()
        member.save(update_fields=["password"])
        member_sessions_end(user_id=member.pk)
        url = site_url(entry.site, reverse("reset-password-do") + f"?key={password_reset_key_make(member)}")
        mail_send_later(
            template_prefix="account/email/password_reset_key",
            email=member.email,
            context={"user": member, "password_reset_url": url},
            language=member.language,
        )
        act.after = _account_state(member)


def profile_enabled_set(*, actor, entry: MemberDirectoryEntry, enabled: bool, reason: str) -> None:
    from apps.accounts.services.directory import directory_sync
    from apps.profiles.models import Profile, ProfileStatus

    action = "member.profile_enable" if enabled else "member.profile_disable"
    with member_action(actor, entry, action, reason) as act:
        profile = Profile.objects.select_for_update().filter(user=act.member).first()
        if profile is None:
            raise ApplicationError("no_profile", _("The member has no profile."))
        wanted = ProfileStatus.ACTIVE if enabled else ProfileStatus.DISABLED
        if profile.status == wanted:
            raise ApplicationError("unchanged", _("Nothing to change: the profile is already so."))
        act.before = {**act.before, "profile_status": profile.status}
        profile.status = wanted
        profile.save(update_fields=["status"])
        directory_sync(user=act.member)
        act.target = f"profile {profile.pk}"
        act.after = {**_account_state(act.member), "profile_status": profile.status}


def photo_hide(*, actor, entry: MemberDirectoryEntry, photo_id: int, reason: str) -> None:
    """Others no longer see the photo; the member sees it rejected with the reason."""
    from apps.moderation.services import photo_hide_by_support
    from apps.profiles.models import Photo, PhotoStatus

    with member_action(actor, entry, "photo.hide", reason, lock=False) as act:
        photo = Photo.objects.select_for_update().filter(pk=photo_id, profile__user=act.member).first()
        if photo is None:
            raise ApplicationError("not_found", _("This photo could not be found."), status_code=404)
        if photo.status == PhotoStatus.REJECTED:
            raise ApplicationError("unchanged", _("The photo is already hidden."))
        act.before = {"photo": photo.pk, "status": photo.status}
        photo_hide_by_support(photo=photo, actor=actor, site=entry.site, note=act.reason)
        act.target = f"photo {photo.pk}"
        act.after = {"photo": photo.pk, "status": PhotoStatus.REJECTED}


# --- Money -------------------------------------------------------------------------


def credits_change(*, actor, entry: MemberDirectoryEntry, credits: int, reason: str) -> int:
    """Grant (credits > 0) or take (credits < 0) credits; returns the new balance."""
    from apps.credits.services import credits_adjust

    if not credits:
        raise ApplicationError("invalid", _("Enter a number of credits other than 0."))
    action = "credits.grant" if credits > 0 else "credits.take"
    with member_action(actor, entry, action, reason, lock=False) as act:
        credits_adjust(user=act.member, credits=credits, staff_name=actor.get_username(), note=act.reason)
        act.target = f"{credits:+d} credits"
        act.after = _refreshed(act.member)
        return act.member.credits


def credits_unfreeze(*, actor, entry: MemberDirectoryEntry, reason: str) -> int:
    """Clear a chargeback debt settled outside the site; returns the credits owed before."""
    from apps.credits.services import credits_unfreeze as unfreeze

    with member_action(actor, entry, "credits.unfreeze", reason, lock=False) as act:
        owed = act.member.credits_owed
        if not (act.member.credits_frozen or owed):
            raise ApplicationError("unchanged", _("Spending was not frozen."))
        unfreeze(user=act.member, staff_name=actor.get_username(), note=act.reason)
        act.after = _refreshed(act.member)
        return owed


def payment_refund(*, actor, entry: MemberDirectoryEntry, payment_id: str, reason: str):
    from apps.payments.gateways.base import GatewayError
    from apps.payments.models import Payment
    from apps.payments.services import refund_request, refundable

    with member_action(actor, entry, "payment.refund", reason, lock=False) as act:
        payment = Payment.objects.filter(user_id=act.member.pk, public_id=payment_id).first()
        if payment is None:
            raise ApplicationError("not_found", _("This payment could not be found."), status_code=404)
        if refundable(payment, user=act.member) is None:
            raise ApplicationError("refund_not_allowed", _("This payment cannot be refunded."))
        try:
            refund = refund_request(payment=payment, requested_by=actor.get_username())
        except GatewayError as error:
            raise ApplicationError(
                "gateway", _("The payment provider did not accept the refund. Please try again later.")
            ) from error
        act.target = f"payment {payment.public_id}"
        act.before = {**act.before, "payment_refunded": payment.amount_refunded}
        act.after = {
            **_refreshed(act.member),
            "refund_credits": refund.credits,
            "refund_amount": refund.amount,
            "currency": payment.currency,
        }
        return refund, payment


def direct_debit_block_set(*, actor, entry: MemberDirectoryEntry, blocked: bool, reason: str) -> None:
    action = "direct_debit.block" if blocked else "direct_debit.unblock"
    with member_action(actor, entry, action, reason) as act:
        if act.member.direct_debit_blocked == blocked:
            raise ApplicationError("unchanged", _("Nothing to change: the member is already so."))
        act.member.direct_debit_blocked = blocked
        act.member.save(update_fields=["direct_debit_blocked"])
        act.after = _account_state(act.member)


# --- Erasure (GDPR) ---------------------------------------------------------------


def member_export_for_support(*, actor, entry: MemberDirectoryEntry, reason: str):
    """The member's data export (the same archive the member can download), recorded in
    the trail; returns the open file."""
    from apps.accounts.services.export import member_export_build

    with member_action(actor, entry, "member.export", reason, lock=False) as act:
        archive = member_export_build(user=act.member)
        act.after = act.before
        return archive


def export_made(*, entry: MemberDirectoryEntry) -> bool:
    """Whether the member's data export was downloaded within EXPORT_FRESH."""
    return AuditEntry.objects.filter(
        site_id=entry.site_id,
        member_id=entry.member_id,
        action="member.export",
        created__gte=timezone.now() - EXPORT_FRESH,
    ).exists()


def member_erase_now(*, actor, entry: MemberDirectoryEntry, reason: str) -> None:
    """Erase the account at once (GDPR): only after its export was made; files, rows,
    sessions and live connections, and the directory entry go."""
    from apps.accounts.models import UserStatus
    from apps.accounts.services.deletion import member_erase, member_sessions_end

    if not export_made(entry=entry):
        raise ApplicationError("export_first", _("Download the member's data export first."))
    site, member_id = entry.site, entry.member_id
    with member_action(actor, entry, "member.erase", reason) as act:
        member = act.member
        member_sessions_end(user_id=member.pk)
        now = timezone.now()
        member.status = UserStatus.DELETED
        member.deleted_at = now - timedelta(seconds=1)
        member.save(update_fields=["status", "deleted_at"])
        if not member_erase(site=site, member_id=member_id, cutoff=now):
            raise _gone()
        act.target = f"member {member_id}"
        act.after = {"erased": True}


# --- From a complaint (the complaints queue's page, apps.moderation.admin) ------------

# What support may do to the member a complaint is about, straight from the complaint's
# page, and the action the complaint is resolved with.
COMPLAINT_MEMBER_ACTIONS = {
    "photo_hide": "photo_hidden",
    "profile_disable": "profile_disabled",
    "erase": "account_erased",
}


def complaint_act(*, case_id: int, actor, action: str, reason: str) -> ComplaintCase:
    """Do the support console's action (apps.support.services: hide the photo the
    complaint names, disable the profile, erase the account) on the member a complaint is
    about, with the agent's reason, and resolve the complaint with that action and the
    reason as its note: one transaction, the action's audit row and the complaint's.
    Refused (409) for a resolved complaint (reopen it first) and when it names no member
    (or the member is gone, 404); the action's own refusals (already hidden, no export
    made before erasing...) come through unchanged, and then nothing changes."""
    from apps.moderation.models import ComplaintCase
    from apps.moderation.services import NOTE_MAX_LENGTH, complaint_move
    from apps.profiles.models import ComplaintStatus

    if action not in COMPLAINT_MEMBER_ACTIONS:
        raise ApplicationError("invalid_action", _("This action does not exist."), status_code=404)
    reason = reason_clean(reason)
    with transaction.atomic():
        case = ComplaintCase.objects.select_for_update(of=("self",)).select_related("site").filter(pk=case_id).first()
        if case is None:
            raise ApplicationError("not_found", _("This complaint does not exist."), status_code=404)
        if case.status == ComplaintStatus.RESOLVED:
            raise ApplicationError(
                "complaint_resolved", _("This complaint is resolved: reopen it first."), status_code=409
            )
        entry = MemberDirectoryEntry.objects.select_related("site").filter(
            site_id=case.site_id, member_id=case.member_id
        )
        entry = entry.first() if case.member_id else None
        if entry is None:
            raise ApplicationError("member_gone", _("The member no longer exists on the site."), status_code=404)
        if action == "photo_hide":
            if not case.photo_id:
                raise ApplicationError("no_photo", _("This complaint names no photo."), status_code=409)
            photo_hide(actor=actor, entry=entry, photo_id=case.photo_id, reason=reason)
        elif action == "profile_disable":
            profile_enabled_set(actor=actor, entry=entry, enabled=False, reason=reason)
        else:
            member_erase_now(actor=actor, entry=entry, reason=reason)
        return complaint_move(
            case_id=case.pk,
            actor=actor,
            to=ComplaintStatus.RESOLVED,
            action=COMPLAINT_MEMBER_ACTIONS[action],
            note=reason[:NOTE_MAX_LENGTH],
        )
