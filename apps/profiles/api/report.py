"""/api/report.php: a member reports a message they received, or a conversation, from the
chat (POST {"message": id} or {"conversation": id}, with "reason", optional "text" and
"block"). The complaint enters support's complaints queue with the message and the few
around it (apps.profiles.services.complaints.message_report); rate-limited like the
complaints form."""

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.common.api.base import SiteApiView
from apps.common.api.fields import StrictBooleanField, StrictCharField
from apps.common.api.permissions import MemberRequired
from apps.common.api.schema import MEMBER_ONLY
from apps.profiles.models import MEMBER_COMPLAINT_REASONS
from apps.profiles.services.complaints import COMPLAINT_MAX_LENGTH, message_report

ReportOutput = inline_serializer(
    "ReportOutput",
    {
        "complaint": serializers.IntegerField(),
        "blocked": serializers.BooleanField(),
        "message": serializers.CharField(),
    },
)


_ID = {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}
# A message or a conversation (its newest message from the other member) must be named.
REPORT_REQUEST = {
    "application/json": {
        "type": "object",
        "properties": {
            "message": _ID,
            "conversation": _ID,
            "reason": {"type": "string", "enum": [value for value, _label in MEMBER_COMPLAINT_REASONS]},
            "text": {"type": "string", "maxLength": COMPLAINT_MAX_LENGTH},
            "block": {"type": "boolean"},
        },
        "required": ["reason"],
        "anyOf": [{"required": ["message"]}, {"required": ["conversation"]}],
    }
}


class ReportApi(SiteApiView):
    permission_classes = [MemberRequired]

    class ReportInput(serializers.Serializer):
        message = serializers.IntegerField(min_value=1, max_value=2**63 - 1, required=False)
        conversation = serializers.IntegerField(min_value=1, max_value=2**63 - 1, required=False)
        reason = serializers.ChoiceField(choices=MEMBER_COMPLAINT_REASONS)
        text = StrictCharField(required=False, allow_blank=True, max_length=COMPLAINT_MAX_LENGTH)
        block = StrictBooleanField(required=False, default=False)

        def validate(self, attrs):
            if not attrs.get("message") and not attrs.get("conversation"):
                raise serializers.ValidationError({"message": [_("This field is required.")]})
            return attrs

    @extend_schema(
        request=REPORT_REQUEST, responses={201: ReportOutput}, auth=MEMBER_ONLY, operation_id="report_create"
    )
    def post(self, request: Request) -> Response:
        serializer = self.ReportInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        complaint = message_report(
            request=request._request,
            reporter=request.user,
            reason=data["reason"],
            text=data.get("text", ""),
            message_id=data.get("message"),
            conversation_id=data.get("conversation"),
            block=data["block"],
        )
        return Response(
            {
                "complaint": complaint.pk,
                "blocked": data["block"] and complaint.profile_id is not None,
                "message": _("Thank you. We have received your report and will look into it."),
            },
            status=201,
        )
