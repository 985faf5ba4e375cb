"""The chat pages (spec §2 chats, chats-id, members-id-chat; issue 7): server-rendered pages
in the chat layout that host the Chat island, with its first data in the props so the
page shows at once. apps.chat.api answers the island's calls; lib/realtime.ts brings
the live events.

- /chats: the member's conversation list; on wide screens the island opens the last
  opened conversation instead (props "lastOpened").
- /chats/<id>: one conversation (the member's own; 404 otherwise), beside the list on
  wide screens. Opening it makes it the member's last opened chat.
- /members/<id>/chat: opens (or starts) the conversation with a profile and goes there.
  Visitors get the "log in or sign up" message of the profile page's message button; a
  free member past their conversations gets the premium alert."""

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from apps.chat.models import Message, MessageKind, Participant
from apps.chat.selectors import chats_state, conversation_history, message_costs
from apps.chat.services import conversation_open, conversation_opened
from apps.common.exceptions import ApplicationError
from apps.common.locale import locale_tag
from apps.common.media import media_file_response, media_path_check
from apps.common.storage import site_static_url
from apps.profiles.models import MEMBER_COMPLAINT_REASONS
from apps.tenants.models import Gift


def chat_strings() -> dict:
    """The Chat island's text (registered in apps.chat.apps). `{name}`, `{count}` and
    `{max}` are filled in by the island."""
    return {
        "title": _("Messages"),
        "empty": _("You have no conversations yet."),
        "emptyHelp": _("Find someone you like and send them a message."),
        "emptyAction": _("Search members"),
        "selectChat": _("Choose a conversation to read it."),
        "you": _("You:"),
        "photo": _("Photo"),
        "gift": _("Gift"),
        "unread": _("{count} unread"),
        "delete": _("Delete"),
        "deleteChat": _("Delete the conversation with {name}"),
        "deleteConfirm": _("Delete this conversation?"),
        "cancel": _("Cancel"),
        "back": _("Back"),
        "viewProfile": _("View profile"),
        "credits": _("Credits"),
        "olderHidden": _("Older messages are hidden."),
        "typing": _("{name} is typing…"),
        "placeholder": _("Write a message…"),
        "messageLabel": _("Your message"),
        "counter": _("{count} of {max} characters"),
        "send": _("Send"),
        "sendPhoto": _("Send a photo"),
        "sendGift": _("Send a gift"),
        "sending": _("Sending…"),
        "queued": _("Waiting for a connection…"),
        "sent": _("Sent"),
        "delivered": _("Delivered"),
        "read": _("Read"),
        "offline": _("No connection. Your messages are sent as soon as the connection returns."),
        "noCredits": _("You do not have enough credits"),
        "buyCredits": _("Buy credits"),
        "premiumRequired": _("This feature is only available for premium members."),
        "getPremium": _("Get Premium"),
        "error": _("An error has occurred."),
        "close": _("Close"),
        "icebreakerTitle": _("Break the ice"),
        "icebreakerBody": _("Start with one of these openers, or write your own."),
        "icebreakerOwn": _("Write my own"),
        "giftsTitle": _("Send a gift"),
        "loading": _("Loading…"),
        "noGifts": _("There are no gifts right now."),
        "closed": _("This conversation is no longer available."),
        "fictional": _("Fictional profile"),
        "report": _("Report"),
        "reportMessage": _("Report this message"),
        "reportConversation": _("Report {name}"),
        "reportReason": _("Why are you reporting this?"),
        "reportChooseReason": _("Choose a reason."),
        "reportText": _("What happened? (optional)"),
        "reportBlock": _("Also block {name}"),
        "reportSend": _("Send report"),
        "reportDone": _("Thank you. We have received your report and will look into it."),
        "safetyNotice": _(
            "Be careful: this new member's first message has contact details, a link or talk of money. "
            "Never send money or gift cards to someone you have not met."
        ),
        "safetyTipTitle": _("Stay safe"),
        "safetyTip": _(
            "Keep the conversation on this site until you trust someone, never send money or gift cards, "
            "and report anyone who asks for them."
        ),
        "safetyTipDismiss": _("Hide this tip"),
    }


def icebreaker_openers() -> list[str]:
    """Suggested first messages (the icebreaker modal); `{name}` is the other profile's name."""
    return [
        _("Hi {name}! How is your day going?"),
        _("Hey {name}, your profile caught my eye. What are you looking for here?"),
        _("Hi {name}! What do you like to do on a free evening?"),
        _("Hello {name}, where would you take me on a first date?"),
        _("Hi {name}! What made you smile today?"),
    ]


def _credits_label(count: int) -> str:
    return ngettext("%(count)s credit", "%(count)s credits", count) % {"count": count}


def _props(request: HttpRequest, *, view: str, history: dict | None = None) -> dict:
    site = request.site
    user = request.user
    costs = message_costs(site=site, user=user)
    chats = chats_state(user=user)
    return {
        "view": view,
        "chats": chats["chats"],
        # {conversation, profile, at} or null: on wide screens /chats opens it (index.list.tsx).
        "lastOpened": chats["last_opened"],
        "history": history,
        "credits": user.credits,
        "messageLength": site.message_length,
        "costs": costs,
        "costLabels": {kind: _credits_label(cost) for kind, cost in costs.items()},
        "openers": icebreaker_openers(),
        "openGifts": request.GET.get("gift") == "1",
        "reportReasons": [[value, str(label)] for value, label in MEMBER_COMPLAINT_REASONS],
        "locale": locale_tag(request),  # the member's language and country ("en-GB"): message times
        "urls": {
            "chats": reverse("chats"),
            # "{id}" is replaced by the island.
            "chat": reverse("chats-id", args=[0]).removesuffix("0") + "{id}",
            "profile": reverse("members-id", args=[0]).removesuffix("0") + "{id}",
            "search": reverse("members"),
            "credits": reverse("credits"),
            "premium": reverse("premium"),
            # The icons' sprite (<use href="…#name">): on the site's host, a CDN would not do.
            "icons": site_static_url("chat/icons.svg"),
        },
    }


def profile_gift_props(request: HttpRequest, profile) -> dict:
    """The profile page's gift button (islands/ProfileGift), for a member: the chat's gift
    catalogue and sending, what a gift costs and the member's credits."""
    site = request.site
    cost = message_costs(site=site, user=request.user)[MessageKind.GIFT]
    return {
        "profileId": profile.pk,
        "profileName": profile.name,
        "credits": request.user.credits,
        "cost": cost,
        "costLabel": _credits_label(cost),
        "urls": {
            "gifts": reverse("api-gifts"),
            "chat": reverse("api-chat"),
            "message": reverse("api-message"),
            "credits": reverse("credits"),
            "premium": reverse("premium"),
            # "{id}" is replaced by the island.
            "conversation": reverse("chats-id", args=[0]).removesuffix("0") + "{id}",
        },
        "strings": {
            "sendGift": _("Send a gift"),
            "giftsTitle": _("Send {name} a gift"),
            "loading": _("Loading…"),
            "noGifts": _("There are no gifts right now."),
            "noCredits": _("You do not have enough credits"),
            "buyCredits": _("Buy credits"),
            "premiumRequired": _("This feature is only available for premium members."),
            "getPremium": _("Get Premium"),
            "sent": _("Your gift ({gift}) is on its way to {name}."),
            "openChat": _("Go to the conversation"),
            "error": _("An error has occurred."),
            "close": _("Close"),
        },
    }


@never_cache
@login_required
@require_http_methods(["GET", "HEAD"])
def chats_page(request: HttpRequest) -> HttpResponse:
    return render(request, "chat/chats.html", {"chat_props": _props(request, view="list"), "title": _("Messages")})


@never_cache
@login_required
@require_http_methods(["GET", "HEAD"])
def chat_page(request: HttpRequest, id: int) -> HttpResponse:
    try:
        history = conversation_history(user=request.user, conversation_id=id)
    except ApplicationError as error:
        raise Http404(error.message) from None
    conversation_opened(user=request.user, conversation_id=id)
    props = _props(request, view="conversation", history=history)
    return render(
        request,
        "chat/chats.html",
        {"chat_props": props, "title": history["conversation"]["profile"]["name"]},
    )


@never_cache
@require_http_methods(["GET", "HEAD"])
def member_chat(request: HttpRequest, id: int) -> HttpResponse:
    profile_path = reverse("members-id", args=[id])
    if not request.user.is_authenticated:
        login = f"{reverse('login')}?{urlencode({'next': request.get_full_path()})}"
        return render(
            request,
            "chat/login_needed.html",
            {
                "profile_url": profile_path,
                "login_url": login,
                "signup_url": reverse("members-id-signup", args=[id]),
            },
        )
    try:
        conversation = conversation_open(user=request.user, profile_id=id)
    except ApplicationError as error:
        if error.code == "premium_required":
            context = {
                "message": error.message,
                "profile_url": profile_path,
                "premium_url": reverse("premium"),
            }
            return render(request, "chat/premium_required.html", context, status=403)
        if error.status_code == 404:
            raise Http404(error.message) from None
        return render(request, "errors/error.html", {"status": 400, "message": error.message}, status=400)
    target = reverse("chats-id", args=[conversation.pk])
    if request.GET.get("gift") == "1":
        target += "?gift=1"
    return redirect(target)


@require_http_methods(["GET", "HEAD"])
def media_chat_photo(request: HttpRequest, path: str) -> HttpResponse:
    """A chat photo file (development and test servers; production serves media from its
    storage): only under this site's schema prefix, and only to the two members of the
    conversation it was sent in. Everyone else gets 404, as for a file that is not there."""
    if not request.user.is_authenticated:
        raise Http404
    media_path_check(path, "chat")
    files = Message.objects.filter(Q(photo=path) | Q(photo_thumb=path))
    message = files.only("conversation_id", "held", "sender_id").first()
    if message is None:
        raise Http404
    member = Participant.objects.filter(conversation_id=message.conversation_id, user_id=request.user.pk)
    if not member.exists() or (message.held and message.sender_id != request.user.pk):
        raise Http404
    return media_file_response(path, cache_control="private, max-age=86400")


@require_http_methods(["GET", "HEAD"])
def media_gift_image(request: HttpRequest, path: str) -> HttpResponse:
    """A gift's picture (development and test servers), on its own site's host only."""
    media_path_check(path, "gifts", schema="public")
    if not Gift.objects.filter(site=request.site, image=path).exists():
        raise Http404
    return media_file_response(path, cache_control="public, max-age=86400")
