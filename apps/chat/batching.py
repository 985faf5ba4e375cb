"""Database work of many sockets in one thread hop.

Every socket's database call goes through `database_sync_to_async`, which runs one call
at a time per process in the thread the sockets share. When thousands of members
reconnect at once (a deploy, a network blip), each handshake's calls queued behind all
the others', and each paid a hop, a schema switch and its queries of its own (bench
"scale": about 5 ms of server CPU per handshake, 2 of them the delivered state of
waiting messages). A `LoopBatcher` gathers the calls that arrive together on one event
loop and runs them as one batch: one hop, and the batch's function does the work of all
of them at once (a query per site rather than per socket). While a batch is in the
database the next one gathers; a batch holds at most `size` items."""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable

from channels.db import database_sync_to_async

logger = logging.getLogger(__name__)


class _Queue:
    """The items waiting on one event loop, and whether a batch is running."""

    def __init__(self) -> None:
        self.waiting: list[tuple[object, asyncio.Future]] = []
        self.running = False
        self.task: asyncio.Task | None = None


class LoopBatcher:
    """`await batcher(item)` returns `run_batch(items)[i]` for its item, `run_batch` (a
    synchronous function of a list of items, returning one result per item in order)
    called in the database thread for the items gathered meanwhile. If the batch fails,
    each of its callers gets the exception."""

    def __init__(self, run_batch: Callable[[list], list], *, size: int, name: str) -> None:
        self.run_batch = run_batch
        self.size = size
        self.name = name
        self.queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Queue] = weakref.WeakKeyDictionary()

    async def __call__(self, item):
        loop = asyncio.get_running_loop()
        queue = self.queues.get(loop)
        if queue is None:
            queue = self.queues[loop] = _Queue()
        future = loop.create_future()
        queue.waiting.append((item, future))
        if not queue.running:
            queue.running = True
            queue.task = loop.create_task(self._run(queue))
        return await future

    async def _run(self, queue: _Queue) -> None:
        try:
            while queue.waiting:
                batch, queue.waiting = queue.waiting[: self.size], queue.waiting[self.size :]
                try:
                    results = await database_sync_to_async(self.run_batch)([item for item, _f in batch])
                except Exception as error:  # the database is away: these fail, the next try again
                    logger.exception("%s: a batch of %d failed", self.name, len(batch))
                    for _item, future in batch:
                        if not future.done():
                            future.set_exception(error)
                    continue
                for (_item, future), result in zip(batch, results, strict=True):
                    if not future.done():  # not given up by its caller meanwhile
                        future.set_result(result)
        finally:
            queue.running = False
