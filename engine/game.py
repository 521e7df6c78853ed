"""What a game is: its pack, seats, options, call vocabulary, hands and match scoring.

Each game module defines one :class:`Game` subclass and one :class:`~engine.hand.Hand`
subclass; :mod:`engine.games` registers them by name. The :class:`Standing` of a match
(score, who has won, who deals next) is a frozen value that each finished hand folds into.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.actions import Call, CallKind
from engine.cards import Card
from engine.errors import IllegalAction, InvalidStart
from engine.hand import Deal, Hand
from engine.options import is_whole_number, parse_options, shown

# The most a score, balance or pool carried over from a score sheet may hold, either way. No
# sheet holds more, and a match that starts within it stays far inside the integers that every
# JSON reader (a browser, Python's own printing) holds exactly.
SCORE_LIMIT = 10**9


@dataclass(frozen=True, slots=True)
class Standing:
    """The state of a match between hands."""

    score: tuple[int, ...]
    next_dealer: int | None = None  # None: nobody has dealt yet, the first deal names its dealer
    over: bool = False
    winner: int | None = None
    hands_played: int = 0

    def report(self) -> dict[str, Any]:
        """The ``match`` object of the referee's JSON result."""
        return {"score": list(self.score), "over": self.over, "winner": self.winner}


@dataclass(frozen=True, slots=True)
class DealShape:
    """How many cards each seat receives, and how many are left over."""

    per_seat: tuple[int, ...]
    rest: int


class Game(ABC):
    """A game's rules at the level of the match. Subclasses are stateless singletons."""

    name: ClassVar[str]
    title: ClassVar[str]
    pack: ClassVar[tuple[Card, ...]]
    seat_counts: ClassVar[tuple[int, ...]]
    options_type: ClassVar[type[Any]]
    events: ClassVar[frozenset[str]] = frozenset({"deal", "call", "play", "undo"})

    def options(self, raw: Mapping[str, Any] | None = None, players: int | None = None) -> Any:
        """Validated options from a mapping (unknown names and bad values raise)."""
        return parse_options(self.options_type, raw)

    def default_players(self) -> int:
        return self.seat_counts[0]

    @abstractmethod
    def parse_call(self, text: str, options: Any) -> Call:
        """The call a text stands for under these options; raise BadNotation otherwise."""

    @abstractmethod
    def deal_shape(self, players: int, options: Any, dealer: int) -> DealShape: ...

    @abstractmethod
    def new_hand(self, deal: Deal, options: Any, standing: Standing) -> Hand: ...

    @abstractmethod
    def start(self, players: int, options: Any, start: Mapping[str, Any] | None) -> Standing:
        """The standing before the first hand, optionally carried over from a score sheet."""

    @abstractmethod
    def after_hand(self, standing: Standing, hand: Hand) -> Standing:
        """Fold a finished hand into the standing: score, match end, next dealer."""


def start_fields(start: Mapping[str, Any] | None, allowed: set[str]) -> dict[str, Any]:
    """Check a ``start`` object's keys; return it as a dict."""
    if start is None:
        return {}
    if not isinstance(start, Mapping):
        raise InvalidStart("'start' must be an object")
    unknown = sorted(set(start) - allowed)
    if unknown:
        takes = ", ".join(sorted(allowed))
        raise InvalidStart(
            f"'start' has {', '.join(map(repr, unknown))}, which this game does not use (it takes {takes})"
        )
    return dict(start)


def int_list(value: Any, name: str, length: int, low: int, high: int) -> tuple[int, ...]:
    """Validate a list of ``length`` whole numbers from ``low`` to ``high``."""
    if (
        not isinstance(value, list)
        or len(value) != length
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise InvalidStart(f"'start.{name}' must be a list of {length} whole numbers")
    for v in value:
        if not is_whole_number(v, low, high):
            raise InvalidStart(f"'start.{name}' values must be from {low} to {high}, not {shown(v)}")
    return tuple(value)


def start_count(value: Any, name: str, low: int, high: int, unit: str = "") -> int:
    """Validate one whole number of a ``start`` object, from ``low`` to ``high``."""
    if not is_whole_number(value, low, high):
        what = f"a whole number{' of ' + unit if unit else ''}"
        raise InvalidStart(f"'start.{name}' must be {what} from {low} to {high}, not {shown(value)}")
    return int(value)


def refused_call(seat: int | None, call: Call, standing: str | None) -> IllegalAction:
    """Why an auction refuses a call: a bid not above the standing bid, or a call it does not
    allow now (the auctions that rank bids on one ladder: Poley, Shelem, Bid Whist)."""
    if call.kind is CallKind.BID and standing is not None:
        return IllegalAction(
            "bid-too-low",
            f"seat {seat} must bid higher than {standing} or pass",
            seat,
            {"call": call.text, "standing": standing},
        )
    return IllegalAction("call-not-allowed", f"seat {seat} may not call {call.text} now", seat, {"call": call.text})
