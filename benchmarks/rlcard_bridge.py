"""A reference point: RLCard's bridge, random legal playouts, in the same process.

RLCard (``pip install 'croupier[bench]'``) is a widely used card-game library for
reinforcement learning. Its bridge game is the closest to ours: four hands of 13 cards, an
auction, then 52 cards of trick play. Like :mod:`benchmarks.engine`, this drives the game
object directly (``init_game``, ``judger.get_legal_actions()``, ``step``), choosing every
action at random among the legal ones, and counts the cards played per second. If RLCard is
not importable the comparison is skipped, and says so.
"""

from __future__ import annotations

import importlib.util
import random
import statistics
import time
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ReferenceFigures:
    name: str
    runs: int
    hands_per_run: int
    cards_per_s: float


def rlcard_available() -> bool:
    return importlib.util.find_spec("rlcard") is not None


def rlcard_bridge_figures(runs: int = 3, hands: int = 200, seed: int = 1) -> ReferenceFigures | None:
    """Median cards/s of RLCard bridge random playouts, or None if RLCard is not installed."""
    if not rlcard_available():
        return None
    from rlcard.games.bridge.game import BridgeGame  # type: ignore[import-untyped]
    from rlcard.games.bridge.utils.action_event import PlayCardAction  # type: ignore[import-untyped]

    rates = [_run(BridgeGame, PlayCardAction, hands, seed + i) for i in range(runs)]
    return ReferenceFigures("rlcard bridge", runs, hands, statistics.median(rates))


def _run(game_type: Any, play_type: Any, hands: int, seed: int) -> float:
    rng = random.Random(seed)
    game = game_type()
    game.np_random.seed(seed)
    cards = 0
    started = time.perf_counter()
    for _ in range(hands):
        game.init_game()
        while not game.is_over():
            legal = game.judger.get_legal_actions()
            action = legal[int(rng.random() * len(legal))]
            game.step(action)
            if isinstance(action, play_type):
                cards += 1
    return cards / (time.perf_counter() - started)
