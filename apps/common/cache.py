"""The cache backend: Django's Redis cache, with one connection pool and one redis-py
client per server for the whole process.

Django keeps a cache object per thread and, under ASGI, per request context, and each
made its own connection pool: every request that used the cache under uvicorn opened a
new TCP connection to Redis, with redis-py's handshake (HELLO, CLIENT SETINFO, which
reads the package's version from its metadata files). And Django's RedisCacheClient
makes a new `redis.Redis` for every call, for which redis-py builds a table of about 170
response callbacks. Pools and clients are safe to share between threads (a command
takes a connection from the pool), and redis-py makes a pool new after a fork, so one of
each per server and options is kept for the process.

Below it, the evictable cache's reads that fail open (`volatile_get_or_set`)."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)
T = TypeVar("T")

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


# --- The evictable cache ---------------------------------------------------------------
#
# CACHES["volatile"] holds what may vanish at any time and is made again on a miss: the
# visitors' pages (apps.common.page_cache) and the landers' lists. It is a Redis of its own
# (CACHE_URL, maxmemory with allkeys-lru), and the pages that read it are the ones paid
# traffic lands on, so its reads fail open: when it does not answer, the page is rendered
# without it. The first failure is logged, and for RETRY_SECONDS nobody asks it again, so
# a cache that is away or hangs costs neither a log line nor a timeout per request; the
# first answer after that is logged too.

VOLATILE = "volatile"
RETRY_SECONDS = 5.0
# What a Redis that is away, hangs or refuses raises (redis-py wraps most in RedisError;
# a socket can still raise OSError, an asyncio wait TimeoutError).
CACHE_ERRORS = (RedisError, OSError, TimeoutError)


class _Outage:
    __slots__ = ("reported", "until")

    def __init__(self) -> None:
        self.until = 0.0
        self.reported = False


_outage = _Outage()


def volatile_alias() -> str:
    """The evictable cache's alias; a deployment without it keeps everything in default."""
    return VOLATILE if VOLATILE in settings.CACHES else "default"


def volatile_settings() -> dict:
    return settings.CACHES[volatile_alias()]


def volatile_available() -> bool:
    """False for RETRY_SECONDS after a failure: the caller goes on without the cache."""
    return time.monotonic() >= _outage.until


def volatile_failed(exc: BaseException) -> None:
    """A read or write failed: skip the cache for a while, and say so once."""
    _outage.until = time.monotonic() + RETRY_SECONDS
    if not _outage.reported:
        _outage.reported = True
        logger.warning(
            "cache unavailable (%s: %s); pages are rendered without it, retried every %ss",
            type(exc).__name__,
            exc,
            RETRY_SECONDS,
        )


def volatile_answered() -> None:
    if _outage.reported:
        _outage.reported = False
        logger.warning("cache available again")


def volatile_reset() -> None:
    """Forget an outage (tests)."""
    _outage.until = 0.0
    _outage.reported = False


_MISSING = object()


def volatile_get_or_set(key: str, build: Callable[[], T], timeout: float) -> T:
    """`cache.get_or_set` on the evictable cache, failing open: without the cache the
    value is built for this request only."""
    if not volatile_available():
        return build()
    cache = caches[volatile_alias()]
    try:
        value = cache.get(key, _MISSING)
    except CACHE_ERRORS as exc:
        volatile_failed(exc)
        return build()
    if value is not _MISSING:
        volatile_answered()
        return value
    value = build()
    try:
        cache.add(key, value, timeout)
    except CACHE_ERRORS as exc:
        volatile_failed(exc)
    else:
        volatile_answered()
    return value


def volatile_delete_many(keys: list[str]) -> None:
    """Drop entries of the evictable cache; a cache that is away has them expire."""
    try:
        caches[volatile_alias()].delete_many(keys)
    except CACHE_ERRORS as exc:
        volatile_failed(exc)


def volatile_get(key: str, default=None):
    """`cache.get` on the evictable cache, failing open: `default` without the cache."""
    if not volatile_available():
        return default
    try:
        value = caches[volatile_alias()].get(key, default)
    except CACHE_ERRORS as exc:
        volatile_failed(exc)
        return default
    volatile_answered()
    return value


def volatile_get_many(keys: list[str]) -> dict | None:
    """`cache.get_many` on the evictable cache (one round trip), failing open: None
    without the cache."""
    if not volatile_available():
        return None
    try:
        values = caches[volatile_alias()].get_many(keys)
    except CACHE_ERRORS as exc:
        volatile_failed(exc)
        return None
    volatile_answered()
    return values


def volatile_set(key: str, value, timeout: float) -> None:
    """`cache.set` on the evictable cache; a cache that is away keeps nothing."""
    if not volatile_available():
        return
    try:
        caches[volatile_alias()].set(key, value, timeout)
    except CACHE_ERRORS as exc:
        volatile_failed(exc)


def volatile_count(key: str, timeout: int) -> int | None:
    """Count one more under `key` on the evictable cache (the count lives `timeout`
    seconds from its first), failing open: None when the cache is away or hangs, so the
    caller goes on without the count. The key must be bounded by the caller (a hash, a
    fixed prefix); the cache's eviction bounds how many there are."""
    if not volatile_available():
        return None
    cache = caches[volatile_alias()]
    try:
        if cache.add(key, 1, timeout=timeout):
            count = 1
        else:
            try:
                count = cache.incr(key)
            except ValueError:  # expired between the two calls
                cache.add(key, 1, timeout=timeout)
                count = 1
    except CACHE_ERRORS as exc:
        volatile_failed(exc)
        return None
    volatile_answered()
    return count


# --- Commands from the event loop --------------------------------------------------------


# AsyncCommands.of_loop's: by URL and limits, the loop they were made in and the commands.
_of_loops: dict[tuple, tuple[asyncio.AbstractEventLoop, AsyncCommands]] = {}


class LuaScript:
    """A Lua script for `AsyncCommands.script`: its text and the digest Redis names it by."""

    __slots__ = ("sha", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.sha = hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


class AsyncCommands:
    """Redis commands sent from the event loop on connections of its own, without
    redis-py's asyncio client and pool around them: for the few commands a request
    answered on the event loop sends (a page cache lookup, an arrival's count), whose
    client-side cost was more than the command's (the client's retry wrapper and metrics
    hooks, the blocking pool's lock and timeouts, a task per send).

    At most `max_connections` commands are under way at once; the next ones wait their
    turn for a connection up to `socket_timeout`, then fail with redis' ConnectionError
    (one of CACHE_ERRORS). A connection whose command failed or was cancelled is closed,
    never used again. One per event loop: connections belong to the loop that made them."""

    def __init__(self, url: str, *, max_connections: int, socket_timeout: float, socket_connect_timeout: float):
        import redis.asyncio

        # The pool only reads the URL (host, db, password, TLS) into a connection's class
        # and arguments; it never makes a connection here. The connections have no socket
        # timeout of their own: one timeout covers a command's send and reply (redis-py's
        # send would start a task per command for its own).
        pool = redis.asyncio.ConnectionPool.from_url(
            url, socket_timeout=None, socket_connect_timeout=socket_connect_timeout
        )
        self._connection_class, self._connection_kwargs = pool.connection_class, pool.connection_kwargs
        self._idle: list = []
        self._slots = asyncio.Semaphore(max_connections)
        self._wait = socket_timeout

    @classmethod
    def of_loop(
        cls, url: str, *, max_connections: int, socket_timeout: float, socket_connect_timeout: float
    ) -> AsyncCommands:
        """The commands of the running event loop to `url` with these limits, made once per
        loop (a server process has one; a test's finished loop is forgotten when the next
        one asks)."""
        loop = asyncio.get_running_loop()
        key = (url, max_connections, socket_timeout, socket_connect_timeout)
        kept = _of_loops.get(key)
        if kept is None or kept[0] is not loop:
            commands = cls(
                url,
                max_connections=max_connections,
                socket_timeout=socket_timeout,
                socket_connect_timeout=socket_connect_timeout,
            )
            kept = _of_loops[key] = (loop, commands)
        return kept[1]

    async def command(self, *args):
        """The server's reply to one command, as redis-py's parser reads it (bytes, not
        decoded); an error reply raises redis' ResponseError. A connection kept from
        before that turns out closed (the server restarted, or dropped it as idle) is
        replaced and the command sent once more on a new one, as redis-py's client retries."""
        from redis.exceptions import ConnectionError as RedisConnectionError

        slots = self._slots
        if slots.locked():
            try:
                async with asyncio.timeout(self._wait):
                    await slots.acquire()
            except TimeoutError:
                raise RedisConnectionError("no connection to Redis came free in time") from None
        else:
            await slots.acquire()
        try:
            while self._idle:
                try:
                    return await self._sent(self._idle.pop(), args)
                except (RedisConnectionError, ConnectionError):
                    continue  # closed while it was kept: the next one, or a new one
            return await self._sent(self._connection_class(**self._connection_kwargs), args)
        finally:
            slots.release()

    async def script(self, script: LuaScript, keys: list[str], args) -> object:
        """The reply to `script` run on `keys` with `args`: sent by its digest (EVALSHA),
        and whole (EVAL) when the server does not know it yet, as redis-py's registered
        scripts are."""
        from redis.exceptions import NoScriptError

        try:
            return await self.command("EVALSHA", script.sha, len(keys), *keys, *args)
        except NoScriptError:
            return await self.command("EVAL", script.text, len(keys), *keys, *args)

    async def _sent(self, connection, args):
        from redis.exceptions import ResponseError

        try:
            async with asyncio.timeout(self._wait):
                await connection.send_packed_command(connection.pack_command(*args), check_health=False)
                reply = await connection.read_response()
        except ResponseError:
            self._idle.append(connection)  # an error reply: the connection is fine
            raise
        except BaseException:
            await connection.disconnect(nowait=True)
            raise
        self._idle.append(connection)
        return reply
