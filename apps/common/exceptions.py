"""One error type for services, and the API's JSON error shape:
{"error": {"code": "...", "message": "translated text"}} (spec §8)."""

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _
from rest_framework import exceptions as drf_exceptions
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler


class ApplicationError(Exception):
    """Raised by services; `message` is already translated (or lazy)."""

    status_code = status.HTTP_400_BAD_REQUEST

    def __init__(self, code: str, message: str, *, status_code: int | None = None, extra: dict | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra or {}
        if status_code is not None:
            self.status_code = status_code


def error_body(code: str, message: str, **extra) -> dict:
    return {"error": {"code": code, "message": str(message), **extra}}


def api_exception_handler(exc, context):
    from apps.common.unavailable import RETRY_AFTER_SECONDS, is_unavailable, unavailable_body

    if is_unavailable(exc):  # Redis, the broker or the database away: try again (apps.common.unavailable)
        response = Response(unavailable_body(), status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    if isinstance(exc, ApplicationError):
        return Response(error_body(exc.code, exc.message, **exc.extra), status=exc.status_code)
    if isinstance(exc, Http404):
        exc = drf_exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = drf_exceptions.PermissionDenied()
    if isinstance(exc, (drf_exceptions.NotAuthenticated, drf_exceptions.AuthenticationFailed)):
        return Response(
            error_body("authentication_required", _("Please log in to continue.")),
            status=status.HTTP_403_FORBIDDEN,
        )
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, drf_exceptions.ValidationError):
        response.data = error_body("invalid", _("An error has occurred."), fields=exc.detail)
    elif isinstance(exc, drf_exceptions.APIException):
        code = exc.get_codes() if isinstance(exc.get_codes(), str) else "error"
        response.data = error_body(code, str(exc.detail))
    return response
