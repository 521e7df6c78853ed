"""Whole hands of every game at the simulated live table, with mistakes, through the real code
paths. `SOAK_LIVE_GAMES` (comma list) and `SOAK_LIVE_HANDS` bound it; CI runs a bounded one."""

from __future__ import annotations

import json
import os

import pytest

from controller.sim_table import SimOptions, SimulatedTableRig
from engine.games import GAMES
from engine.log import referee_text
from tests.api.conftest import free_port

CHOSEN = [g for g in os.environ.get("SOAK_LIVE_GAMES", ",".join(sorted(GAMES))).split(",") if g]


@pytest.mark.soak
@pytest.mark.parametrize("game", CHOSEN)
def test_live_hands_with_mistakes_replay_to_what_the_table_showed(game, tmp_path):
    hands = int(os.environ.get("SOAK_LIVE_HANDS", "2"))
    rig = SimulatedTableRig(
        SimOptions(game=game, speed=500.0, seed=11, mistakes=0.1, port=free_port(), store=tmp_path / "t.db")
    )
    try:
        rig.start()
        rig.start_match()
        rig.play(hands)
        people = rig.people
        assert people is not None and people.stats.hands == hands
        assert people.stats.refused == people.stats.mistakes or game == "bid-whist"  # penalise lets a revoke stand
        report = referee_text(json.dumps(rig.export())).report()
        shown = people.table()
        assert shown["match"] == report["match"]
        assert shown["hand"]["score"] == report["hands"][-1]["score"]
        assert len(report["hands"]) == hands
    finally:
        rig.close()
