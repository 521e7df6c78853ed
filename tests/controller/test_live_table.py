"""The live table through its real code paths: the simulated machine on a pty, rendered frames
through the vision pipeline, the panel on gpiozero's mock pins, the controller, the journal and
a real web server, with simulated people using the page's API."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from controller.live import _turn_order
from controller.sim_table import SimOptions, SimulatedTableRig
from engine.cards import CARDS
from engine.games.shelem import SHELEM
from engine.log import referee_text
from simulators.dealer_model import MachineFaults
from tests.api.conftest import free_port
from tests.engine.playouts import deal_hand


@pytest.fixture
def rig_factory(tmp_path) -> Iterator[Callable[..., SimulatedTableRig]]:
    rigs: list[SimulatedTableRig] = []

    def make(**options: Any) -> SimulatedTableRig:
        rig = SimulatedTableRig(SimOptions(port=free_port(), store=tmp_path / f"t{len(rigs)}.db", **options))
        rigs.append(rig)
        rig.start()
        rig.start_match()
        return rig

    yield make
    for rig in rigs:
        rig.close()


def wait_for(rig: SimulatedTableRig, ready: Callable[[dict[str, Any]], bool], seconds: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        assert rig.people is not None
        state = rig.people.table()
        if ready(state):
            return state
        assert time.monotonic() < deadline, f"the table never showed it; last state: {json.dumps(state)[:600]}"
        time.sleep(0.05)


@pytest.mark.slow
def test_a_hand_with_mistakes_is_dealt_seen_refereed_and_scored(rig_factory):
    rig = rig_factory(game="poley", speed=200.0, seed=3, mistakes=0.25)
    rig.play(1)
    people = rig.people
    assert people is not None and people.stats.hands == 1
    doc = rig.export()
    deals = [e for e in doc["events"] if e["type"] == "deal"]
    assert len(deals) == 1
    # The deal is what the machine physically put in its slots, read card by card.
    slots = rig.machine.firmware.snapshot()["slots"]
    assert [sorted(h) for h in deals[0]["hands"]] == [sorted(str(CARDS[c]) for c in slots[s]) for s in range(4)]
    report = referee_text(json.dumps(doc)).report()
    hand = report["hands"][0]
    assert hand["result"] is not None
    for event in doc["events"]:  # every card the camera reported was in that seat's hand
        if event["type"] == "play":
            assert event["card"] in deals[0]["hands"][event["seat"]]
    # Each mistake was refused by the referee, journalled as a violation, and beeped.
    assert people.stats.mistakes >= 1
    assert people.stats.refused == people.stats.mistakes
    assert len(hand["violations"]) >= people.stats.mistakes
    assert rig.panel is not None and any(state.state for state in rig.panel.buzzer.pin.states)
    # The page's state and the exported log agree with the referee.
    state = rig.people.table()
    assert state["hand"]["score"] == hand["score"] and state["match"] == report["match"]


def test_the_dealing_machines_port_vanishing_mid_deal_holds_the_table_until_it_returns(rig_factory):
    # The port vanishes as the third card leaves the machine, however fast or loaded this one is.
    rig = rig_factory(game="poley", speed=2.0, seed=5, machine_faults=MachineFaults(vanish_at=3, vanish_s=2.0))
    rig.press_deal()
    held = wait_for(rig, lambda s: bool(s["holds"]))
    assert held["holds"][0]["device"] == "dealer"
    assert "serial port" in held["holds"][0]["message"] and "USB" in held["holds"][0]["message"]
    assert rig.people is not None
    refused = rig.people.http.post("/api/calls", json={"seat": 1, "call": "pass"})
    assert refused.status_code == 409 and "serial port" in refused.json()["detail"]
    dealt = wait_for(rig, lambda s: not s["holds"] and s["hand"] is not None, seconds=60)
    assert dealt["hand"]["cards_held"] == [5, 5, 5, 5]
    doc = rig.export()
    deal = doc["events"][0]
    physical = rig.machine.firmware.snapshot()["slots"]
    assert [len(h) for h in deal["hands"]] == [len(physical[s]) for s in range(4)]


def test_a_camera_that_stops_delivering_frames_holds_the_table_with_a_clear_message(rig_factory):
    rig = rig_factory(game="poley", speed=50.0, seed=2)
    rig.camera.go_blind()
    held = wait_for(rig, lambda s: bool(s["holds"]), seconds=20)
    assert held["holds"] == [{"device": "camera", "message": held["holds"][0]["message"]}]
    assert "camera stopped delivering frames" in held["holds"][0]["message"]
    rig.camera.see_again()
    wait_for(rig, lambda s: not s["holds"], seconds=20)


def test_the_panel_lights_the_seat_to_act_and_the_deal_button_deals(rig_factory):
    rig = rig_factory(game="poley", speed=50.0, seed=4)
    rig.press_deal()
    state = wait_for(rig, lambda s: s["hand"] is not None, seconds=60)
    to_act = state["hand"]["to_act"]
    assert rig.panel is not None
    wait_for(rig, lambda s: rig.panel.leds[to_act].is_lit, seconds=5)  # type: ignore[union-attr]
    assert [led.is_lit for led in rig.panel.leds[:4]] == [seat == to_act for seat in range(4)]


def test_the_camera_is_told_the_seats_in_the_order_they_are_due_to_play():
    # Shelem plays counter-clockwise: from the dealer's right. The camera plays cards it first saw
    # together in this order, so that the referee does not refuse the later one as out of turn.
    _, hand = deal_hand(SHELEM, random.Random(1), dealer=0)
    assert hand.to_act == 3
    assert _turn_order(hand) == (3, 2, 1, 0)
    assert _turn_order(None) is None
