"""The cache backend (apps.common.cache): Django's Redis cache with one connection pool and
one client per server for the whole process."""

import asyncio
import threading

from asgiref.sync import sync_to_async
from django.core.cache import caches

from apps.common.cache import SiteRedisCache
from tests.live import in_thread


def test_the_configured_cache_is_the_site_backend():
    assert isinstance(caches["default"], SiteRedisCache)


def test_one_client_serves_every_call():
    cache = caches["default"]
    client = cache._cache.get_client(write=True)
    cache.set("cache-test:a", 1, 30)
    assert cache.get("cache-test:a") == 1
    assert cache._cache.get_client(write=True) is client
    assert cache._cache.get_client() is client  # one server: reads use the same pool


def test_threads_and_request_contexts_share_the_pool_and_its_connections():
    """Django makes a cache object per thread and per ASGI request context; they all use
    one pool, so a request does not open a connection of its own."""
    cache = caches["default"]
    cache.set("cache-test:b", "value", 30)
    client = cache._cache.get_client()
    pool = client.connection_pool

    def connections() -> int:
        return len(pool._available_connections) + len(pool._in_use_connections)

    before = connections()  # other tests' threads may have used the pool already
    seen = {}

    def read(name):
        seen[name] = (caches["default"], caches["default"]._cache.get_client(), caches["default"].get("cache-test:b"))

    thread = threading.Thread(target=read, args=("thread",))
    thread.start()
    thread.join()

    async def requests():
        for number in range(5):  # each like a request of its own (a context of its own)
            await asyncio.create_task(sync_to_async(read, thread_sensitive=False)(f"request{number}"))

    in_thread(asyncio.run, requests())  # the browser tests leave a loop running in this thread
    for name, (_cache, other_client, value) in seen.items():
        assert value == "value", name
        assert other_client is client, name
    assert seen["thread"][0] is not cache  # Django's own per-thread object, sharing the pool
    # One read at a time: no request needed a connection of its own.
    assert connections() <= max(before, 1)
