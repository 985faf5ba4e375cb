"""apps.chat.layers: the channel layer's Redis pool makes calls wait for a free
connection instead of failing, so every socket of a process closing at once leaves its
group (against the real Redis of REDIS_URL)."""

import asyncio
import uuid

import pytest
from asgiref.sync import async_to_sync
from channels_redis.core import RedisChannelLayer as ChannelsRedisLayer
from django.conf import settings
from redis.exceptions import MaxConnectionsError

from apps.chat.layers import RedisChannelLayer
from tests.live import in_thread

SOCKETS = 50


def _layer(cls):
    host = {"address": settings.REDIS_URL, "max_connections": 2}
    if cls is RedisChannelLayer:
        host["pool_timeout"] = 10
    return cls(hosts=[host], prefix=f"test{uuid.uuid4().hex[:12]}")


async def _join_and_leave_at_once(layer) -> tuple[int, int]:
    """Group members after SOCKETS channels joined at once, and after they left at once."""
    channels = [await layer.new_channel() for _ in range(SOCKETS)]
    connection = layer.connection(0)
    key = layer._group_key("site1.member1")
    try:
        await asyncio.gather(*(layer.group_add("site1.member1", channel) for channel in channels))
        joined = await connection.zcard(key)
        await asyncio.gather(*(layer.group_discard("site1.member1", channel) for channel in channels))
        return joined, await connection.zcard(key)
    finally:
        await layer.flush()


def test_more_calls_at_once_than_connections_all_go_through():
    # In a thread of its own: the browser tests leave an event loop running in this one.
    assert in_thread(async_to_sync(_join_and_leave_at_once), _layer(RedisChannelLayer)) == (SOCKETS, 0)


def test_channels_redis_own_pool_fails_there():
    """What the layer is for: channels_redis's pool raises instead of waiting."""
    with pytest.raises(MaxConnectionsError):
        in_thread(async_to_sync(_join_and_leave_at_once), _layer(ChannelsRedisLayer))


def test_the_site_uses_it():
    assert settings.CHANNEL_LAYERS["default"]["BACKEND"] == "apps.chat.layers.RedisChannelLayer"
