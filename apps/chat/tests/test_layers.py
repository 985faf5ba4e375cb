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


async def _group_send_outcome(layer) -> dict:
    """A group of four channels: one whose membership expired, one holding an expired
    message (capacity 1), one full, one empty. What each receives after one group_send,
    and who is left in the group."""
    group = "site1.member2"
    token = uuid.uuid4().hex[:8]
    expired_member, stale, full, empty = (f"test.{name}.{token}" for name in ("gone", "stale", "full", "empty"))
    connection = layer.connection(0)
    key = layer._group_key(group)
    try:
        for channel in (stale, full, empty):
            await layer.group_add(group, channel)
        await connection.zadd(key, {expired_member: 1})  # joined long before the group's expiry
        await layer.send(stale, {"type": "old"})
        await asyncio.sleep(layer.expiry + 1.1)  # the stale channel's message expires
        await layer.send(full, {"type": "fresh"})
        await layer.group_send(group, {"type": "chat.event", "n": 1})

        async def received(channel) -> list:
            found = []
            while True:
                try:
                    found.append(await asyncio.wait_for(layer.receive(channel), timeout=0.3))
                except TimeoutError:
                    return found

        return {
            "expired member": await received(expired_member),
            "stale": await received(stale),
            "full": await received(full),
            "empty": await received(empty),
            "members": sorted(member.decode() for member in await connection.zrange(key, 0, -1)),
            "names": {"stale": stale, "full": full, "empty": empty},
        }
    finally:
        await layer.flush()


@pytest.mark.parametrize("cls", [RedisChannelLayer, ChannelsRedisLayer])
def test_group_send_delivers_as_channels_redis_does(cls):
    """The layer's own group_send (two round trips) against channels_redis's (four): the
    expired member is dropped and gets nothing, the expired message is dropped before the
    channel's room is counted, the full channel is skipped, the others get the message."""
    host = {"address": settings.REDIS_URL}
    layer = cls(hosts=[host], prefix=f"test{uuid.uuid4().hex[:12]}", capacity=1, expiry=1)
    outcome = in_thread(async_to_sync(_group_send_outcome), layer)
    sent = {"type": "chat.event", "n": 1}
    assert outcome["expired member"] == []
    assert outcome["stale"] == [sent]
    assert outcome["full"] == [{"type": "fresh"}]
    assert outcome["empty"] == [sent]
    assert outcome["members"] == sorted(outcome["names"].values())


async def _receive_counting_restores(layer, monkeypatch) -> tuple[list, list, list]:
    """Three messages to a process channel, received one after another; then one left
    in the backup as by a receive interrupted after its pop, and one more message. The
    messages received, the backup-restoring scripts run before each of the two rounds."""
    channel = await layer.new_channel()
    connection = layer.connection(0)
    scripts = []
    evaluate = connection.eval

    async def eval_noted(script, *args):
        scripts.append(script)
        return await evaluate(script, *args)

    monkeypatch.setattr(connection, "eval", eval_noted)
    try:
        for n in range(3):
            await layer.send(channel, {"type": "chat.event", "n": n})
        received = [(await layer.receive(channel))["n"] for _ in range(3)]
        first_round = [script for script in scripts if "DEL" in script]
        scripts.clear()
        key = layer.prefix + layer.non_local_name(channel)
        await asyncio.gather(*layer.receive_cleaners)  # the third message's backup cleaned
        await layer.send(channel, {"type": "chat.event", "n": 3})
        await layer._brpop_with_clean(0, key, timeout=1)  # popped and backed up, never handed on
        await layer.send(channel, {"type": "chat.event", "n": 4})
        received += [(await layer.receive(channel))["n"] for _ in range(2)]
        second_round = [script for script in scripts if "DEL" in script]
        await asyncio.gather(*layer.receive_cleaners)
        left = await connection.zcard(layer._backup_channel_name(key))
        return [*received, left], first_round, second_round
    finally:
        await layer.flush()


def test_a_process_channel_restores_its_backup_only_when_it_may_hold_something(monkeypatch):
    """Three round trips per message received instead of channels_redis's four: the
    script that puts back an interrupted receive's message runs at the first receive,
    then only after an interruption, and nothing is lost."""
    layer = _layer(RedisChannelLayer)
    received, first_round, second_round = in_thread(async_to_sync(_receive_counting_restores), layer, monkeypatch)
    assert received == [0, 1, 2, 3, 4, 0]
    assert len(first_round) == 1
    assert len(second_round) == 1
