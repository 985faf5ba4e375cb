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
  of a message that was stored and paid)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.db import connection

# Idle request threads kept for the next requests; more than this many at once are
# started for the burst and stopped after it.
IDLE_THREADS_KEPT = 64


class SiteASGIHandler(ASGIHandler):
    def __init__(self):
        super().__init__()
        self._idle: list[ThreadPoolExecutor] = []

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
        executor = self._idle.pop() if self._idle else ThreadPoolExecutor(1, thread_name_prefix="request")
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            if len(self._idle) < IDLE_THREADS_KEPT:
                self._idle.append(executor)
            else:
                executor.shutdown(wait=False)


def _thread_clean() -> None:
    """What a request leaves on its thread beyond its own context: the thread's database
    connection stays in the site's schema, and the next request on this thread would start
    there (request_started's receivers run before the site middleware sets the schema
    again). The language and the member live in the request's context (asgiref's Local),
    which ends with it."""
    connection.set_schema_to_public()
