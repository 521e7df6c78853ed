"""The WebSocket ``/ws``: a snapshot on connect, then every update with its sequence number.

The controller tells its listeners on its own thread; the hub hands each message to the event
loop with ``call_soon_threadsafe`` and into one bounded queue per client. A client too slow to
keep up is dropped (closed with code 1013) rather than slowing the table: it reconnects and
gets a fresh snapshot. A client that sees a gap in ``seq`` may also send ``{"type": "resync"}``.

Snapshots are made on the controller's thread and reach the queue by the same path as the
updates, so a client's queue is always in order: the updates before its snapshot are older
than it and are skipped, the updates after it follow it.

One failure never stops the stream for everyone. An update that cannot be written out as JSON
is logged and skipped, and the clients get a fresh snapshot in its place (a page must not wait
for a state it will never get); a snapshot that cannot be written out for a client that just
connected closes that client (1011: it reconnects); a client whose connection fails is dropped,
and the others go on.
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
SERVER_ERROR = 1011  # the server could not send this client its state: reconnect
UNSENDABLE = "the table's state could not be sent (the server logged why): reconnect"


class Client:
    def __init__(self, size: int) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=size)
        self.dropped = False
        self.close_code, self.close_reason = TOO_SLOW, "too slow to keep up: reconnect to resync"

    def offer(self, text: str) -> None:
        """Queue a message; a full queue drops the client (its sender then closes it)."""
        if self.dropped:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.drop()

    def drop(self, code: int = TOO_SLOW, reason: str | None = None) -> None:
        """Send this client nothing more: its sender closes the connection with ``code``."""
        if self.dropped:
            return
        self.dropped = True
        self.close_code, self.close_reason = code, reason or self.close_reason
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
        """On the controller's thread: serialise once, then fan out on the event loop. An update
        that cannot be serialised is replaced by a snapshot of the table as it is now."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        text = _encoded(message)
        if text is None and message.get("type") != "snapshot":
            text = self._snapshot_text()
        if text is not None:
            loop.call_soon_threadsafe(self._fan_out, text)

    def _snapshot_text(self) -> str | None:
        """The table's snapshot as JSON text; None (logged) if it cannot be made or written out."""
        try:
            snapshot = self.runtime.public_snapshot()
        except Exception:
            log.exception("the table's snapshot could not be made")
            return None
        return _encoded(snapshot)

    def _fan_out(self, text: str) -> None:
        for client in list(self.clients):
            try:
                client.offer(text)
            except Exception:  # one broken client must not keep the message from the others
                log.exception("a WebSocket client could not take an update: it is dropped")
                client.drop(SERVER_ERROR, UNSENDABLE)
            if client.dropped:
                self.clients.discard(client)

    def request_snapshot(self, client: Client) -> None:
        """Queue a snapshot for one client, in order with the updates (see the module's doc).
        If it cannot be made, that client is closed (1011) and reconnects; the others go on."""
        loop = self.loop
        assert loop is not None

        def make() -> None:
            text = self._snapshot_text()
            if text is None:
                loop.call_soon_threadsafe(client.drop, SERVER_ERROR, UNSENDABLE)
            else:
                loop.call_soon_threadsafe(client.offer, text)

        self.runtime.controller.run(make)


def _encoded(message: dict[str, Any]) -> str | None:
    """The message as JSON text, or None (logged) if it cannot be written out: a value JSON has
    no form for, or an integer too long for Python to write (over 4,300 digits)."""
    try:
        return json.dumps(message)
    except (TypeError, ValueError, RecursionError):
        log.exception("the %s numbered %s could not be written out as JSON", message.get("type"), message.get("seq"))
        return None


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
        try:
            await websocket.send_text(text)
        except Exception as exc:  # this client's connection failed: it alone is dropped
            log.info("a WebSocket client is dropped: sending failed (%s)", exc)
            client.drop(SERVER_ERROR, UNSENDABLE)
            break
    with contextlib.suppress(Exception):
        await websocket.close(code=client.close_code, reason=client.close_reason)


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
