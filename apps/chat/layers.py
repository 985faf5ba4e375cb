"""The channel layer of the site (settings.CHANNEL_LAYERS): channels_redis's, with a
connection pool that waits for a free connection instead of failing.

channels_redis makes a redis-py ConnectionPool, which raises "Too many connections"
(MaxConnectionsError) as soon as `max_connections` are in use. Every socket that closes
discards its group membership with a Redis call of its own, so when thousands of a
process's sockets close at once (a network blip, a proxy restarting) most of those calls
failed and their channels stayed in the members' groups (bench "scale": 10,000 sockets
closing at once, 8,154 errors, every group left behind). With a BlockingConnectionPool
the calls queue for one of `max_connections` connections and all of them go through;
`pool_timeout` (seconds) bounds the wait.

Its `group_send` takes two Redis round trips instead of channels_redis's four (every chat
message makes three, in the server's event loop): the group's expired members dropped and
its members read in one pipeline, then one script per Redis host that drops each
channel's expired messages and adds the message where there is room, as channels_redis
does in a pipeline and a script of its own. What reaches each channel is the same.

Its receive on the process's own channel (every socket's messages come through it) takes
three round trips per message instead of four: channels_redis runs a script before every
blocking pop that puts back what an interrupted receive left in the channel's backup
queue; the layer runs it only when that backup may hold something, i.e. until a
receive's clean-up of the backup has succeeded (at start, after a cancelled or failed
receive). A message is never lost where channels_redis would have kept it."""

from __future__ import annotations

import logging
import time

from channels_redis.core import RedisChannelLayer as BaseRedisChannelLayer
from redis.asyncio import BlockingConnectionPool

logger = logging.getLogger(__name__)

POOL_TIMEOUT = 20.0

# KEYS: the channels' keys; ARGV: their messages, their capacities, then the time, the
# channels' expiry and the score before which a channel's messages have expired.
GROUP_SEND_LUA = """
local over_capacity = 0
local current_time = ARGV[#ARGV - 2]
local expiry = ARGV[#ARGV - 1]
local expired_before = ARGV[#ARGV]
for i=1,#KEYS do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, expired_before)
    if redis.call('ZCOUNT', KEYS[i], '-inf', '+inf') < tonumber(ARGV[i + #KEYS]) then
        redis.call('ZADD', KEYS[i], current_time, ARGV[i])
        redis.call('EXPIRE', KEYS[i], expiry)
    else
        over_capacity = over_capacity + 1
    end
end
return over_capacity
"""


# channels_redis's script: what an interrupted receive left in the backup goes back in
# front of the channel, in order.
BACKUP_RESTORE_LUA = """
local backed_up = redis.call('ZRANGE', ARGV[2], 0, -1, 'WITHSCORES')
for i = #backed_up, 1, -2 do
    redis.call('ZADD', ARGV[1], backed_up[i], backed_up[i - 1])
end
redis.call('DEL', ARGV[2])
"""


class RedisChannelLayer(BaseRedisChannelLayer):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The process's own channels (their keys) whose backup queue this layer emptied
        # itself and has not written to since.
        self._backup_empty: set[str] = set()

    def create_pool(self, index: int) -> BlockingConnectionPool:
        host = dict(self.hosts[index])
        if "address" not in host:  # sentinels or keyword hosts: channels_redis's own pool
            return super().create_pool(index)
        address = host.pop("address")
        timeout = host.pop("pool_timeout", POOL_TIMEOUT)
        return BlockingConnectionPool.from_url(address, timeout=timeout, **host)

    async def group_send(self, group, message):
        """The message to every channel of the group (channels_redis's semantics: expired
        members and messages dropped first, a full channel skipped and logged)."""
        assert self.require_valid_group_name(group), "Group name not valid"
        key = self._group_key(group)
        connection = self.connection(self.consistent_hash(group))
        async with connection.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(key, min=0, max=int(time.time()) - self.group_expiry)
            pipe.zrange(key, 0, -1)
            _dropped, members = await pipe.execute()
        channel_names = [member.decode("utf8") for member in members]
        if not channel_names:
            return
        by_connection, messages, capacities = self._map_channel_keys_to_connection(channel_names, message)
        for index, channel_keys in by_connection.items():
            now = time.time()
            args = [messages[channel_key] for channel_key in channel_keys]
            args += [capacities[channel_key] for channel_key in channel_keys]
            args += [now, self.expiry, int(now) - int(self.expiry)]
            over_capacity = await self.connection(index).eval(GROUP_SEND_LUA, len(channel_keys), *channel_keys, *args)
            if over_capacity > 0:
                logger.info("%s of %s channels over capacity in group %s", over_capacity, len(channel_names), group)

    async def _brpop_with_clean(self, index, channel, timeout):
        """channels_redis's: the backup put back, a blocking pop, the message backed up
        until it is handed on; the first step only when the backup may hold something. A
        plain channel (no "!") may be read by other processes: always put back."""
        backup = self._backup_channel_name(channel)
        connection = self.connection(index)
        if channel not in self._backup_empty:
            await connection.eval(BACKUP_RESTORE_LUA, 0, channel, backup)
            if "!" in channel:
                self._backup_empty.add(channel)
        result = await connection.bzpopmin(channel, timeout=timeout)
        if result is None:
            return None
        self._backup_empty.discard(channel)  # before the backup is written: an interruption leaves it marked
        _key, member, timestamp = result
        await connection.zadd(backup, {member: float(timestamp)})
        return member

    async def _clean_receive_backup(self, index, channel):
        await super()._clean_receive_backup(index, channel)
        if "!" in channel:
            self._backup_empty.add(channel)
