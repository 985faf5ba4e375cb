"""The account calls of spec §7: /api/user.php, /api/logout.php, and signup."""

from django.utils import translation
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from apps.accounts.selectors import user_payload
from apps.accounts.services.auth import member_login, member_logout
from apps.accounts.services.push import push_subscription_save
from apps.accounts.services.settings import member_language_set
from apps.accounts.services.signup import member_resend_confirmation, member_signup
from apps.common.api.base import SiteApiView
from apps.common.api.permissions import MemberRequired
from apps.common.api.schema import MEMBER_ONLY
from apps.common.exceptions import ApplicationError
from apps.common.i18n import language_remember
from apps.profiles.api.answers import OwnMainImageOutput

_Profile = inline_serializer(
    "UserProfile",
    {
        "id": serializers.IntegerField(),
        "name": serializers.CharField(),
        "status": serializers.CharField(),
        "gender": serializers.CharField(allow_null=True),
        "sexuality": serializers.CharField(allow_null=True),
        "country": serializers.CharField(allow_null=True),
        "region": serializers.CharField(allow_null=True),
        "city": serializers.CharField(allow_null=True),
        "main_image": OwnMainImageOutput(allow_null=True),
    },
    allow_null=True,
)
_User = inline_serializer(
    "User",
    {
        "id": serializers.IntegerField(),
        "name": serializers.CharField(),
        "email": serializers.CharField(),
        "status": serializers.CharField(),
        "credits": serializers.IntegerField(),
        "paid_user": serializers.BooleanField(),
        "language": serializers.CharField(),
        "country": serializers.CharField(allow_null=True),
        "notifications_disabled": serializers.ListField(child=serializers.CharField()),
        "signup_date": serializers.DateTimeField(),
        "invisible": serializers.BooleanField(),
        "profile": _Profile,
    },
)
UserOutput = inline_serializer("UserOutput", {"user": _User})


class UserApi(SiteApiView):
    """GET: the current member. POST: log in (or, with ?push=1, store a push
    subscription). PUT: change the interface language."""

    class LoginInput(serializers.Serializer):
        email = serializers.CharField(max_length=254, allow_blank=True)
        password = serializers.CharField(max_length=200, allow_blank=True, trim_whitespace=False)

    class LanguageInput(serializers.Serializer):
        # The site's own languages are its enum (apps.profiles.api.schema.site_choices).
        language = serializers.CharField(max_length=5)

    class PushInput(serializers.Serializer):
        subscription = serializers.DictField()

    def get_permissions(self):
        # Logging in is for visitors; reading the member, storing a push subscription and
        # changing the language are for members.
        if self.request.method == "POST" and self.request.query_params.get("push") != "1":
            return [AllowAny()]
        return [MemberRequired()]

    @extend_schema(responses={200: UserOutput}, auth=MEMBER_ONLY, operation_id="user_retrieve")
    def get(self, request: Request) -> Response:
        return Response({"user": user_payload(request.user)})

    @extend_schema(request=LoginInput, responses={200: UserOutput}, operation_id="user_login")
    def post(self, request: Request) -> Response:
        if request.query_params.get("push") == "1":
            data = self._valid(self.PushInput, request.data)
            push_subscription_save(user=request.user, subscription=data["subscription"])
            return Response({"user": user_payload(request.user)})
        data = self._valid(self.LoginInput, request.data)
        user = member_login(request=request._request, email=data["email"], password=data["password"])
        return Response({"user": user_payload(user)})

    @extend_schema(request=LanguageInput, responses={200: UserOutput}, auth=MEMBER_ONLY, operation_id="user_language")
    def put(self, request: Request) -> Response:
        data = self._valid(self.LanguageInput, request.data)
        site = request._request.site
        if not member_language_set(user=request.user, language=data["language"], languages=site.languages):
            raise ApplicationError("invalid_language", _("This language is not available on this site."))
        language_remember(request._request, data["language"])
        translation.activate(data["language"])
        return Response({"user": user_payload(request.user)})

    @staticmethod
    def _valid(serializer_class, data) -> dict:
        serializer = serializer_class(data=data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data


class LogoutApi(SiteApiView):
    @extend_schema(
        responses={200: inline_serializer("LogoutOutput", {"user": serializers.DictField(allow_null=True)})},
        operation_id="logout",
    )
    def get(self, request: Request) -> Response:
        member_logout(request=request._request)
        return Response({"user": None})


class SignupApi(SiteApiView):
    """Step 0 of the signup island: create the account (spec §4, §5)."""

    class SignupInput(serializers.Serializer):
        email = serializers.CharField(max_length=254, allow_blank=True)
        name = serializers.CharField(max_length=150, allow_blank=True)
        date_of_birth = serializers.CharField(max_length=10, allow_blank=True, required=False, default="")
        password = serializers.CharField(max_length=200, allow_blank=True, trim_whitespace=False)
        signup_message = serializers.CharField(max_length=5000, allow_blank=True, required=False, default="")
        profile_id = serializers.IntegerField(required=False, allow_null=True, default=None)

    @extend_schema(request=SignupInput, responses={201: UserOutput}, operation_id="signup")
    def post(self, request: Request) -> Response:
        serializer = self.SignupInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = member_signup(request=request._request, **serializer.validated_data)
        return Response({"user": user_payload(user)}, status=201)


class ResendConfirmationApi(SiteApiView):
    permission_classes = [MemberRequired]

    @extend_schema(
        request=None,
        responses={200: inline_serializer("ResendOutput", {"sent": serializers.BooleanField()})},
        operation_id="signup_resend_confirmation",
    )
    def post(self, request: Request) -> Response:
        member_resend_confirmation(request=request._request, user=request.user)
        return Response({"sent": True})
