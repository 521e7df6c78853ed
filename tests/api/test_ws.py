"""The WebSocket: a snapshot, then updates with consecutive sequence numbers; resync; slow clients;
one failure (an update, a snapshot, a client) never stopping the stream for the others."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from api.app import create_app
from api.ws import Client, Hub, _send
from controller.runtime import Runtime
from tests.api.conftest import AUTH, free_port, start
from tests.api.driver import mirror, shuffled_deal


def test_a_client_gets_the_snapshot_then_consecutive_updates(client):
    start(client, "poley")
    with client.websocket_connect("/ws") as ws:
        snapshot = ws.receive_json()
        assert snapshot["type"] == "snapshot" and snapshot["state"]["game"] == "poley"
        deal = shuffled_deal(mirror("poley"), random.Random(2), dealer=3)
        client.post("/api/deals", json=deal, headers=AUTH)
        for seat in (0, 1, 2):
            client.post("/api/calls", json={"seat": seat, "call": "pass"}, headers=AUTH)
        client.post("/api/calls", json={"seat": 0, "call": "1"}, headers=AUTH)  # out of turn: a violation
        updates = [ws.receive_json() for _ in range(5)]
    assert [u["seq"] for u in updates] == list(range(snapshot["seq"] + 1, snapshot["seq"] + 6))
    assert updates[0]["event"] == {"type": "deal", "dealer": 3, "cards_per_seat": [5, 5, 5, 5], "rest_count": 2}
    assert updates[-1]["violation"]["rule"] == "out-of-turn"
    assert updates[-1]["state"]["hand"]["auction"] == [
        {"seat": 0, "call": "pass", "words": "pass"},
        {"seat": 1, "call": "pass", "words": "pass"},
        {"seat": 2, "call": "pass", "words": "pass"},
    ]


def test_a_client_that_asks_to_resync_gets_a_fresh_snapshot(client):
    start(client, "nap", players=3)
    with client.websocket_connect("/ws") as ws:
        first = ws.receive_json()
        client.post("/api/deals", json={"dealer": 0}, headers=AUTH)
        update = ws.receive_json()
        ws.send_json({"type": "resync"})
        again = ws.receive_json()
        ws.send_text("hello")
        error = ws.receive_json()
    assert again["type"] == "snapshot" and again["seq"] == update["seq"] == first["seq"] + 1
    assert again["state"] == update["state"]
    assert error["type"] == "error" and "resync" in error["detail"]


def test_a_new_match_and_a_pause_reach_connected_clients_as_snapshots(client):
    with client.websocket_connect("/ws") as ws:
        assert ws.receive_json()["state"]["game"] is None
        start(client, "shelem")
        assert ws.receive_json()["state"]["game"] == "shelem"
        client.post("/api/pause", json={"reason": "a card fell"}, headers=AUTH)
        assert ws.receive_json()["state"]["paused"] == "a card fell"


def test_a_slow_client_is_dropped_rather_than_slowing_the_table():
    async def fill() -> Client:
        client = Client(size=3)
        for n in range(5):
            client.offer(f"message {n}")
        return client

    client = asyncio.run(fill())
    assert client.dropped
    assert client.queue.get_nowait() is None  # the sender closes the connection: reconnect to resync


# --- one failure never stops the stream for everyone -------------------------------------------

UNWRITABLE = 10**5000  # Python will not write out an integer of over 4,300 digits


def tell_listeners(runtime: Runtime, message: dict[str, Any]) -> None:
    """Publish a message as the runtime does: to every listener, on the controller's thread."""

    def tell() -> None:
        for listener in list(runtime.listeners):
            listener(message)

    runtime.run(tell).result(timeout=60)


def test_an_update_that_cannot_be_written_out_is_replaced_by_a_snapshot_for_every_client(client, runtime, caplog):
    start(client, "poley")
    with client.websocket_connect("/ws") as first, client.websocket_connect("/ws") as second:
        snapshots = [first.receive_json(), second.receive_json()]
        bad = {"type": "update", "seq": runtime.seq, "event": {"type": "status", "n": UNWRITABLE}, "state": {}}
        tell_listeners(runtime, bad)
        assert client.post("/api/deals", json={"dealer": 0}, headers=AUTH).status_code == 200
        for ws, snapshot in zip((first, second), snapshots, strict=True):
            fresh, update = ws.receive_json(), ws.receive_json()
            assert fresh["type"] == "snapshot" and fresh["seq"] == snapshot["seq"]  # the page is current again
            assert update["type"] == "update" and update["seq"] == fresh["seq"] + 1
            assert update["event"]["type"] == "deal"
    assert "could not be written out as JSON" in caplog.text


@contextlib.contextmanager
def serving(runtime: Runtime) -> Iterator[str]:
    """The app on a real uvicorn server in a thread; yields host:port."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(runtime), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=60)


def test_a_client_whose_snapshot_cannot_be_sent_is_closed_and_the_others_go_on(runtime):
    with serving(runtime) as host, httpx.Client(base_url=f"http://{host}", timeout=60) as http:
        assert http.post("/api/matches", json={"game": "poley"}, headers=AUTH).status_code == 201
        with connect(f"ws://{host}/ws", open_timeout=60) as watching:
            snapshot = json.loads(watching.recv(timeout=60))
            runtime.set_status("camera", {"reading": UNWRITABLE}).result(timeout=60)  # every state fails now
            with connect(f"ws://{host}/ws", open_timeout=60) as joining, pytest.raises(ConnectionClosed) as closed:
                joining.recv(timeout=60)  # not left waiting for a snapshot that never comes
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1011
            assert "reconnect" in closed.value.rcvd.reason
            runtime.set_status("camera", None).result(timeout=60)
            update = json.loads(watching.recv(timeout=60))
        assert update["type"] == "update" and update["seq"] == snapshot["seq"] + 2  # one skipped: it resyncs
        assert update["state"]["devices"] == {}
        with connect(f"ws://{host}/ws", open_timeout=60) as again:
            assert json.loads(again.recv(timeout=60))["type"] == "snapshot"


class BrokenSocket:
    """A connection that fails when written to (the client went away mid-send)."""

    def __init__(self) -> None:
        self.closed_with: tuple[int, str] | None = None

    async def send_text(self, text: str) -> None:
        raise ConnectionResetError("connection reset by peer")

    async def close(self, code: int, reason: str) -> None:
        self.closed_with = (code, reason)


class BrokenClient(Client):
    def offer(self, text: str) -> None:
        raise RuntimeError("this client's queue is broken")


def test_a_client_that_fails_is_dropped_alone():
    async def run() -> tuple[Client, BrokenSocket, Client, Hub]:
        sending, socket = Client(size=8), BrokenSocket()
        sending.offer('{"type": "snapshot", "seq": 1}')
        await _send(socket, sending)  # type: ignore[arg-type]  # returns: the failure is this client's alone
        hub = Hub(None, queue_size=8)  # type: ignore[arg-type]
        broken, healthy = BrokenClient(size=8), Client(size=8)
        hub.clients.update({broken, healthy})
        hub._fan_out('{"type": "update", "seq": 2}')
        return sending, socket, healthy, hub

    sending, socket, healthy, hub = asyncio.run(run())
    assert sending.dropped and socket.closed_with is not None and socket.closed_with[0] == 1011
    assert healthy.queue.get_nowait() == '{"type": "update", "seq": 2}'
    assert hub.clients == {healthy}
