"""The bench servers' ASGI application (bench.settings): the site's application, plus
/bench/plain.json served by the site's own handler with no middleware at all.

That handler is the baseline of the request-cycle benchmark: `SiteASGIHandler` (the one
thread hop per request, its kept threads, URL resolving, the response) with an empty
middleware list, around the same one-row query as /bench/pk.json, which goes through the
site's full stack (the page cache's wrapper and every middleware). Both sides share the
handler's own cost, so the ratio is what the stack costs a request, not the thread saving
of the site's handler against Django's stock one."""

import os

from django.core.asgi import get_asgi_application
from django.core.handlers.exception import convert_exception_to_response

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
get_asgi_application()  # django.setup()

from apps.common.asgi import SiteASGIHandler  # noqa: E402
from config.asgi import application as site_application  # noqa: E402

PLAIN_PATH = "/bench/plain.json"


class PlainHandler(SiteASGIHandler):
    """The site's ASGI handler with an empty middleware list (its chain runs in the
    request's thread, as the site's does)."""

    def load_middleware(self, is_async=False):
        self._view_middleware = []
        self._template_response_middleware = []
        self._exception_middleware = []
        self._middleware_chain = convert_exception_to_response(self._get_response)


plain_application = PlainHandler()


async def application(scope, receive, send):
    if scope["type"] == "http" and scope["path"] == PLAIN_PATH:
        return await plain_application(scope, receive, send)
    return await site_application(scope, receive, send)
