"""Random legal playouts through the engine's public API.

Each hand is dealt through :meth:`Match.deal` (pack checked, dealer rotation), then every
action, auction included, is chosen at random from ``legal_actions()`` and applied with
``push()``, exactly as a referee or a search would drive the engine. The packs are shuffled
before the clock starts: shuffling is the harness's work, not the engine's. Single thread;
the figure reported is the median of several runs.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.actions import Play
from engine.cards import Card
from engine.game import Game
from engine.match import Match


@dataclass(frozen=True, slots=True)
class PlayoutRun:
    hands: int
    cards: int
    queries: int
    seconds: float


@dataclass(frozen=True, slots=True)
class PlayoutFigures:
    game: str
    runs: int
    hands_per_run: int
    cards_per_s: float
    queries_per_s: float
    hands_per_s: float
    cards_per_hand: float

    def to_json(self) -> dict[str, float | int | str]:
        return {
            "game": self.game,
            "runs": self.runs,
            "hands_per_run": self.hands_per_run,
            "cards_per_s": round(self.cards_per_s),
            "legal_queries_per_s": round(self.queries_per_s),
            "hands_per_s": round(self.hands_per_s),
            "cards_per_hand": round(self.cards_per_hand, 2),
        }


def random_deals(game: Game, hands: int, rng: random.Random) -> list[list[Card]]:
    """Shuffled packs for ``hands`` hands: made before the clock starts (harness, not engine)."""
    deals = []
    pack = list(game.pack)
    for _ in range(hands):
        rng.shuffle(pack)
        deals.append(list(pack))
    return deals


def playout_run(game: Game, hands: int, seed: int) -> PlayoutRun:
    """Play ``hands`` random legal hands; count cards played and legal-action queries.

    The clock covers everything the engine does: ``Match.deal`` (pack check, dealer
    rotation, the new hand), every ``legal_actions()`` and ``push()``, and the folding of
    each result into the match standing.
    """
    rng = random.Random(seed)
    deals = random_deals(game, hands, rng)
    random_unit = rng.random  # faster than rng.choice, and just as uniform for these sizes
    match = Match(game)
    cards = queries = 0
    started = time.perf_counter()
    for pack in deals:
        standing = match.standing
        if standing.over:
            match = Match(game)
            standing = match.standing
        dealer = 0 if standing.next_dealer is None else standing.next_dealer
        shape = game.deal_shape(match.players, match.options, dealer)
        split, at = [], 0
        for size in shape.per_seat:
            split.append(pack[at : at + size])
            at += size
        hand = match.deal(split, pack[at:], dealer)  # a dealer that agrees with the rotation
        while not hand.is_over():
            legal = hand.legal_actions()
            queries += 1
            action = legal[int(random_unit() * len(legal))]
            hand.push(action)
            if type(action) is Play:
                cards += 1
    return PlayoutRun(hands, cards, queries, time.perf_counter() - started)


def playout_figures(game: Game, runs: int = 5, hands: int = 4000, seed: int = 1) -> PlayoutFigures:
    results = [playout_run(game, hands, seed + i) for i in range(runs)]

    def median(rate: Callable[[PlayoutRun], float]) -> float:
        return statistics.median(rate(r) for r in results)

    return PlayoutFigures(
        game=game.name,
        runs=runs,
        hands_per_run=hands,
        cards_per_s=median(lambda r: r.cards / r.seconds),
        queries_per_s=median(lambda r: r.queries / r.seconds),
        hands_per_s=median(lambda r: r.hands / r.seconds),
        cards_per_hand=median(lambda r: r.cards / r.hands),
    )
