"""The site's ASGI request handler.

Django's ASGIHandler costs a sync site like this one more than it needs to:
- it runs a sync middleware stack in three thread hops per request: into a worker
  thread for the middleware, back to the event loop for the inner async handler, and
  into the worker thread again for the view;
- every request gets a thread of its own (a new single-thread executor per request
  context), started and joined per request: about 0.25 ms of CPU on the development
  machine against 0.03 ms for a call on a running thread.

Every middleware and view of the site is sync, so this handler loads the stack in sync
mode and runs the whole of it, middleware and view, in one call to the request's thread;
and that thread comes from a pool of single-thread executors that live on between
requests. A request still has one thread to itself from start to end (Django's
thread-sensitive rule: the database connection opened in it is closed in it by
`request_finished`), just not a new one. Request reading, the request signals, streaming
and disconnect handling stay Django's. The request-cycle benchmark (bench/bench_search.py,
docs/bench.md) measures the stack against a Django handler with no middleware.

Two things Django's handler leaves to chance are made sure here (docs/security.md,
"Request cycle"; tests/test_request_cycle.py):
- a thread goes back to the pool as it came: in the public schema (the database
  connection is the thread's own and outlives the request), whatever the request did;
- a response is always closed, also when the client goes away while the view runs:
  Django then cancels the request and drops the response unclosed, and with it the work
  the view left for after the response (apps.common.realtime.run_after_sent: the badge counts
  of a message that was stored and paid).

Load shedding: at most REQUEST_CONCURRENCY requests of a process are in Django at once
(each holds a thread and, for its queries, one of the DATABASE_POOL_MAX_SIZE
connections); the next ones wait their turn for up to REQUEST_QUEUE_SECONDS and are then
answered 503 with Retry-After from the event loop, without a thread or a query: under a
burst (1,000 requests at once on one process, bench "burst") a visitor waits a few
seconds at most and is told to come back, instead of everyone waiting 40 s for the
database pool and a quarter of them getting its timeout anyway. Pages the page cache
answers (apps.common.page_cache, in front of this handler) never wait here."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.db import connection
from django.utils import translation
from django.utils.html import escape

from apps.common.exceptions import RETRY_AFTER_SECONDS, unavailable_body, unavailable_message

# Idle request threads kept for the next requests; more than this many at once are
# started for the burst and stopped after it.
IDLE_THREADS_KEPT = 64


class SiteASGIHandler(ASGIHandler):
    def __init__(self):
        super().__init__()
        self._idle: list[ThreadPoolExecutor] = []
        self._slots: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}

    def _slots_of_loop(self) -> asyncio.Semaphore:
        """The request slots of the running event loop (one per server process; a test's
        finished loops are dropped)."""
        loop = asyncio.get_running_loop()
        slots = self._slots.get(loop)
        if slots is None:
            self._slots.clear()
            slots = self._slots[loop] = asyncio.Semaphore(settings.REQUEST_CONCURRENCY)
        return slots

    async def _admitted(self, slots: asyncio.Semaphore) -> bool:
        """Takes a slot, waiting up to REQUEST_QUEUE_SECONDS; False when none came free."""
        if not slots.locked():
            await slots.acquire()
            return True
        try:
            await asyncio.wait_for(slots.acquire(), settings.REQUEST_QUEUE_SECONDS)
        except TimeoutError:
            return False
        return True

    def load_middleware(self, is_async=False):
        super().load_middleware(is_async=False)

    async def get_response_async(self, request):
        respond = asyncio.ensure_future(sync_to_async(self._respond, thread_sensitive=True)(request))
        try:
            # Shielded: a cancel (the client went away) must not lose the view's response.
            return await asyncio.shield(respond)
        except asyncio.CancelledError:
            # The view runs on regardless (a thread cannot be stopped) and has perhaps
            # committed; its response is not sent, but closed, in the request's thread, so
            # that its after-response work runs and the thread is left clean. Then the
            # cancel goes on as Django expects it.
            response = await respond
            await sync_to_async(response.close, thread_sensitive=True)()
            raise

    def _respond(self, request):
        response = self.get_response(request)
        # The last closer, after the view's own (the after-response work sets its site's
        # schema itself and puts back the one before).
        response._resource_closers.append(_thread_clean)
        return response

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        slots = self._slots_of_loop()
        if not await self._admitted(slots):
            await _shed(scope, send)
            return
        try:
            executor = self._idle.pop() if self._idle else ThreadPoolExecutor(1, thread_name_prefix="request")
            try:
                async with ThreadSensitiveContext(executor=executor):
                    await self.handle(scope, receive, send)
            finally:
                if len(self._idle) < IDLE_THREADS_KEPT:
                    self._idle.append(executor)
                else:
                    executor.shutdown(wait=False)
        finally:
            slots.release()


def _language(scope: dict) -> str:
    """The visitor's browser language among the site's interface languages (no site or
    cookie is read for a shed request), else the default."""
    for name, value in scope.get("headers", ()):
        if name == b"accept-language":
            for code, _quality in translation.trans_real.parse_accept_lang_header(value.decode("latin1")):
                try:
                    return translation.get_supported_language_variant(code)
                except LookupError:
                    continue
    return settings.LANGUAGE_CODE


async def _shed(scope: dict, send) -> None:
    """503 with Retry-After, in the API's JSON error shape under /api/, else a plain page;
    the message in the visitor's browser language. Nothing of the request is read but
    its path and that header."""
    with translation.override(_language(scope)):
        if scope["path"].startswith("/api/"):
            body = json.dumps(unavailable_body()).encode()
            content_type = b"application/json"
        else:
            message = escape(unavailable_message())
            language = escape(translation.get_language())
            body = (
                f'<!doctype html><html lang="{language}"><head><meta charset="utf-8">'
                f"<title>{message}</title></head><body><h1>{message}</h1></body></html>"
            ).encode()
            content_type = b"text/html; charset=utf-8"
    headers = [
        (b"content-type", content_type),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(RETRY_AFTER_SECONDS).encode()),
        (b"cache-control", b"no-store"),
    ]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _thread_clean() -> None:
    """What a request leaves on its thread beyond its own context: the thread's database
    connection stays in the site's schema, and the next request on this thread would start
    there (request_started's receivers run before the site middleware sets the schema
    again). The language and the member live in the request's context (asgiref's Local),
    which ends with it."""
    connection.set_schema_to_public()
