"""The page's live updates: as soon as the intake has committed a batch (or a table's flag
changed), every page watching ``/api/live`` is told which tables changed, with each one's new
summary (the same as ``/api/tables`` gives) and the latest message stored of it (match, seq).

The intake's writer thread only records which tables changed and wakes the feed; the summaries
are read once per wake in a worker thread, however many pages watch, and changes that arrive
meanwhile are merged into the next one. A page too slow to take its updates is let go (it
reconnects and reads everything again) rather than let its queue grow without end."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

from club.intake import Changed

log = logging.getLogger(__name__)

QUEUED = 64  # updates waiting for one page at most before it is let go
Views = Callable[[list[str]], list[dict[str, Any]]]


class TooSlow(RuntimeError):
    """A watching page did not take its updates; it is let go and reads everything when back."""


class LiveFeed:
    def __init__(self, views: Views) -> None:
        self._views = views  # the tables' summaries, read from the database
        self._lock = threading.Lock()
        self._pending: Changed = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._watchers: set[asyncio.Queue[dict[str, Any] | None]] = set()

    def changed(self, tables: Changed) -> None:
        """Called from any thread (the intake's writer, a request) once the change is committed."""
        with self._lock:
            for table, latest in tables.items():
                known = self._pending.get(table)
                self._pending[table] = latest if known is None or (latest is not None and latest > known) else known
            loop, wake = self._loop, self._wake
        if loop is not None and wake is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: the service is stopping
                loop.call_soon_threadsafe(wake.set)

    async def run(self) -> None:
        """Send every change to every watcher, until cancelled (the app's lifespan runs it)."""
        wake = asyncio.Event()
        with self._lock:
            self._loop, self._wake = asyncio.get_running_loop(), wake
        try:
            while True:
                await wake.wait()
                wake.clear()
                with self._lock:
                    pending, self._pending = self._pending, {}
                if not pending or not self._watchers:
                    continue
                try:
                    views = await asyncio.to_thread(self._views, sorted(pending))
                except Exception:  # the database away: the pages learn it from their next request
                    log.exception("cannot read the changed tables for the live pages")
                    continue
                for view in views:
                    latest = pending.get(view["table"])
                    view["latest"] = {"match": latest[0], "seq": latest[1]} if latest else None
                self._send({"tables": views})
        finally:
            with self._lock:
                self._loop = self._wake = None

    def _send(self, update: dict[str, Any]) -> None:
        for queue in list(self._watchers):
            try:
                queue.put_nowait(update)
            except asyncio.QueueFull:
                self._watchers.discard(queue)
                queue.get_nowait()  # room for the word that it is let go
                queue.put_nowait(None)

    @contextlib.contextmanager
    def watcher(self) -> Iterator[asyncio.Queue[dict[str, Any] | None]]:
        """A queue of the updates for one page; None in it: the page was too slow and is let go."""
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(QUEUED)
        self._watchers.add(queue)
        try:
            yield queue
        finally:
            self._watchers.discard(queue)
