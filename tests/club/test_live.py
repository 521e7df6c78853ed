"""The page's live updates (`/api/live`, club/live.py) from `croupier club serve` in its own
process: a real WebSocket client, no token, told of a table as soon as its messages are stored."""

from __future__ import annotations

import json

import httpx
from websockets.sync.client import connect as websocket

from benchmarks.club_servers import CLUB, free_port
from simulators.club_messages import play
from tests.club.mqtt import publish
from tests.club.service import club_service


def test_a_watching_page_is_told_of_a_table_as_soon_as_its_messages_are_stored(broker, database, tmp_path):
    port = free_port()
    m = play(CLUB, "t1", "nap", seed=2, hands=1)
    last = m.messages[-1]["seq"]
    with club_service(broker, database, tmp_path, port), websocket(f"ws://127.0.0.1:{port}/api/live") as live:
        publish(broker, "t1", m.payloads())
        seen = None
        while seen is None or seen["latest"] != {"match": 1, "seq": last}:  # a batch at a time
            update = json.loads(live.recv(timeout=60))
            seen = next(t for t in update["tables"] if t["table"] == "t1")
        assert seen["game"] == "nap" and seen["refereed"]["hands"] == 1
        listed = httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=30).json()
        assert [{**seen, "latest": None}] == [{**t, "latest": None} for t in listed]  # public: what the page lists
