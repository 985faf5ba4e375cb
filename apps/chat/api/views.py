"""The chat API (spec §7): thin views over apps.chat.services and selectors.

- GET /api/chats.php: {"chats": [{"conversation", "profile", "num_unread_messages", ...}],
  "last_opened": {"conversation", "profile", "at"} | null}
- GET /api/chat.php?conversation=<id>: the newest messages of a conversation (opening
  it: it becomes the member's last opened chat).
- POST /api/chat.php {"profile": id}: open (or start) the conversation with a profile.
- DELETE /api/chat.php {"conversation": id} or {"profile": id}: delete chats.
- POST /api/chat-read.php {"conversation": id}: opened; unread becomes 0.
- POST /api/message.php {"conversation", "client_id", "text" | "gift"}, or multipart
  with "photo": send a message (paid with credits; resending the same client_id is safe).
- GET /api/gifts.php: the site's gift catalogue and what a gift costs.
"""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiParameter, OpenApiTypes, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from apps.chat.payloads import message_payload
from apps.chat.selectors import chats_state, conversation_history, gifts_offered, message_costs, unread_total
from apps.chat.services import (
    conversation_delete,
    conversation_open,
    conversation_opened,
    conversation_read,
    conversations_delete_with_profile,
    message_send,
)
from apps.common.api.base import SiteApiView
from apps.common.api.fields import StrictCharField, StrictRegexField
from apps.common.api.parsers import SafeJSONParser
from apps.common.api.permissions import MemberRequired
from apps.common.api.schema import MEMBER_ONLY
from apps.common.realtime import after_response, run_after_sent
from apps.profiles.api.answers import MainImageOutput

# What a visitor calling the chat is asked (lazy: read in the visitor's language).
CHAT_LOGIN_MESSAGE = gettext_lazy("Log in or sign up to chat.")


class ChatApiView(SiteApiView):
    """Members only. The answer goes out first: the real-time work its services leave
    for later (the members' badge counts, apps.common.realtime.later) runs once the
    answer is sent."""

    permission_classes = [MemberRequired]
    login_message = CHAT_LOGIN_MESSAGE

    def dispatch(self, request, *args, **kwargs):
        with after_response() as jobs:
            response = super().dispatch(request, *args, **kwargs)
        run_after_sent(response, jobs)
        return response


# The ids an answer names are the ones the next calls take (the schema's links,
# apps.common.api.schema.answer_links): a chat's conversation and profile, a gift's id.
ChatsOutput = inline_serializer(
    "ChatsOutput",
    {
        "chats": inline_serializer(
            "ChatRow",
            {
                "conversation": serializers.IntegerField(),
                "profile": serializers.IntegerField(),
                "name": serializers.CharField(),
                "main_image": MainImageOutput(allow_null=True),
                "is_fictional": serializers.BooleanField(),
                "num_unread_messages": serializers.IntegerField(),
                "last_message": serializers.DictField(allow_null=True),
                "updated": serializers.CharField(allow_null=True),
            },
            many=True,
        ),
        "last_opened": serializers.DictField(allow_null=True),
    },
)
ChatHistoryOutput = inline_serializer(
    "ChatHistoryOutput",
    {
        "conversation": inline_serializer(
            "ChatConversation",
            {
                "id": serializers.IntegerField(),
                "profile": inline_serializer(
                    "ChatProfile",
                    {
                        "id": serializers.IntegerField(),
                        "name": serializers.CharField(),
                        "main_image": MainImageOutput(allow_null=True),
                        "is_fictional": serializers.BooleanField(),
                    },
                ),
                "num_unread_messages": serializers.IntegerField(),
            },
        ),
        "messages": serializers.ListField(child=serializers.DictField()),
        "has_older": serializers.BooleanField(),
        "costs": serializers.DictField(child=serializers.IntegerField()),
        "credits": serializers.IntegerField(),
    },
)
ChatOpenOutput = inline_serializer("ChatOpenOutput", {"conversation": serializers.IntegerField()})
ChatDeleteOutput = inline_serializer("ChatDeleteOutput", {"deleted": serializers.IntegerField()})
ChatReadOutput = inline_serializer(
    "ChatReadOutput", {"num_unread_messages": serializers.IntegerField(), "unread_total": serializers.IntegerField()}
)
GiftsOutput = inline_serializer(
    "GiftsOutput",
    {
        "gifts": inline_serializer(
            "Gift",
            {
                "id": serializers.IntegerField(),
                "name": serializers.CharField(),
                "emoji": serializers.CharField(),
                "image": serializers.CharField(),
            },
            many=True,
        ),
        "credits": serializers.IntegerField(),
    },
)


# One conversation, or every conversation with a profile.
CHAT_DELETE_REQUEST = {
    "application/json": {
        "oneOf": [
            {
                "type": "object",
                "properties": {"conversation": {"type": "integer", "minimum": 1}},
                "required": ["conversation"],
            },
            {
                "type": "object",
                "properties": {"profile": {"type": "integer", "minimum": 1}},
                "required": ["profile"],
            },
        ]
    }
}


class ChatsApi(SiteApiView):
    permission_classes = [MemberRequired]
    login_message = CHAT_LOGIN_MESSAGE

    @extend_schema(responses={200: ChatsOutput}, auth=MEMBER_ONLY, operation_id="chats_list")
    def get(self, request: Request) -> Response:
        member = request.user
        return Response(chats_state(user=member))


class ChatApi(ChatApiView):
    class ChatOpenInput(serializers.Serializer):
        profile = serializers.IntegerField(min_value=1)

    class ChatDeleteInput(serializers.Serializer):
        conversation = serializers.IntegerField(min_value=1, required=False)
        profile = serializers.IntegerField(min_value=1, required=False)

        def validate(self, attrs):
            if not attrs.get("conversation") and not attrs.get("profile"):
                raise serializers.ValidationError({"conversation": [_("This field is required.")]})
            return attrs

    @extend_schema(
        parameters=[OpenApiParameter("conversation", OpenApiTypes.INT, required=True)],
        responses={200: ChatHistoryOutput},
        auth=MEMBER_ONLY,
        operation_id="chat_history",
    )
    def get(self, request: Request) -> Response:
        member = request.user
        history = conversation_history(user=member, conversation_id=request.query_params.get("conversation"))
        conversation_opened(user=member, conversation_id=history["conversation"]["id"])
        site = request._request.site
        return Response({**history, "costs": message_costs(site=site, user=member), "credits": member.credits})

    @extend_schema(request=ChatOpenInput, responses={200: ChatOpenOutput}, auth=MEMBER_ONLY, operation_id="chat_open")
    def post(self, request: Request) -> Response:
        member = request.user
        serializer = self.ChatOpenInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        conversation = conversation_open(user=member, profile_id=serializer.validated_data["profile"])
        return Response({"conversation": conversation.pk})

    @extend_schema(
        request=CHAT_DELETE_REQUEST, responses={200: ChatDeleteOutput}, auth=MEMBER_ONLY, operation_id="chat_delete"
    )
    def delete(self, request: Request) -> Response:
        member = request.user
        serializer = self.ChatDeleteInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if data.get("conversation"):
            conversation_delete(user=member, conversation_id=data["conversation"])
            return Response({"deleted": 1})
        return Response({"deleted": conversations_delete_with_profile(user=member, profile_id=data["profile"])})


class ChatReadApi(ChatApiView):
    class ChatReadInput(serializers.Serializer):
        conversation = serializers.IntegerField(min_value=1)

    @extend_schema(request=ChatReadInput, responses={200: ChatReadOutput}, auth=MEMBER_ONLY, operation_id="chat_read")
    def post(self, request: Request) -> Response:
        member = request.user
        serializer = self.ChatReadInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        conversation_read(user=member, conversation_id=serializer.validated_data["conversation"])
        return Response({"num_unread_messages": 0, "unread_total": unread_total(user=member)})


_ADDRESSED = {
    "conversation": {"type": "integer", "minimum": 1},
    "client_id": {"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$"},
}
# One of a text (not only spaces; the site's length limit is added per site by
# apps.profiles.api.schema.site_choices) or a gift as JSON, or a photo as multipart.
MESSAGE_REQUEST = {
    "application/json": {
        "oneOf": [
            {
                "type": "object",
                "properties": {**_ADDRESSED, "text": {"type": "string", "pattern": "\\S"}},
                "required": ["conversation", "client_id", "text"],
            },
            {
                "type": "object",
                "properties": {**_ADDRESSED, "gift": {"type": "integer", "minimum": 1}},
                "required": ["conversation", "client_id", "gift"],
            },
        ]
    },
    "multipart/form-data": {
        "type": "object",
        # A form's fields are text: the conversation's id in digits.
        "properties": {
            **_ADDRESSED,
            "conversation": {"type": "string", "pattern": "^[1-9][0-9]{0,9}$"},
            "photo": {"type": "string", "format": "binary"},
        },
        "required": ["conversation", "client_id", "photo"],
    },
}


class MessageApi(ChatApiView):
    parser_classes = [SafeJSONParser, MultiPartParser]

    class MessageInput(serializers.Serializer):
        conversation = serializers.IntegerField(min_value=1)
        client_id = StrictRegexField(r"^[A-Za-z0-9_.:-]{1,64}$")
        # Length and emptiness are the service's (translated, with the site's limit).
        text = StrictCharField(required=False, allow_blank=True, trim_whitespace=False)
        gift = serializers.IntegerField(min_value=1, required=False)
        photo = serializers.FileField(required=False, allow_empty_file=True)

    @extend_schema(
        request=MESSAGE_REQUEST,
        responses={
            200: inline_serializer(
                "MessageResent", {"message": serializers.DictField(), "credits": serializers.IntegerField()}
            ),
            201: inline_serializer(
                "MessageSent", {"message": serializers.DictField(), "credits": serializers.IntegerField()}
            ),
        },
        auth=MEMBER_ONLY,
        operation_id="message_send",
    )
    def post(self, request: Request) -> Response:
        member = request.user
        serializer = self.MessageInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        message, created = message_send(
            user=member,
            conversation_id=data["conversation"],
            client_id=data["client_id"],
            text=data.get("text"),
            photo=data.get("photo"),
            gift_id=data.get("gift"),
        )
        return Response(
            {"message": message_payload(message, viewer_id=member.pk), "credits": member.credits},
            status=201 if created else 200,
        )


class GiftsApi(SiteApiView):
    @extend_schema(responses={200: GiftsOutput}, operation_id="gifts_list")
    def get(self, request: Request) -> Response:
        site = request._request.site
        return Response({"gifts": gifts_offered(site=site), "credits": site.gift_credits})
