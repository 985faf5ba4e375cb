"""The cache backend: Django's Redis cache, with one connection pool and one redis-py
client per server for the whole process.

Django keeps a cache object per thread and, under ASGI, per request context, and each
made its own connection pool: every request that used the cache under uvicorn opened a
new TCP connection to Redis, with redis-py's handshake (HELLO, CLIENT SETINFO, which
reads the package's version from its metadata files). And Django's RedisCacheClient
makes a new `redis.Redis` for every call, for which redis-py builds a table of about 170
response callbacks. Pools and clients are safe to share between threads (a command
takes a connection from the pool), and redis-py makes a pool new after a fork, so one of
each per server and options is kept for the process."""

from __future__ import annotations

import threading

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

_shared: dict[tuple, tuple[object, object]] = {}
_lock = threading.Lock()


class SharedPoolRedisCacheClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The shared pools' keys, one per server, made once here rather than on every call.
        options = tuple(sorted((name, repr(value)) for name, value in self._pool_options.items()))
        self._shared_keys = [(server, self._pool_class, options) for server in self._servers]

    def _pool_and_client(self, write: bool) -> tuple[object, object]:
        key = self._shared_keys[self._get_connection_pool_index(write)]
        found = _shared.get(key)
        if found is None:
            with _lock:
                found = _shared.get(key)
                if found is None:
                    pool = self._pool_class.from_url(key[0], **self._pool_options)
                    found = _shared[key] = (pool, self._client(connection_pool=pool))
        return found

    def _get_connection_pool(self, write):
        return self._pool_and_client(write)[0]

    def get_client(self, key=None, *, write=False):
        return self._pool_and_client(write)[1]


class SiteRedisCache(RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = SharedPoolRedisCacheClient
