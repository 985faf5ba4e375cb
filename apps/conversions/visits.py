"""Visits whose tracking redirect the page cache answered (apps.common.page_cache, on the
event loop, without Django's middleware and its `tracking_arrived`): counted in Redis by
one EVALSHA per visit, or per batch of the visits that came in while the one before was
being sent (`visit_count`), and folded into the daily rollups every minute (`visits_fold`,
beat `conversions-visits`, and before a rebuild), so the dashboard's visits are whole
and a cache hit stays a cache hit (no query, no thread).

The counts live in the broker's Redis (REDIS_URL, not evicted), one hash per site and
day, `conversions:<KEY_PREFIX>:visits:<site id>:<day>`, whose fields are the rollup's
source (network, ref, sub1, lander, campaign, each cut to the rollup's column), listed in
`conversions:<KEY_PREFIX>:visits` for the fold. What a visitor's query can make is
bounded: SOURCES fields a day per site, the visits of any further source counted under
the empty one (the total stays right), and the hashes expire after KEEP_SECONDS."""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from datetime import date

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.common.cache import AsyncCommands, LuaScript
from apps.conversions.rollups import COUNTERS, DIMENSIONS, rows_insert, source_of

logger = logging.getLogger(__name__)

# Sources of one site's day kept apart; more go to the empty source.
SOURCES = 2000
# A day's counts are folded within a minute; kept this long if beat is down.
KEEP_SECONDS = 3 * 24 * 3600
# A count that does not reach Redis within this is dropped (logged): the visitor's
# redirect is already sent.
TIMEOUT_SECONDS = 2

_EMPTY = json.dumps([""] * len(DIMENSIONS))

# KEYS: the days' hashes, then the list of hashes; ARGV: the empty field, the cap, the
# ttl, then per count the index of its hash in KEYS, its field and its visits.
_COUNT_SCRIPT = """
local index = KEYS[#KEYS]
local empty, cap, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
for i = 4, #ARGV, 3 do
  local key, field = KEYS[tonumber(ARGV[i])], ARGV[i + 1]
  if redis.call('HEXISTS', key, field) == 0 and redis.call('HLEN', key) >= cap then
    field = empty
  end
  redis.call('HINCRBY', key, field, tonumber(ARGV[i + 2]))
  if redis.call('TTL', key) < 0 then
    redis.call('EXPIRE', key, ttl)
    redis.call('SADD', index, key)
    redis.call('EXPIRE', index, ttl)
  end
end
return 1
"""


def _index_key() -> str:
    # The test settings' and the bench's prefixes keep theirs apart, as in the caches.
    return f"conversions:{settings.CACHES['default'].get('KEY_PREFIX', '')}:visits"


def _day_key(site_id: int, day: date) -> str:
    return f"{_index_key()}:{site_id}:{day.isoformat()}"


_COUNT = LuaScript(_COUNT_SCRIPT)


def _async_client() -> AsyncCommands:
    """The broker's Redis for the running event loop (one batch is sent at a time)."""
    return AsyncCommands.of_loop(
        settings.REDIS_URL, max_connections=2, socket_timeout=TIMEOUT_SECONDS, socket_connect_timeout=TIMEOUT_SECONDS
    )


async def _count_script(keys: list[str], args: list) -> None:
    """The count script on the broker's Redis."""
    await _async_client().script(_COUNT, keys, args)


def _client():
    import redis

    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5, socket_connect_timeout=5)


# Visits counted in this process and not yet sent, by (day's hash, field); and whether a
# request of this process is sending them now.
_unsent: dict[tuple[str, str], int] = {}
_sending = False


async def visit_count(site_id: int, tracking: dict) -> None:
    """One visit of the site today with this tracking (the visitor's cookie and query).

    The visits counted while another request of this process is sending its own are sent
    by that request, all in one EVALSHA, before it ends (under load the arrivals share
    the round trip instead of one each; alone, each is sent at once)."""
    source = source_of(tracking)
    # A NUL Django's BadInputMiddleware would have refused never reaches a text column.
    field = json.dumps([source[name].replace("\x00", "") for name in DIMENSIONS])
    counted = (_day_key(site_id, timezone.localdate()), field)
    _unsent[counted] = _unsent.get(counted, 0) + 1
    if not _sending:
        await _send()


async def _send() -> None:
    """Sends what is counted, and what is counted meanwhile, until nothing is left."""
    global _sending
    _sending = True
    try:
        while _unsent:
            counts = dict(_unsent)
            _unsent.clear()
            keys: dict[str, int] = {}
            args: list = [_EMPTY, SOURCES, KEEP_SECONDS]
            for (day_key, field), visits in counts.items():
                args += [keys.setdefault(day_key, len(keys) + 1), field, visits]
            try:
                await _count_script([*keys, _index_key()], args)
            except Exception:  # the visitors have their pages; lost counts are logged
                logger.warning("%d visits not counted", sum(counts.values()), exc_info=True)
    finally:
        _sending = False


async def on_cached_arrival(site, visitor, query) -> None:
    """The page cache's `arrival_seen` hook: the arrival's tracking as the middleware
    would have sent it with `tracking_arrived`."""
    from apps.accounts.tracking import arrival_data

    if site.schema_name == settings.PUBLIC_SCHEMA_NAME:
        return
    await visit_count(site.pk, arrival_data(visitor, query))


def _source_values(raw_field: bytes) -> list[str]:
    """A count's source as written by `visit_count`; anything else (a key of an older
    layout) counts as the empty source rather than stopping the fold."""
    try:
        values = json.loads(raw_field)
    except ValueError:
        return [""] * len(DIMENSIONS)
    if not isinstance(values, list) or len(values) != len(DIMENSIONS):
        return [""] * len(DIMENSIONS)
    return [str(value).replace("\x00", "") for value in values]


def visits_fold() -> int:
    """Adds the counted visits to the rollups and takes them off the counts (what came
    in meanwhile stays for the next fold). Returns the visits folded."""
    client = _client()
    index = _index_key()
    folded = 0
    for raw_key in client.smembers(index):
        day_key = raw_key.decode()
        counts = {field: count for field, count in client.hgetall(day_key).items() if int(count) > 0}
        if not counts:
            client.srem(index, day_key)
            continue
        site_id, day = day_key.rsplit(":", 2)[-2:]
        # One row per source (one INSERT may not touch a row twice).
        by_source: dict[tuple, int] = defaultdict(int)
        for raw_field, raw_count in counts.items():
            by_source[tuple(_source_values(raw_field))] += int(raw_count)
        head = (int(site_id), date.fromisoformat(day))
        rows = [
            (*head, *values, "", *(visits if name == "visits" else 0 for name in COUNTERS))
            for values, visits in by_source.items()
        ]
        with transaction.atomic():
            rows_insert(rows)
        # Taken off only once the rollups have them; increments since the read stay.
        pipe = client.pipeline()
        for raw_field, raw_count in counts.items():
            pipe.hincrby(day_key, raw_field, -int(raw_count))
        pipe.execute()
        folded += sum(int(count) for count in counts.values())
    return folded
