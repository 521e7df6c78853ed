"""The engine-only simulated table (``croupier sim --engine-only``): it shuffles and deals, and
simulated players call and play directly on the engine, for quick runs of many hands.

The live simulated table, with the dealing machine on a pty, the camera's frames and the people
at the mat, is ``controller/sim_table.py`` with ``simulators/people.py`` and
``simulators/live_scene.py``. Here, the deal comes from a seeded shuffle and the players act
directly on the engine. Everything that happens is reported to an observer, so the
command line can show the match as it is played, and the match's table log replays to the
same result.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.actions import Action
from engine.cards import Card
from engine.game import Game
from engine.hand import Hand
from engine.log import TableLog, log_of_match
from engine.match import Match
from simulators.players import Player, player_for


@dataclass(frozen=True, slots=True)
class TableEvent:
    """Something the observer may want to show: a deal, an action, a finished hand."""

    kind: str  # "deal", "action", "hand-over"
    hand: Hand
    seat: int | None = None
    action: Action | None = None


Observer = Callable[[TableEvent], None]


class SimulatedTable:
    def __init__(
        self,
        game: Game,
        options: Any = None,
        players: int | None = None,
        seed: int | None = None,
        start: Mapping[str, Any] | None = None,
    ) -> None:
        self.rng = random.Random(seed)
        self.match = Match(game, options, players, start)
        self.start = start
        self.players: list[Player] = [
            player_for(game.name, random.Random(self.rng.getrandbits(64))) for _ in range(self.match.players)
        ]
        self.first_dealer = self.rng.randrange(self.match.players)

    def shuffle_and_deal(self) -> tuple[list[list[Card]], list[Card]]:
        """A uniformly random deal of the game's pack in the game's shape."""
        pack = list(self.match.game.pack)
        self.rng.shuffle(pack)
        dealer = self.match.next_dealer()
        shape = self.match.game.deal_shape(
            self.match.players, self.match.options, self.first_dealer if dealer is None else dealer
        )
        hands, position = [], 0
        for size in shape.per_seat:
            hands.append(pack[position : position + size])
            position += size
        return hands, pack[position:]

    def play_hand(self, observer: Observer | None = None) -> Hand:
        hands, rest = self.shuffle_and_deal()
        dealer = self.first_dealer if self.match.next_dealer() is None else None
        hand = self.match.deal(hands, rest, dealer)
        _notify(observer, TableEvent("deal", hand))
        while not hand.is_over():
            seat = hand.to_act
            assert seat is not None
            action = self.players[seat].choose(hand, seat)
            hand.push(action, seat)
            _notify(observer, TableEvent("action", hand, seat, action))
        _notify(observer, TableEvent("hand-over", hand))
        return hand

    def play(self, hands: int | None = None, observer: Observer | None = None) -> Match:
        """Play until the match is over, or ``hands`` hands have been played."""
        played = 0
        while not self.match.standing.over and (hands is None or played < hands):
            self.play_hand(observer)
            played += 1
        return self.match

    def log(self) -> TableLog:
        return log_of_match(self.match, self.start)


def _notify(observer: Observer | None, event: TableEvent) -> None:
    if observer is not None:
        observer(event)
