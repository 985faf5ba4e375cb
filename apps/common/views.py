"""Health check and error pages (spec §8)."""

import contextlib
import logging
import sys
import threading

import redis
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.html import escape
from django.utils.translation import gettext as _
from django_tenants.utils import get_public_schema_name

from apps.common.exceptions import (
    RETRY_AFTER_SECONDS,
    error_body,
    is_unavailable,
    unavailable_body,
    unavailable_message,
)

logger = logging.getLogger(__name__)


def healthz(request: HttpRequest) -> JsonResponse:
    checks = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        checks["postgresql"] = "ok"
    except Exception as exc:  # noqa: BLE001 - any failure is the answer
        checks["postgresql"] = f"error: {type(exc).__name__}"
    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
        client.ping()
        checks["redis"] = "ok"
    except Exception as exc:  # noqa: BLE001
        checks["redis"] = f"error: {type(exc).__name__}"
    healthy = all(value == "ok" for value in checks.values())
    return JsonResponse({"status": "ok" if healthy else "error", **checks}, status=200 if healthy else 503)


@contextlib.contextmanager
def _in_request_site(request: HttpRequest):
    """Under ASGI, Django turns an exception into its error page in a thread of its own
    (`response_for_exception` runs with thread_sensitive=False), whose database connection
    is not the request's: it sits on whatever schema it last used, so the member's session
    was not found there and the session middleware deleted the cookie. Switch that
    thread's connection to the request's site and give it back afterwards."""
    tenant = getattr(request, "tenant", None)
    if tenant is None or getattr(request, "site_thread", None) == threading.get_ident():
        yield
        return
    connection.set_tenant(tenant)
    try:
        yield
    finally:
        connection.close()  # back to the pool: this thread is not the request's


def error_page(request: HttpRequest, status: int, message: str | None) -> HttpResponse:
    """The site's error page (the JSON error shape under /api/), in the request's site."""
    return _error(request, status, message)


def unavailable_response(request: HttpRequest, exc: BaseException) -> HttpResponse:
    """503 with Retry-After for a service that is away (apps.common.unavailable)."""
    logger.warning("503 for %s %s: %s: %s", request.method, request.path, type(exc).__name__, exc)
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse(unavailable_body(), status=503)
    else:
        response = error_page(request, 503, unavailable_message())
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def _error(request: HttpRequest, status: int, message: str | None) -> HttpResponse:
    with _in_request_site(request):
        return _render_error(request, status, message)


_API_CODES = {400: "invalid", 403: "permission_denied", 404: "not_found", 500: "server_error", 503: "unavailable"}


def _render_error(request: HttpRequest, status: int, message: str | None) -> HttpResponse:
    if request.path.startswith("/api/"):  # the API's JSON error shape (spec §8), also here
        return JsonResponse(error_body(_API_CODES[status], message or _("Error")), status=status)
    if not hasattr(request, "user"):
        # Refused before the authentication middleware (bad input): the page's layout
        # shows it as to a visitor.
        request.user = AnonymousUser()
    context = {"status": status, "message": message or _("Error")}
    site = getattr(request, "site", None)
    try:
        if site is not None and site.schema_name == get_public_schema_name():  # the operators' host: no site layout
            return render(request, "errors/error_no_site.html", {**context, "home": "/admin/"}, status=status)
        return render(request, "errors/error.html", context, status=status)
    except Exception:  # the error page itself failed: answer with plain markup
        logger.exception("Rendering the error page failed")
        body = (
            "<!doctype html><html><head><meta charset='utf-8'><title>{msg}</title></head>"
            "<body><h1>{msg}</h1><p><a href='/'>{home}</a></p></body></html>"
        ).format(
            msg=escape(_("An error occurred while showing the error page")),
            home=escape(_("Go back to home")),
        )
        return HttpResponse(body, status=status)


def page_not_found(request: HttpRequest, exception=None) -> HttpResponse:
    return _error(request, 404, _("This page could not be found"))


def server_error(request: HttpRequest) -> HttpResponse:
    """The 500 page. A service that is away, raised where ServiceUnavailableMiddleware
    does not see it (in a middleware: the site lookup waiting for a database connection
    from a full pool, a session read), is a 503 here too."""
    exc = sys.exc_info()[1]
    if exc is not None and is_unavailable(exc):
        return unavailable_response(request, exc)
    return _error(request, 500, None)


def permission_denied(request: HttpRequest, exception=None) -> HttpResponse:
    return _error(request, 403, _("You do not have access to this page."))


def bad_request(request: HttpRequest, exception=None) -> HttpResponse:
    return _error(request, 400, _("An error has occurred."))
