"""What a player can do: calls in the auction, declarations, discards, swaps, plays.

Actions are frozen values without a seat, like a chess move: the hand knows who is to act.
The engine interns them (one ``Play`` object per card), so comparing and hashing are cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engine.cards import CARDS, Card, Suit


class CallKind(Enum):
    PASS = "pass"
    BID = "bid"
    HOLD = "hold"
    DOUBLE = "double"
    REDOUBLE = "redouble"


@dataclass(frozen=True, slots=True, eq=False)
class Call:
    """An auction call. ``text`` is its notation as the table log writes it ("2H", "pass").

    ``level`` orders the bids of one game (its position on the game's ladder); it is 0 for
    calls that are not bids. Each game interns its calls (``Game.parse_call`` returns the
    same object for the same call), so calls compare by identity, like enum members: that
    keeps the auction's "is this call legal?" check cheap.
    """

    text: str
    kind: CallKind = CallKind.BID
    level: int = 0

    def __str__(self) -> str:
        return self.text


PASS = Call("pass", CallKind.PASS)
HOLD = Call("hold", CallKind.HOLD)
DOUBLE = Call("double", CallKind.DOUBLE)
REDOUBLE = Call("redouble", CallKind.REDOUBLE)


class Direction(Enum):
    HIGH = "high"
    LOW = "low"


@dataclass(frozen=True, slots=True)
class Declare:
    """The declarer names trumps, or (Bid Whist no-trump) the direction."""

    trump: Suit | None = None
    direction: Direction | None = None

    def __str__(self) -> str:
        if self.trump is not None:
            return f"trumps {self.trump.plural}"
        return f"direction {self.direction.value if self.direction else '?'}"


@dataclass(frozen=True, slots=True)
class Discard:
    """The declarer lays away these cards after taking the widow or kitty."""

    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return "discard " + " ".join(str(c) for c in self.cards)


@dataclass(frozen=True, slots=True)
class JokerSwap:
    """Bid Whist no-trump: a joker's holder gives it up for a kitty card, or declines."""

    joker: Card
    card: Card | None

    def __str__(self) -> str:
        return f"swap {self.joker} for {self.card}" if self.card else f"keep {self.joker}"


@dataclass(frozen=True, slots=True)
class Play:
    """A card played to the trick."""

    card: Card

    def __str__(self) -> str:
        return str(self.card)


Action = Call | Declare | Discard | JokerSwap | Play

PLAYS: tuple[Play, ...] = tuple(Play(c) for c in CARDS)


def play(card: Card) -> Play:
    """The interned ``Play`` of a card."""
    return PLAYS[card.index]
