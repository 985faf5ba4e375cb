"""The operators' host's answer to the TLS proxy (apps.tenants.tls)."""

from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _

from apps.common.exceptions import ApplicationError, error_body
from apps.tenants import tls


def tls_ask(request: HttpRequest) -> JsonResponse:
    """GET /tls/ask?domain=<name>: 200 when the proxy may get a certificate for the name,
    404 when not, 400 for something that is no host name. Caddy only reads the status."""
    if request.method not in ("GET", "HEAD"):
        response = JsonResponse(error_body("method_not_allowed", _("Use GET.")), status=405)
        response["Allow"] = "GET, HEAD"
        return _no_store(response)
    try:
        name = tls.asked_hostname(request.GET.get("domain"))
    except ApplicationError as error:
        return _no_store(JsonResponse(error_body(error.code, error.message), status=error.status_code))
    if not tls.certificate_allowed(name):
        body = error_body("unknown_domain", _("No active site has this domain."))
        response = JsonResponse(body, status=404)
        # An expected answer, not a broken link: names made up by strangers are not
        # worth a log line each.
        response._has_been_logged = True
        return _no_store(response)
    tls.domain_mark(name, "certificate_requested")
    return _no_store(JsonResponse({"domain": name}))


def _no_store(response: JsonResponse) -> JsonResponse:
    # A site switched off or a domain removed must be refused at the next ask.
    response["Cache-Control"] = "no-store"
    return response
