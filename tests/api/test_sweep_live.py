"""The sweep at the simulated live table: while a hand is played through the real code paths
(the machine deals, the camera reads the mat, the devices report), no WebSocket message and no
public endpoint shows a card before it has been put down on the mat; after the hand, the hand
record shows them all."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

from controller.sim_table import SimOptions, SimulatedTableRig
from tests.api.conftest import free_port
from tests.leaks import card_codes


def test_no_message_of_a_live_hand_shows_a_card_before_it_is_on_the_mat(tmp_path: Path) -> None:
    rig = SimulatedTableRig(
        SimOptions(game="nap", players=3, speed=300.0, seed=8, mistakes=0.2, port=free_port(), store=tmp_path / "t.db")
    )
    on_mat: set[str] = set()
    lock = threading.Lock()
    leaks: list[str] = []
    kinds: set[str] = set()
    rig.start()
    original = rig.scene.put_down

    def put_down(seat: int, card: Any) -> float:
        with lock:
            on_mat.add(str(card))
        return original(seat, card)

    rig.scene.put_down = put_down  # type: ignore[method-assign]
    base = f"http://{rig.options.host}:{rig.options.port}"

    def check(doc: Any, where: str) -> None:
        state = doc.get("state", doc) if isinstance(doc, dict) else {}
        if (state.get("hand") or {}).get("record") is not None:
            return  # the hand is over: everything dealt is public now
        with lock:
            hidden = card_codes(doc) - on_mat
        if hidden:
            leaks.append(f"{where}: {sorted(hidden)} in {json.dumps(doc)[:300]}")

    def listen(socket: Any) -> None:
        try:
            for text in socket:
                message = json.loads(text)
                kinds.add((message.get("event") or {}).get("type", message["type"]))
                check(message, f"ws {message['type']} {message['seq']}")
        except Exception:
            return

    try:
        with connect(f"ws://{rig.options.host}:{rig.options.port}/ws") as socket:
            listener = threading.Thread(target=listen, args=(socket,), daemon=True)
            listener.start()
            rig.start_match()
            rig.play(1)
            for path in ("/api/table", "/api/matches", "/api/health"):
                check(httpx.get(base + path).json(), path)
        listener.join(timeout=5)
    finally:
        rig.close()
    assert not leaks, leaks
    assert {"deal", "call", "play", "status"} <= kinds  # the devices' messages were swept too
