from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from apps.common.presence import page_hidden_mark


@csrf_exempt  # sendBeacon cannot send the CSRF header; the call only records "away"
@require_POST
def page_hidden(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        page_hidden_mark(user_id=request.user.pk)
    return HttpResponse(status=204)
