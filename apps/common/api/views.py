from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST


@csrf_exempt  # sendBeacon cannot send the CSRF header; the call changes nothing
@require_POST
def page_hidden(request: HttpRequest) -> HttpResponse:
    """Spec §7's page-hidden beacon, answered and not kept: notices go by read state, not
    presence (docs/notifications.md), so a mark that nothing reads is not stored."""
    return HttpResponse(status=204)
