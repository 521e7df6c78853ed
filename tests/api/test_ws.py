"""The WebSocket: a snapshot, then updates with consecutive sequence numbers; resync; slow clients."""

from __future__ import annotations

import asyncio
import random

from api.ws import Client
from tests.api.conftest import AUTH, start
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
        {"seat": 0, "call": "pass"},
        {"seat": 1, "call": "pass"},
        {"seat": 2, "call": "pass"},
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
