"""One error type for services, and the API's JSON error shape:
{"error": {"code": "...", "message": "translated text"}} (spec §8); with it, what counts
as a service that is away (apps.common.unavailable says what is answered then).

The bottom of the request's error handling: the error pages (apps.common.views) and the
503 middleware (apps.common.unavailable) import this module, never the other way round."""

import psycopg
import redis
from django.core.exceptions import PermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404
from django.utils.translation import gettext as _
from kombu.exceptions import OperationalError as BrokerError
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


# A service the request needs is away (Redis, the broker, PostgreSQL's connection): the
# answer is 503 with Retry-After, never a 500.
UNAVAILABLE = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    BrokerError,
    OperationalError,
    InterfaceError,
    # Raised by psycopg outside Django's error wrapping, e.g. the pool's PoolTimeout.
    psycopg.OperationalError,
)
RETRY_AFTER_SECONDS = 5


def is_unavailable(exc: BaseException) -> bool:
    return isinstance(exc, UNAVAILABLE)


def unavailable_message() -> str:
    return _("The service is busy right now. Please try again in a moment.")


def unavailable_body() -> dict:
    """The API's 503 answer (DRF views here, the others in apps.common.views)."""
    return error_body("unavailable", unavailable_message())


def api_exception_handler(exc, context):
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
        # A visitor calling a member-only view (apps.common.api.permissions.MemberRequired).
        message = getattr(context.get("view"), "login_message", None) or _("Please log in to continue.")
        return Response(error_body("authentication_required", message), status=status.HTTP_403_FORBIDDEN)
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, drf_exceptions.ValidationError):
        response.data = error_body("invalid", _("An error has occurred."), fields=exc.detail)
    elif isinstance(exc, drf_exceptions.APIException):
        code = exc.get_codes() if isinstance(exc.get_codes(), str) else "error"
        response.data = error_body(code, str(exc.detail))
    return response
