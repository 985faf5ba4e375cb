"""Complaints (spec §2 route "complaints"), kept for customer support."""

from datetime import timedelta
from typing import NamedTuple

from allauth.core import ratelimit
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _

# Up to chat: a complaint may name the chat message it is about.
from apps.chat.models import Message, Participant
from apps.common.exceptions import ApplicationError
from apps.profiles.models import (
    MEMBER_COMPLAINT_REASONS,
    Block,
    Complaint,
    ComplaintReason,
    ComplaintStatus,
    Photo,
    PhotoStatus,
    Profile,
)
from apps.profiles.services.blocks import block_create
from apps.profiles.signals import complaint_filed
from apps.profiles.visibility import profiles_visible_to

COMPLAINT_MAX_LENGTH = 5000
RATE_LIMIT_ACTION = "complaint"  # settings.ACCOUNT_RATE_LIMITS


def _reportable_profiles(reporter):
    """The profiles a complaint may be about: ones that others may see, not the reporter's
    own. A profile the reporter blocked still counts (block, then report)."""
    profiles = profiles_visible_to(None)
    if getattr(reporter, "is_authenticated", False):
        profiles = profiles.exclude(user_id=reporter.pk)
    return profiles


def complaint_profile(*, reporter, profile_id: int | None) -> Profile | None:
    """The profile a complaint may be about (_reportable_profiles)."""
    if not profile_id:
        return None
    return _reportable_profiles(reporter).filter(pk=profile_id).first()


def complaint_photo(*, reporter, photo_id: int | None, profile: Profile | None) -> Photo | None:
    """The photo a complaint may name: an approved photo of a profile the reporter may
    see (of `profile` when the complaint names one)."""
    if not photo_id:
        return None
    photos = Photo.objects.select_related("profile").filter(
        pk=photo_id, status=PhotoStatus.ACTIVE, profile__in=_reportable_profiles(reporter)
    )
    if profile is not None:
        photos = photos.filter(profile=profile)
    return photos.first()


def complaint_message(*, reporter, message_id: int | None, profile: Profile | None) -> Message | None:
    """The message a complaint may name: one the other member sent in a conversation the
    reporter takes part in (from `profile` when the complaint names one). Support reads
    a conversation only through a complaint that names one of its messages."""
    if not message_id or not getattr(reporter, "is_authenticated", False):
        return None
    messages = (
        Message.objects.select_related("sender_profile")
        .filter(
            pk=message_id,
            conversation__participants__user_id=reporter.pk,
        )
        .exclude(sender_id=reporter.pk)
    )
    if profile is not None:
        messages = messages.filter(sender_profile=profile)
    return messages.first()


def _id_or_none(value) -> int | None:
    if value in (None, ""):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        return -1  # not an id: never found
    return number if 0 < number < 2**63 else -1


class ComplaintSubject(NamedTuple):
    """What a complaint names, each None where it names nothing or nothing the reporter
    may name."""

    profile: Profile | None
    photo: Photo | None
    message: Message | None

    @property
    def about(self) -> Profile | None:
        """The profile complained about: the one named, else the photo's or the message's."""
        if self.profile is not None:
            return self.profile
        if self.photo is not None:
            return self.photo.profile
        return self.message.sender_profile if self.message is not None else None


def complaint_subject(*, reporter, profile_id=None, photo_id=None, message_id=None) -> ComplaintSubject:
    """The profile, photo and message a complaint names (the ids may be raw input: what
    is not an id is never found)."""
    profile = complaint_profile(reporter=reporter, profile_id=_id_or_none(profile_id))
    return ComplaintSubject(
        profile=profile,
        photo=complaint_photo(reporter=reporter, photo_id=_id_or_none(photo_id), profile=profile),
        message=complaint_message(reporter=reporter, message_id=_id_or_none(message_id), profile=profile),
    )


def complaint_create(
    *,
    request: HttpRequest,
    reporter,
    reason: str,
    text: str,
    email: str,
    profile_id: int | None = None,
    photo_id: int | None = None,
    message_id: int | None = None,
    text_required: bool = True,
) -> Complaint:
    """Store a complaint from a member or a visitor (`reporter` may be anonymous) on the
    request's site. Members who leave the address out are answered at their account's
    address. Raises ApplicationError with `extra["fields"]` for input errors, before
    anything is stored or counted; rate-limited per IP address after that. `photo_id`
    and `message_id` name the photo or the message complained about (the profile follows
    from them when not given); an id the reporter may not name is an input error. The
    complaint enters support's queue (apps.moderation, told by apps.profiles.signals)
    in the same transaction. A report from the chat (`message_report`) may leave the text
    out (`text_required` False): the message it names says what happened."""
    member = reporter if getattr(reporter, "is_authenticated", False) else None
    errors: dict[str, list[str]] = {}
    if reason not in dict(MEMBER_COMPLAINT_REASONS):
        errors["reason"] = [_("Choose a reason.")]
    text = (text or "").strip()
    if "\x00" in text:
        errors["text"] = [_("Your complaint contains characters that are not allowed.")]
    elif not text and text_required:
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
    profile_id, photo_id, message_id = _id_or_none(profile_id), _id_or_none(photo_id), _id_or_none(message_id)
    subject = complaint_subject(reporter=reporter, profile_id=profile_id, photo_id=photo_id, message_id=message_id)
    if profile_id and subject.profile is None:
        errors["profile"] = [_("This profile could not be found.")]
    if photo_id and subject.photo is None:
        errors["photo"] = [_("This photo could not be found.")]
    if message_id and subject.message is None:
        errors["message"] = [_("This message could not be found.")]
    photo, message = subject.photo, subject.message
    if photo is not None and message is not None and photo.profile_id != message.sender_profile_id:
        errors["photo"] = [_("The photo and the message are from different members.")]
    if errors:
        raise ApplicationError("invalid", _("Please check the form."), extra={"fields": errors})
    if not ratelimit.consume(request, action=RATE_LIMIT_ACTION):
        raise ApplicationError(
            "too_many_complaints", _("Too many complaints sent, please try again later."), status_code=429
        )
    with transaction.atomic():
        complaint = Complaint.objects.create(
            reporter=member, profile=subject.about, photo=photo, message=message, reason=reason, text=text, email=email
        )
        complaint_filed.send(sender=Complaint, site=request.site, complaint=complaint)
        if member is not None and complaint.profile_id:
            complaints_escalate(site=request.site, profile_id=complaint.profile_id)
    return complaint


# A member about whom this many different members complained within REPORTERS_WINDOW gets
# a complaint of its own (no reporter), so support looks at the member as a whole.
REPORTERS_ESCALATE = 3
REPORTERS_WINDOW = timedelta(days=30)


def complaints_escalate(*, site, profile_id: int) -> Complaint | None:
    """After a member's complaint about `profile_id`: when REPORTERS_ESCALATE different
    members complained about it within REPORTERS_WINDOW and no such complaint is open,
    file one ("many_reports") into the complaints queue. Two small queries."""
    since = timezone.now() - REPORTERS_WINDOW
    reporters = (
        Complaint.objects.filter(profile_id=profile_id, reporter__isnull=False, created__gte=since)
        .values("reporter_id")
        .distinct()
        .count()
    )
    if reporters < REPORTERS_ESCALATE:
        return None
    open_one = Complaint.objects.filter(
        profile_id=profile_id,
        reason=ComplaintReason.MANY_REPORTS,
        status__in=[ComplaintStatus.OPEN, ComplaintStatus.IN_PROGRESS],
    )
    if open_one.exists():
        return None
    complaint = Complaint.objects.create(
        reporter=None,
        profile_id=profile_id,
        reason=ComplaintReason.MANY_REPORTS,
        text=_("%(count)s different members complained about this member in the last %(days)s days.")
        % {"count": reporters, "days": REPORTERS_WINDOW.days},
        email="",
    )
    complaint_filed.send(sender=Complaint, site=site, complaint=complaint)
    return complaint


def _report_not_found(field: str) -> ApplicationError:
    message = _("This message could not be found.") if field == "message" else _("This conversation does not exist.")
    return ApplicationError("not_found", message, status_code=404, extra={"fields": {field: [message]}})


def message_report(
    *,
    request: HttpRequest,
    reporter,
    reason: str,
    text: str = "",
    message_id: int | None = None,
    conversation_id: int | None = None,
    block: bool = False,
) -> Complaint:
    """A member reports a message they received, or a whole conversation, from the chat.
    The complaint names the message (for a conversation: the newest one the other member
    sent in it that the reporter may see, if any) and the other member's profile, so the
    complaints queue shows the message and the few around it. Only a conversation the
    reporter takes part in and only a message the other member sent are found (404
    otherwise, the same answer for a foreign id as for an unknown one). `block` also
    blocks the other member, in the same transaction: nothing is stored when either
    fails. The text is optional; the complaint is answered at the account's address."""
    if not getattr(reporter, "is_authenticated", False):
        raise ApplicationError("authentication_required", _("Log in or sign up to chat."), status_code=403)
    message_id, conversation_id = _id_or_none(message_id), _id_or_none(conversation_id)
    if message_id:
        message = complaint_message(reporter=reporter, message_id=message_id, profile=None)
        if message is None:
            raise _report_not_found("message")
        about_id = message.sender_profile_id
    elif conversation_id:
        mine = (
            Participant.objects.filter(conversation_id=conversation_id, user_id=reporter.pk)
            .values("other_profile_id", "cleared_up_to")
            .first()
        )
        if mine is None:
            raise _report_not_found("conversation")
        about_id = mine["other_profile_id"]
        message = (
            Message.objects.filter(
                conversation_id=conversation_id, sender_profile_id=about_id, held=False, pk__gt=mine["cleared_up_to"]
            )
            .order_by("-pk")
            .first()
        )
    else:
        raise _report_not_found("message")
    # The other member's profile, if others may still see it (else the message alone names them).
    profile_id = about_id if complaint_profile(reporter=reporter, profile_id=about_id) is not None else None
    with transaction.atomic():
        complaint = complaint_create(
            request=request,
            reporter=reporter,
            reason=reason,
            text=text,
            email="",
            profile_id=profile_id,
            message_id=message.pk if message is not None else None,
            text_required=False,
        )
        if (
            block
            and complaint.profile_id
            and not Block.objects.filter(blocker_id=reporter.pk, blocked_id=complaint.profile_id).exists()
        ):
            block_create(user=reporter, profile_id=complaint.profile_id)
    return complaint


def held_message_file(*, site, message: Message) -> Complaint:
    """A first message the site held for review (apps.chat.safety) enters the complaints
    queue as a complaint of its own (no reporter), naming the message and its sender, in
    the sender's transaction: support delivers or rejects it there."""
    complaint = Complaint.objects.create(
        reporter=None,
        profile_id=message.sender_profile_id,
        message=message,
        reason=ComplaintReason.HELD_MESSAGE,
        text=_("Held for review: %(signals)s") % {"signals": message.signals.replace(",", ", ")},
        email="",
    )
    complaint_filed.send(sender=Complaint, site=site, complaint=complaint)
    return complaint
