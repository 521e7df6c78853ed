"""The WebSocket ``/ws``: a snapshot on connect, then every update with its sequence number.

The controller tells its listeners on its own thread; the hub hands each message to the event
loop with ``call_soon_threadsafe`` and into one bounded queue per client. A client too slow to
keep up is dropped (closed with code 1013) rather than slowing the table: it reconnects and
gets a fresh snapshot. A client that sees a gap in ``seq`` may also send ``{"type": "resync"}``.

Snapshots are made on the controller's thread and reach the queue by the same path as the
updates, so a client's queue is always in order: the updates before its snapshot are older
than it and are skipped, the updates after it follow it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from api.auth import may_read
from controller.runtime import Runtime

log = logging.getLogger(__name__)

QUEUE_SIZE = 256  # messages a client may fall behind before it is dropped
TOO_SLOW = 1013  # "try again later": reconnect, and resync from the snapshot


class Client:
    def __init__(self, size: int) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=size)
        self.dropped = False

    def offer(self, text: str) -> None:
        """Queue a message; a full queue drops the client (its sender then closes it)."""
        if self.dropped:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.dropped = True
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(None)


class Hub:
    def __init__(self, runtime: Runtime, queue_size: int = QUEUE_SIZE) -> None:
        self.runtime = runtime
        self.queue_size = queue_size
        self.clients: set[Client] = set()
        self.loop: asyncio.AbstractEventLoop | None = None

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.runtime.listeners.append(self._from_controller)

    def detach(self) -> None:
        with contextlib.suppress(ValueError):
            self.runtime.listeners.remove(self._from_controller)
        self.loop = None

    def _from_controller(self, message: dict[str, Any]) -> None:
        """On the controller's thread: serialise once, then fan out on the event loop."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._fan_out, json.dumps(message))

    def _fan_out(self, text: str) -> None:
        for client in list(self.clients):
            client.offer(text)
            if client.dropped:
                self.clients.discard(client)

    def request_snapshot(self, client: Client) -> None:
        """Queue a snapshot for one client, in order with the updates (see the module's doc)."""
        loop = self.loop
        assert loop is not None

        def make() -> None:
            text = json.dumps(self.runtime.public_snapshot())
            loop.call_soon_threadsafe(client.offer, text)

        self.runtime.controller.run(make)


async def endpoint(websocket: WebSocket) -> None:
    if not may_read(websocket):
        await websocket.close(code=1008, reason="reading this table needs the control token")
        return
    hub: Hub = websocket.app.state.hub
    await websocket.accept()
    client = Client(hub.queue_size)
    hub.clients.add(client)
    hub.request_snapshot(client)
    sender = asyncio.create_task(_send(websocket, client))
    try:
        await _receive(websocket, hub, client)
    finally:
        hub.clients.discard(client)
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sender


async def _send(websocket: WebSocket, client: Client) -> None:
    snapshot_sent = False
    while (text := await client.queue.get()) is not None:
        if not snapshot_sent:
            if not text.startswith('{"type": "snapshot"'):
                continue  # older than the snapshot on its way
            snapshot_sent = True
        await websocket.send_text(text)
    with contextlib.suppress(Exception):
        await websocket.close(code=TOO_SLOW, reason="too slow to keep up: reconnect to resync")


async def _receive(websocket: WebSocket, hub: Hub, client: Client) -> None:
    with contextlib.suppress(WebSocketDisconnect):
        while not client.dropped:
            text = await websocket.receive_text()
            if _is_resync(text):
                hub.request_snapshot(client)
            else:
                await websocket.send_json(
                    {"type": "error", "detail": 'the only message a client sends is {"type": "resync"}'}
                )


def _is_resync(text: str) -> bool:
    try:
        message = json.loads(text)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("type") == "resync"
