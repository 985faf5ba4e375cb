"""The bench servers' ASGI application (bench.settings): the site's application, plus
/bench/plain.json served by a Django handler with no middleware at all.

That handler is the baseline of the request-cycle benchmark: Django's own ASGI request
cycle (request signals, URL resolving, a sync view in a worker thread, the response)
around the same one-row query as /bench/pk.json, which goes through the site's full
middleware stack. The difference between the two is what the stack costs a request."""

import os

from django.core.asgi import get_asgi_application
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.exception import convert_exception_to_response

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
get_asgi_application()  # django.setup()

from config.asgi import application as site_application  # noqa: E402

PLAIN_PATH = "/bench/plain.json"


class PlainHandler(ASGIHandler):
    """Django's ASGI handler with an empty middleware list."""

    def load_middleware(self, is_async=False):
        self._view_middleware = []
        self._template_response_middleware = []
        self._exception_middleware = []
        get_response = self._get_response_async if is_async else self._get_response
        self._middleware_chain = convert_exception_to_response(get_response)


plain_application = PlainHandler()


async def application(scope, receive, send):
    if scope["type"] == "http" and scope["path"] == PLAIN_PATH:
        return await plain_application(scope, receive, send)
    return await site_application(scope, receive, send)
