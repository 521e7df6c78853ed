"""A long random soak of the engine; `SOAK_HANDS` sets its length (CI runs a bounded one)."""

from __future__ import annotations

import os
import random

import pytest

from engine.actions import Play
from engine.games import GAMES
from engine.log import dumps, loads, replay
from simulators.players import RandomPlayer
from simulators.table import SimulatedTable


@pytest.mark.soak
@pytest.mark.parametrize("game", sorted(GAMES))
def test_long_random_matches_replay_exactly(game):
    hands = int(os.environ.get("SOAK_HANDS", "5000"))
    seed, played = 0, 0
    while played < hands:
        table = SimulatedTable(GAMES[game], seed=seed)
        table.players = [RandomPlayer(random.Random(seed * 10 + s)) for s in range(table.match.players)]
        table.play(min(200, hands - played))
        played += len(table.match.hands)
        for hand in table.match.hands:
            cards = [a.card for _, a in hand.moves if isinstance(a, Play)]
            assert len(cards) == sum(len(t.cards) for t in hand.tricks) + len(hand.current_trick)
        assert replay(loads(dumps(table.log()))).report() == replay(table.log()).report()
        seed += 1
