"""When a service the request needs is away (Redis, the broker, PostgreSQL's connection),
the answer is 503 with Retry-After, in the API's JSON error shape or as the site's error
page, never a 500. Whatever the request was writing inside a transaction is rolled back
with the exception, so nothing is half-applied; the client or the provider tries again.

What counts as away is `apps.common.exceptions.UNAVAILABLE` (DRF's views answer it in
`api_exception_handler`); the answer is `apps.common.views.unavailable_response`, also
for what a middleware raises before this one sees it (`server_error`)."""

from apps.common.exceptions import is_unavailable
from apps.common.views import unavailable_response


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
