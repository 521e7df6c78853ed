"""What a table tells its club (docs/club-protocol.md), built from what it journals.

The builders here decide what leaves the table: an event in its public form only
(``engine.view.public_event``: no hidden card, no free text) until its hand has ended, and
then the whole hand, as journaled, in a ``reveal``. They never write or send anything: the
controller hands their messages to the journal, which queues them in the outbox with the
records they come from (``outbox.py``); ``match``, ``seq`` and ``at`` are added there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from engine.log import Referee
from engine.options import options_to_dict
from engine.view import public_event

VERSION = 1  # the protocol's version (docs/club-protocol.md)
START_FIELDS = ("score", "horses", "chips", "pool")  # a match's state as the table log's ``start`` gives it

Message = dict[str, Any]
SeatNames = Callable[[int], Sequence[str]]  # the seat names the table uses, for a number of seats


@dataclass(frozen=True, slots=True)
class Mark:
    """The match just before an event: enough to tell what the event changed."""

    hands: int
    version: int
    over: bool


def mark(referee: Referee) -> Mark:
    hand = referee.match.current
    if hand is None:
        return Mark(0, -1, False)
    return Mark(len(referee.match.hands), hand.version, hand.is_over())


class HandSoFar(Protocol):
    def hand_so_far(self, match_id: int) -> tuple[int, list[dict[str, Any]]]:
        """The index of the match's last journaled deal and the events from it on."""


class ClubMessages:
    """The messages of one table of one club."""

    def __init__(self, club: str, table: str, seat_names: SeatNames) -> None:
        self.club, self.table = club, table
        self.seat_names = seat_names

    def _message(self, kind: str, **fields: Any) -> Message:
        return {"v": VERSION, "club": self.club, "table": self.table, "kind": kind, **fields}

    def match(self, referee: Referee, start: Mapping[str, Any] | None) -> list[Message]:
        """A match has begun (``referee``: its referee, before any event)."""
        match = referee.match
        return [
            self._message(
                "match",
                game=match.game.name,
                players=match.players,
                options=options_to_dict(match.options),
                start=dict(start) if start else None,
                seats=list(self.seat_names(match.players)),
            )
        ]

    def event(
        self, referee: Referee, before: Mark, index: int, stored: Mapping[str, Any], journal: HandSoFar, match_id: int
    ) -> list[Message]:
        """The messages of one event the referee has just applied (``before``: the match before
        it), to be journaled at ``index``: its public form, and the hand's reveal and result if
        it ended the hand."""
        after = mark(referee)
        applied = after != before
        public = public_event(referee.match.game.name, stored, applied=applied)
        messages = [self._message("event", entry=index, hand=after.hands, event=public)]
        if after.over and not before.over:
            messages += self._hand_end(referee, index, stored, journal, match_id, after.hands)
        return messages

    def _hand_end(
        self, referee: Referee, index: int, stored: Mapping[str, Any], journal: HandSoFar, match_id: int, hand: int
    ) -> list[Message]:
        if stored.get("type") == "deal":  # a hand over as soon as it was dealt
            first, events = index, [dict(stored)]
        else:
            first, earlier = journal.hand_so_far(match_id)
            events = [*earlier, dict(stored)]
        standing = referee.match.standing
        return [
            self._message("reveal", hand=hand, entries=list(range(first, index + 1)), events=events),
            self._message("result", hand=hand, score=start_shape(standing.report()), over=standing.over),
        ]


def start_shape(report: Mapping[str, Any]) -> dict[str, Any]:
    """A match's standing as the table log's ``start`` gives it (Fifty-Six counts chips, not score)."""
    shape = {name: report[name] for name in START_FIELDS if name in report}
    if "chips" in shape:
        del shape["score"]
    return shape


def status(club: str, table: str, state: Mapping[str, Any]) -> Message:
    """The table's retained status from its public state (``Runtime.public_table``)."""
    hand = state.get("hand") or {}
    to_act = hand.get("to_act")
    names = (state.get("seat_names") or {}).get("names") or []
    return {
        "v": VERSION,
        "club": club,
        "table": table,
        "match": state.get("match_id"),
        "game": state.get("game"),
        "hand": hand.get("number"),
        "to_act": names[to_act] if isinstance(to_act, int) and 0 <= to_act < len(names) else None,
        "paused": state.get("paused") is not None,
        "held": bool(state.get("holds")),
        "score": (state.get("match") or {}).get("score"),
        "online": True,
        "at": now(),
    }


def offline(club: str, table: str) -> Message:
    """The status a table leaves behind: its last will, and what it says when it stops."""
    return {"v": VERSION, "club": club, "table": table, "online": False}


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
