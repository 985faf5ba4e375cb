"""Base class of every API view."""

from django.http.multipartparser import MultiPartParserError
from django.middleware.csrf import CsrfViewMiddleware
from rest_framework.exceptions import PermissionDenied
from rest_framework.views import APIView

from apps.common.api.parsers import unreadable


class _CsrfCheck(CsrfViewMiddleware):
    def _reject(self, request, reason):
        return reason


class SiteApiView(APIView):
    """DRF checks CSRF only for authenticated sessions; login and signup are made
    by visitors, so every unsafe method is checked here, logged in or not.

    The answer's renderer is chosen first: an error raised by the check (a multipart
    body with no boundary, read for the form's token) is then answered in the JSON
    error shape instead of failing for want of a renderer."""

    def initial(self, request, *args, **kwargs):
        if request.method not in ("GET", "HEAD", "OPTIONS", "TRACE"):
            self.format_kwarg = self.get_format_suffix(**kwargs)
            request.accepted_renderer, request.accepted_media_type = self.perform_content_negotiation(request)
            django_request = request._request
            check = _CsrfCheck(lambda req: None)
            check.process_request(django_request)
            try:
                reason = check.process_view(django_request, None, (), {})
            except MultiPartParserError as error:
                raise unreadable() from error
            if reason:
                raise PermissionDenied(f"CSRF Failed: {reason}")
        super().initial(request, *args, **kwargs)
