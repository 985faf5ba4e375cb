"""/api/swipe.php: the swipe game (spec §2 swipe-game, §9). GET: the deck and the day's
likes left; POST {"profile": id, "action": "like" | "pass"}. Members only."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.common.api.base import SiteApiView
from apps.common.api.permissions import MemberRequired
from apps.common.api.schema import MEMBER_ONLY
from apps.likes.swipe import swipe_like, swipe_pass, swipe_payload, swipe_status, swipe_verified_param
from apps.profiles.api.answers import ProfileCardOutput

_LIKES_LEFT = {
    "likes_left": serializers.IntegerField(),
    # When none are left: when the next day's likes come (ISO, UTC).
    "next_likes_at": serializers.CharField(allow_null=True),
}
SwipeDeckOutput = inline_serializer("SwipeDeckOutput", {"deck": ProfileCardOutput(many=True), **_LIKES_LEFT})
SwipeOutput = inline_serializer("SwipeOutput", {"match": serializers.BooleanField(), **_LIKES_LEFT})


class SwipeApi(SiteApiView):
    permission_classes = [MemberRequired]

    class SwipeInput(serializers.Serializer):
        profile = serializers.IntegerField(min_value=1)
        action = serializers.ChoiceField(choices=["like", "pass"])

    @extend_schema(responses={200: SwipeDeckOutput}, auth=MEMBER_ONLY, operation_id="swipe_deck")
    def get(self, request: Request) -> Response:
        verified = swipe_verified_param(request.query_params.get("verified"))
        return Response(swipe_payload(site=request._request.site, user=request.user, verified=verified))

    @extend_schema(request=SwipeInput, responses={200: SwipeOutput}, auth=MEMBER_ONLY, operation_id="swipe_create")
    def post(self, request: Request) -> Response:
        serializer = self.SwipeInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        profile_id = serializer.validated_data["profile"]
        if serializer.validated_data["action"] == "like":
            _like, match, status = swipe_like(user=request.user, profile_id=profile_id)
            return Response({"match": match, **status})
        swipe_pass(user=request.user, profile_id=profile_id)
        return Response({"match": False, **swipe_status(request.user)})
