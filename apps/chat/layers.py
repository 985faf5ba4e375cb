"""The channel layer of the site (settings.CHANNEL_LAYERS): channels_redis's, with a
connection pool that waits for a free connection instead of failing.

channels_redis makes a redis-py ConnectionPool, which raises "Too many connections"
(MaxConnectionsError) as soon as `max_connections` are in use. Every socket that closes
discards its group membership with a Redis call of its own, so when thousands of a
process's sockets close at once (a network blip, a proxy restarting) most of those calls
failed and their channels stayed in the members' groups (bench "scale": 10,000 sockets
closing at once, 8,154 errors, every group left behind). With a BlockingConnectionPool
the calls queue for one of `max_connections` connections and all of them go through;
`pool_timeout` (seconds) bounds the wait."""

from __future__ import annotations

from channels_redis.core import RedisChannelLayer as BaseRedisChannelLayer
from redis.asyncio import BlockingConnectionPool

POOL_TIMEOUT = 20.0


class RedisChannelLayer(BaseRedisChannelLayer):
    def create_pool(self, index: int) -> BlockingConnectionPool:
        host = dict(self.hosts[index])
        if "address" not in host:  # sentinels or keyword hosts: channels_redis's own pool
            return super().create_pool(index)
        address = host.pop("address")
        timeout = host.pop("pool_timeout", POOL_TIMEOUT)
        return BlockingConnectionPool.from_url(address, timeout=timeout, **host)
