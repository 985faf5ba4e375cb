"""What a notice says, in the member's language, at the moment it is sent.

`notice_content` re-reads what the notice is about: messages read meanwhile and likes
already seen drop out, and a notice with nothing left is not sent at all ("seen"). The
result serves both channels: the push payload and the e-mail are made from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.notifications.models import Notice

PREVIEW_LENGTH = 120


@dataclass
class Content:
    title: str  # push title, e-mail heading and (with the site's name) subject
    body: str  # push body, the e-mail's first paragraph
    url: str  # the page it is about (a path of the site)
    tag: str  # push topic: a newer notice with the same tag replaces the older one
    cta: str  # the e-mail's button
    lines: list[str] = field(default_factory=list)  # more e-mail paragraphs
    preview: str = ""  # push only: never in an e-mail


def _preview(item: dict) -> str:
    kind = item.get("k")
    if kind == "photo":
        return _("sent you a photo")
    if kind == "gift":
        return _("sent you a gift")
    text = " ".join(str(item.get("t") or "").split())
    return text if len(text) <= PREVIEW_LENGTH else text[: PREVIEW_LENGTH - 1] + "…"


def _unread_messages(items: list[dict]) -> list[dict]:
    from apps.chat.models import Message

    ids = [item.get("m") for item in items if isinstance(item.get("m"), int)]
    unread = set(Message.objects.filter(pk__in=ids, read_at__isnull=True, held=False).values_list("pk", flat=True))
    return [item for item in items if item.get("m") in unread]


def _new_likes(items: list[dict]) -> list[dict]:
    from apps.likes.models import Like

    ids = [item.get("l") for item in items if isinstance(item.get("l"), int)]
    new = set(Like.objects.filter(pk__in=ids, is_new=True).values_list("pk", flat=True))
    return [item for item in items if item.get("l") in new]


def _names(items: list[dict]) -> list[str]:
    names: list[str] = []
    for item in reversed(items):  # newest first
        name = str(item.get("n") or "")
        if name and name not in names:
            names.append(name)
    return names


def _messages(notice: Notice, *, started: bool) -> Content | None:
    items = _unread_messages(notice.items)
    if not items:
        return None
    # Of the merged events only the kept ones are known; those read drop out of the count.
    count = max(len(items), notice.count - (len(notice.items) - len(items)))
    names = _names(items)
    conversations = {item.get("c") for item in items}
    newest = items[-1]
    single = len(conversations) == 1
    url = f"/chats/{newest.get('c')}" if single else "/chats"
    if started:
        if len(names) == 1:
            title = _("%(name)s started a conversation with you") % {"name": names[0]}
        else:
            title = ngettext(
                "%(count)s member started a conversation with you",
                "%(count)s members started a conversation with you",
                len(names),
            ) % {"count": len(names)}
    elif len(names) == 1:
        title = ngettext("%(name)s sent you a message", "%(name)s sent you %(count)s messages", count) % {
            "name": names[0],
            "count": count,
        }
    else:
        title = ngettext(
            "%(count)s new message from %(name)s and others",
            "%(count)s new messages from %(name)s and others",
            count,
        ) % {"count": count, "name": names[0]}
    body = _("Reply now, before someone else does.")
    lines = [_("Open the conversation to read it. Nobody else can see your messages.")]
    return Content(
        title=title,
        body=body,
        url=url,
        tag=f"chat-{newest.get('c')}" if single else "chats",
        cta=_("Read the message") if count == 1 else _("Read the messages"),
        lines=lines,
        preview=f"{newest.get('n')}: {_preview(newest)}" if newest.get("n") else _preview(newest),
    )


def _likes(notice: Notice) -> Content | None:
    items = _new_likes(notice.items)
    if not items:
        return None
    count = max(len(items), notice.count - (len(notice.items) - len(items)))
    newest = items[-1]
    if count == 1 and newest.get("match"):
        title = _("It's a match: you and %(name)s like each other") % {"name": newest.get("n")}
        return Content(
            title=title,
            body=_("Say hello to %(name)s now.") % {"name": newest.get("n")},
            url=f"/members/{newest.get('p')}/chat",
            tag="likes",
            cta=_("Send a message"),
        )
    if count == 1:
        return Content(
            title=_("%(name)s likes you") % {"name": newest.get("n")},
            body=_("Have a look at the profile. Do you like %(name)s too?") % {"name": newest.get("n")},
            url=f"/members/{newest.get('p')}",
            tag="likes",
            cta=_("View the profile"),
        )
    return Content(
        title=ngettext("%(count)s member likes you", "%(count)s members like you", count) % {"count": count},
        body=_("See who they are and like them back."),
        url="/likes",
        tag="likes",
        cta=_("See your likes"),
    )


def _unread_reminder(notice: Notice) -> Content | None:
    from apps.chat.selectors import unread_total

    unread = unread_total(user=notice.user)
    if not unread:
        return None
    return Content(
        title=ngettext("You have %(count)s unread message", "You have %(count)s unread messages", unread)
        % {"count": unread},
        body=_("Someone is waiting for your answer."),
        url="/chats",
        tag="unread",
        cta=_("Read your messages"),
    )


def _new_members_this_week() -> int:
    """Members who joined the site in the last 7 days (the same for every member of a
    run: remembered per site for an hour)."""
    from django.core.cache import cache

    from apps.profiles.models import Profile, ProfileStatus

    def count() -> int:
        since = timezone.now() - timedelta(days=7)
        return Profile.objects.filter(status=ProfileStatus.ACTIVE, created__gte=since).count()

    return cache.get_or_set("notifications:new-members-week", count, 3600)


def _weekly(notice: Notice) -> Content | None:
    from apps.likes.models import Like

    members = _new_members_this_week()
    since = timezone.now() - timedelta(days=7)
    likes = Like.objects.filter(profile__user_id=notice.user_id, created__gte=since).count()
    lines = []
    if members:
        lines.append(
            ngettext("%(count)s new member joined this week.", "%(count)s new members joined this week.", members)
            % {"count": members}
        )
    if likes:
        lines.append(ngettext("%(count)s member liked you.", "%(count)s members liked you.", likes) % {"count": likes})
    if not lines:
        return None
    return Content(
        title=_("Your week in short"),
        body=lines[0],
        lines=lines[1:],
        url="/members",
        tag="weekly",
        cta=_("See who is new"),
    )


def _joined_since_last_visit(user) -> int:
    """Profiles this member may see (not their own, none blocked either way) that joined
    after their last sign-in."""
    from apps.profiles.visibility import profiles_visible_to

    if user.last_login is None:
        return 0
    return profiles_visible_to(user).filter(created__gt=user.last_login).count()


def _reminder(notice: Notice) -> Content | None:
    from apps.chat.selectors import unread_total
    from apps.likes.selectors import likes_new_count

    likes, unread = likes_new_count(member=notice.user), unread_total(user=notice.user)
    if likes:
        body = ngettext(
            "%(count)s member liked you while you were away.", "%(count)s members liked you while you were away.", likes
        ) % {"count": likes}
    elif unread:
        body = ngettext("%(count)s message is waiting for you.", "%(count)s messages are waiting for you.", unread) % {
            "count": unread
        }
    else:
        joined = _joined_since_last_visit(notice.user)
        if not joined:
            return None  # nothing true to tell: no reminder rather than an invented reason
        body = ngettext(
            "%(count)s new member joined since your last visit.",
            "%(count)s new members joined since your last visit.",
            joined,
        ) % {"count": joined}
    return Content(title=_("We miss you"), body=body, url="/members", tag="reminder", cta=_("Come and see"))


def _photo_rejected(notice: Notice) -> Content | None:
    """Photos support rejected that are still rejected and still there (a member who
    deleted or replaced them meanwhile hears nothing)."""
    from apps.profiles.models import Photo, PhotoRejectionReason, PhotoStatus, photo_fix_hint

    ids = [item.get("ph") for item in notice.items if isinstance(item.get("ph"), int)]
    photos = list(
        Photo.objects.filter(pk__in=ids, profile__user_id=notice.user_id, status=PhotoStatus.REJECTED).order_by(
            "-decided_at", "-pk"
        )
    )
    if not photos:
        return None
    newest = photos[0]
    reason = newest.rejection_reason or PhotoRejectionReason.OTHER
    label = str(PhotoRejectionReason(reason).label) if reason in PhotoRejectionReason.values else ""
    title = ngettext("Your photo was not approved", "%(count)s of your photos were not approved", len(photos)) % {
        "count": len(photos)
    }
    return Content(
        title=title,
        body=_("Reason: %(reason)s.") % {"reason": label or str(PhotoRejectionReason.OTHER.label)},
        lines=[photo_fix_hint(reason), _("Only you can see a photo that was not approved.")],
        url="/profile#photos",
        tag="photos",
        cta=_("Choose another photo"),
    )


def _verification_decided(notice: Notice) -> Content | None:
    """Support's decision on the member's verification request, when it is still their
    newest request (a member who asked again meanwhile hears about that one instead)."""
    from apps.profiles.models import (
        Verification,
        VerificationRejectionReason,
        VerificationStatus,
        verification_fix_hint,
    )

    ids = {item.get("v") for item in notice.items if isinstance(item.get("v"), int)}
    if not ids:
        return None
    newest = Verification.objects.filter(profile__user_id=notice.user_id).order_by("-created", "-pk").first()
    if newest is None or newest.pk not in ids:
        return None
    if newest.status == VerificationStatus.APPROVED:
        return Content(
            title=_("You are verified"),
            body=_(
                "Support checked your photos against a selfie. Others see the badge while your main photo is one "
                "of the checked photos."
            ),
            url="/profile#verification",
            tag="verification",
            cta=_("See your profile"),
        )
    if newest.status != VerificationStatus.REJECTED:
        return None
    reason = newest.rejection_reason or VerificationRejectionReason.OTHER
    label = str(VerificationRejectionReason(reason).label) if reason in VerificationRejectionReason.values else ""
    return Content(
        title=_("You were not verified"),
        body=_("Reason: %(reason)s.") % {"reason": label or str(VerificationRejectionReason.OTHER.label)},
        lines=[verification_fix_hint(reason)],
        url="/profile/verify",
        tag="verification",
        cta=_("Try again"),
    )


def _photo_decisions(notice: Notice) -> Content | None:
    """Rejected photos and a verification decision, merged into one notice while it
    waits: the verification leads, the photos follow in the e-mail."""
    verification, photos = _verification_decided(notice), _photo_rejected(notice)
    if verification is None or photos is None:
        return verification or photos
    verification.lines = [*verification.lines, photos.title, photos.body, *photos.lines]
    return verification


# Kinds an operator's campaign sends: the same content to every member (in the member's
# language where it has a translated default, the button's label).
CAMPAIGN_KINDS = ("news", "promotions")


def campaign_content(campaign) -> Content | None:
    """A campaign's content in the active language (the same for each of its notices)."""
    if campaign is None:
        return None
    return Content(
        title=campaign.title,
        body=campaign.body,
        url=campaign.url or "/",
        tag=f"campaign-{campaign.pk}",
        cta=campaign.button or _("Open"),
    )


def notice_content(notice: Notice, *, campaign=None) -> Content | None:
    """The content of `notice` now, in the active language; None when nothing is left
    to tell (read, seen, no longer true)."""
    kind = notice.kind
    if kind == "new_messages":
        return _messages(notice, started=False)
    if kind == "new_conversations":
        return _messages(notice, started=True)
    if kind == "like":
        return _likes(notice)
    if kind == "unread_message_reminders":
        return _unread_reminder(notice)
    if kind == "weekly_updates":
        return _weekly(notice)
    if kind == "reminders":
        return _reminder(notice)
    if kind == "photo_decisions":
        return _photo_decisions(notice)
    if kind in CAMPAIGN_KINDS:
        return campaign_content(campaign)
    return None
