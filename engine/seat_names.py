"""The names the table gives its seats: the ones the players chose, or the compass points.

Seats are numbered from 0 clockwise as seen from above, seat 0 at the top of every drawing of
the table (the page's felt, the printed mat's labels). Whatever a person reads (the page, its
alerts, the terminal, the mat, a violation's sentence) names a seat through this module, so a
seat is called the same everywhere. A seat nobody named is its compass point, after where it
sits around the table: North, East, South and West with four players, North, North-east,
South-east, South, South-west and North-west with six.

A chosen name is checked here, once, for every way it reaches the table (:func:`check_names`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import EngineError

MAX_SEATS = 8  # the dealing machine's slots: no game seats more
MAX_NAME = 16  # fits a seat's label on a phone and a column of the score table

# Where each seat sits, for each number of seats: clockwise from the top, evenly spaced.
_COMPASS: dict[int, tuple[str, ...]] = {
    1: ("North",),
    2: ("North", "South"),
    3: ("North", "South-east", "South-west"),
    4: ("North", "East", "South", "West"),
    5: ("North", "East", "South-east", "South-west", "West"),
    6: ("North", "North-east", "South-east", "South", "South-west", "North-west"),
    7: ("North", "North-east", "East", "South-east", "South-west", "West", "North-west"),
    8: ("North", "North-east", "East", "South-east", "South", "South-west", "West", "North-west"),
}
_INITIALS = {"North": "N", "East": "E", "South": "S", "West": "W"}


class SeatNameError(EngineError, ValueError):
    """A chosen seat name the table cannot use; the message names the seat and the fault."""


def initials(name: str) -> str:
    """A compass point's initials ("North-east" -> "NE"), for the score table's team names."""
    return "".join(_INITIALS[part.capitalize()] for part in name.split("-"))


# A chosen name may not be a compass point (or its initials): it would be another seat's name.
_RESERVED = frozenset(word.lower() for names in _COMPASS.values() for name in names for word in (name, initials(name)))


def compass(players: int) -> tuple[str, ...]:
    """The compass names of ``players`` seats."""
    if players not in _COMPASS:
        raise SeatNameError(f"a table has 1 to {MAX_SEATS} seats, not {players}")
    return _COMPASS[players]


def check_names(names: Sequence[str]) -> tuple[str, ...]:
    """The chosen names, trimmed ("" for a seat left to its compass point); raise
    :class:`SeatNameError` naming the first seat whose name cannot be used."""
    if len(names) > MAX_SEATS:
        raise SeatNameError(f"a table has at most {MAX_SEATS} seats: {len(names)} names were given")
    out: list[str] = []
    for seat, raw in enumerate(names):
        name = " ".join(raw.split())
        _check_one(seat, name, out)
        out.append(name)
    return tuple(out)


def _check_one(seat: int, name: str, earlier: Sequence[str]) -> None:
    if not name:
        return
    if len(name) > MAX_NAME:
        raise SeatNameError(f"seat {seat}'s name is {len(name)} characters long: at most {MAX_NAME}")
    if any(unicodedata.category(ch)[0] == "C" for ch in name):
        raise SeatNameError(f"seat {seat}'s name holds a control character: only letters, digits, spaces and signs")
    if name.lower() in _RESERVED:
        raise SeatNameError(f"seat {seat} cannot be called {name!r}: that is a compass point, another seat's name")
    same = [s for s, other in enumerate(earlier) if other.lower() == name.lower()]
    if same:
        raise SeatNameError(f"seat {seat} cannot be called {name!r}: seat {same[0]} has that name")


@dataclass(frozen=True, slots=True)
class SeatNames:
    """One name per seat of a table, and the names of its two teams (even and odd seats)."""

    names: tuple[str, ...]
    chosen: bool = False  # whether any seat was named by the players

    @classmethod
    def of(cls, players: int, chosen: Sequence[str] = ()) -> SeatNames:
        """The table's names: each chosen name (already checked), else the seat's compass point."""
        points = compass(players)
        picked = [chosen[s] if s < len(chosen) and chosen[s] else "" for s in range(players)]
        names = tuple(name or point for name, point in zip(picked, points, strict=True))
        return cls(names, any(picked))

    def __call__(self, seat: int | None) -> str:
        """The seat's name; "nobody" for no seat."""
        if seat is None:
            return "nobody"
        return self.names[seat]

    def short(self, seat: int | None) -> str:
        """The seat's name where room is short: a compass point by its initials ("NE")."""
        if seat is None:
            return "-"
        name = self.names[seat]
        return initials(name) if name.lower() in _RESERVED else name

    def team(self, team: int) -> str:
        """A partnership's name: its seats' names ("Anna–Carl"), or the compass initials ("N–S")."""
        seats = range(team, len(self.names), 2)
        parts = [self.names[s] if self.chosen else self.short(s) for s in seats]
        return ("–" if len(parts) == 2 else "·").join(parts)

    def teams(self) -> tuple[str, str]:
        return self.team(0), self.team(1)

    def group(self, seats: Sequence[int]) -> str:
        """Several seats in words: "Anna, Carl and Eve"."""
        names = [self.names[s] for s in seats]
        return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
