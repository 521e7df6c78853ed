"""What a simulated player is, and the simplest one."""

from __future__ import annotations

import random
from typing import Protocol

from engine.actions import Action
from engine.hand import Hand


class Player(Protocol):
    def choose(self, hand: Hand, seat: int) -> Action: ...


class RandomPlayer:
    """Any legal action, uniformly at random. Game players refine the calls and keep this play."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, hand: Hand, seat: int) -> Action:
        legal = hand.legal_actions()
        return legal[self.rng.randrange(len(legal))]
