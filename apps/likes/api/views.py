"""/api/likes.php (GET the lists, POST like, DELETE unlike; body {"profile": id}) and
/api/auto-like.php (the next unseen received like for the match modal)."""

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.common.api.base import SiteApiView
from apps.common.api.permissions import MemberRequired
from apps.common.api.schema import MEMBER_ONLY
from apps.likes.selectors import likes_payload
from apps.likes.services import like_create, like_delete, like_show_next
from apps.profiles.api.answers import ProfileCardOutput
from apps.profiles.cards import profile_card

LikesOutput = inline_serializer(
    "LikesOutput",
    {
        "profiles": ProfileCardOutput(many=True),
        "liked_by": inline_serializer(
            "LikeReceived",
            {
                "id": serializers.IntegerField(),
                "like_new": serializers.BooleanField(),
                "profile": ProfileCardOutput(),
            },
            many=True,
        ),
        "matches": ProfileCardOutput(many=True),
        "num_new": serializers.IntegerField(),
    },
)
LikeOutput = inline_serializer(
    "LikeOutput",
    {"like": serializers.BooleanField(), "match": serializers.BooleanField(), "profile": ProfileCardOutput()},
)
UnlikeOutput = inline_serializer("UnlikeOutput", {"like": serializers.BooleanField()})
AutoLikeOutput = inline_serializer("AutoLikeOutput", {"profile": ProfileCardOutput(allow_null=True)})


class LikesApi(SiteApiView):
    permission_classes = [MemberRequired]

    class LikeInput(serializers.Serializer):
        profile = serializers.IntegerField(min_value=1)

    def _profile_id(self, request: Request) -> int:
        serializer = self.LikeInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data["profile"]

    @property
    def login_message(self):
        # Liking asks a visitor to sign up; the list of likes is a member's own.
        return None if self.request.method == "GET" else _("Log in or sign up to like this profile.")

    @extend_schema(responses={200: LikesOutput}, auth=MEMBER_ONLY, operation_id="likes_list")
    def get(self, request: Request) -> Response:
        return Response(likes_payload(member=request.user))

    @extend_schema(request=LikeInput, responses={200: LikeOutput}, auth=MEMBER_ONLY, operation_id="likes_create")
    def post(self, request: Request) -> Response:
        profile_id = self._profile_id(request)
        like, is_match = like_create(liker=request.user, profile_id=profile_id)
        return Response({"like": True, "match": is_match, "profile": profile_card(like.profile)})

    @extend_schema(request=LikeInput, responses={200: UnlikeOutput}, auth=MEMBER_ONLY, operation_id="likes_delete")
    def delete(self, request: Request) -> Response:
        profile_id = self._profile_id(request)
        like_delete(liker=request.user, profile_id=profile_id)
        return Response({"like": False})


class AutoLikeApi(SiteApiView):
    permission_classes = [MemberRequired]

    @extend_schema(responses={200: AutoLikeOutput}, auth=MEMBER_ONLY, operation_id="autolike_retrieve")
    def get(self, request: Request) -> Response:
        profile = like_show_next(member=request.user)
        return Response({"profile": profile_card(profile) if profile else None})
