"""/api/block.php: block (POST) and unblock (DELETE) a profile, body {"profile": id}."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.common.api.base import SiteApiView
from apps.common.api.permissions import MemberRequired
from apps.common.api.schema import MEMBER_ONLY
from apps.profiles.services.blocks import block_create, block_delete

BlockOutput = inline_serializer(
    "BlockOutput", {"profile": serializers.IntegerField(), "blocked": serializers.BooleanField()}
)


class BlockApi(SiteApiView):
    permission_classes = [MemberRequired]

    class BlockInput(serializers.Serializer):
        profile = serializers.IntegerField(min_value=1)

    def _profile_id(self, request: Request) -> int:
        serializer = self.BlockInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data["profile"]

    @extend_schema(request=BlockInput, responses={200: BlockOutput}, auth=MEMBER_ONLY, operation_id="block_create")
    def post(self, request: Request) -> Response:
        profile_id = self._profile_id(request)
        block_create(user=request.user, profile_id=profile_id)
        return Response({"profile": profile_id, "blocked": True})

    @extend_schema(request=BlockInput, responses={200: BlockOutput}, auth=MEMBER_ONLY, operation_id="block_delete")
    def delete(self, request: Request) -> Response:
        profile_id = self._profile_id(request)
        block_delete(user=request.user, profile_id=profile_id)
        return Response({"profile": profile_id, "blocked": False})
