"""The panel's seat LEDs show whose turn it is as the page does: never a seat the table hides.

The live table and the panel on gpiozero's mock pins, the runtime, the referee and the journal
are all real; only the dealing machine and the camera are left out (the deal is entered)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from controller.live import LiveTable
from controller.runtime import Runtime
from hardware.config import PanelConfig
from hardware.panel import Panel
from tests.api.conftest import make_runtime

# Bid Whist: seat 1 holds the big joker, seat 0 the little one; seat 2 will bid 4 no-trump.
HANDS = [
    "QS LJ 7S 6H 5H QD 9D 8D AC QC 9C 8C",
    "BJ 4S 2S 3H KD 4D 3D 2D KC JC 6C 3C",
    "AS 6S 3S AH JH TH 7H AD JD TC 5C 2C",
    "KS JS TS 9S 5S KH 9H 4H 7D 6D 5D 4C",
]
KITTY = "8S QH 8H 2H TD 7C"
TO_THE_EXCHANGE: list[dict[str, Any]] = [
    {"type": "call", "seat": 2, "call": "4no"},
    {"type": "call", "seat": 3, "call": "pass"},
    {"type": "call", "seat": 0, "call": "pass"},
    {"type": "call", "seat": 1, "call": "pass"},
    {"type": "declare", "seat": 2, "direction": "high"},
    {"type": "discard", "seat": 2, "cards": ["8S", "6S", "3S", "7C", "5C", "2C"]},
]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[Runtime, Panel]]:
    runtime = make_runtime(tmp_path)
    live = LiveTable(runtime)
    panel = Panel(PanelConfig(), live.press, pin_factory=MockFactory())
    live.panel = panel
    live.start()
    yield runtime, panel
    live.close()
    runtime.journal.close()


def lit(panel: Panel) -> list[int]:
    return [seat for seat, led in enumerate(panel.leds) if led.is_lit]


def submit(runtime: Runtime, event: dict[str, Any]) -> Any:
    result = runtime.submit(event).result(timeout=60)
    assert result.outcome.accepted, result.outcome.reason
    return result


def test_no_led_names_the_big_jokers_holder_during_the_exchange(table):
    runtime, panel = table
    runtime.start_match("bid-whist", None, {}, None).result(timeout=60)
    runtime.deal([h.split() for h in HANDS], KITTY.split(), 1).result(timeout=60)
    assert lit(panel) == [2]  # the auction: seat 2 speaks first, and everyone may know it
    for event in TO_THE_EXCHANGE:
        submit(runtime, event)
    holder_led = panel.leds[1].pin
    changes_before = len(holder_led.states)
    state = runtime.snapshot().result(timeout=60)["state"]["hand"]
    assert state["phase"] == "joker-swap" and state["to_act"] is None
    assert lit(panel) == []
    # Seat 0 offers its little joker out of turn: a violation, a beep, and still no holder shown.
    answer = submit(runtime, {"type": "joker-swap", "seat": 0, "joker": "LJ", "card": None})
    assert answer.outcome.violation["rule"] == "big-joker-first"
    assert lit(panel) == []
    assert all(not change.state for change in holder_led.states[changes_before:])  # never lit
    submit(runtime, {"type": "joker-swap", "seat": 1, "joker": "BJ", "card": None})  # the holder declines
    assert lit(panel) == []  # now the little joker's holder is asked: still nobody named
    submit(runtime, {"type": "joker-swap", "seat": 0, "joker": "LJ", "card": None})
    assert lit(panel) == [2]  # play: the declarer leads, in the open
