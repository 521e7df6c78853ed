"""Errors raised by the engine.

An :class:`IllegalAction` is something a player may not do now: the referee records it as a
violation and the game goes on. The other errors mean the input itself is wrong (a card the
seat does not hold, a code that is not a card), which a table log must never contain.
"""

from __future__ import annotations

from collections.abc import Mapping

# A fact of a violation: a seat, a count, a card or call as the log writes it, a suit letter,
# or a list of seats (a team).
Fact = int | str | tuple[int, ...] | None


class EngineError(Exception):
    """Base of every engine error."""


class BadNotation(EngineError, ValueError):
    """Text that is not a card, a call or an option value of the game."""


class InvalidOption(EngineError, ValueError):
    """An unknown rule option, or a value it does not take."""


class CardNotHeld(EngineError, ValueError):
    """A seat played, discarded or gave up a card it does not hold."""


class IllegalAction(EngineError, ValueError):
    """An action the rules forbid at this moment.

    ``rule`` is a short kebab-case name ("must-follow-suit"); the message explains it in the
    table log's words ("seat 2 holds hearts and must follow suit"). ``facts`` are the same
    explanation as values (the card played, the suit led, the standing bid, whose turn it is),
    from which :mod:`engine.violation_words` builds the sentence people read at the table, in
    the seat names the players chose. Facts are public: only what the message says.
    """

    def __init__(
        self, rule: str, message: str, seat: int | None = None, facts: Mapping[str, Fact] | None = None
    ) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.seat = seat
        self.facts: Mapping[str, Fact] = facts or {}


class NotYourTurn(IllegalAction):
    """A seat acted while another seat was expected."""


class DealError(EngineError, ValueError):
    """A deal the match cannot accept: wrong dealer, wrong hand sizes, a hand still going on."""


class DeckMismatch(DealError):
    """The cards dealt are not exactly the game's pack; the message names the cards."""


class MatchOver(EngineError):
    """An action after the match has ended."""


class InvalidStart(EngineError, ValueError):
    """A match start state (carried over from a score sheet) that the game cannot take."""
