"""Base class of every API view."""

from django.middleware.csrf import CsrfViewMiddleware
from rest_framework.exceptions import PermissionDenied
from rest_framework.views import APIView


class _CsrfCheck(CsrfViewMiddleware):
    def _reject(self, request, reason):
        return reason


class SiteApiView(APIView):
    """DRF checks CSRF only for authenticated sessions; login and signup are made
    by visitors, so every unsafe method is checked here, logged in or not."""

    def initial(self, request, *args, **kwargs):
        if request.method not in ("GET", "HEAD", "OPTIONS", "TRACE"):
            django_request = request._request
            check = _CsrfCheck(lambda req: None)
            check.process_request(django_request)
            reason = check.process_view(django_request, None, (), {})
            if reason:
                raise PermissionDenied(f"CSRF Failed: {reason}")
        super().initial(request, *args, **kwargs)
