"""When a service the request needs is away (Redis, the broker, PostgreSQL's connection),
the answer is 503 with Retry-After, in the API's JSON error shape or as the site's error
page, never a 500. Whatever the request was writing inside a transaction is rolled back
with the exception, so nothing is half-applied; the client or the provider tries again."""

import logging

import psycopg
import redis
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from kombu.exceptions import OperationalError as BrokerError

from apps.common.exceptions import error_body

logger = logging.getLogger(__name__)

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
    """The API's 503 answer (also apps.common.exceptions for DRF views)."""
    return error_body("unavailable", unavailable_message())


def unavailable_response(request: HttpRequest, exc: BaseException) -> HttpResponse:
    logger.warning("503 for %s %s: %s: %s", request.method, request.path, type(exc).__name__, exc)
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse(unavailable_body(), status=503)
    else:
        from apps.common.views import error_page

        response = error_page(request, 503, unavailable_message())
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class ServiceUnavailableMiddleware:
    """Turns a view's "service away" exception into 503 (see the module's docstring)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if is_unavailable(exception):
            return unavailable_response(request, exception)
        return None
