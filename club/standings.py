"""Standings across tables and rounds: who leads each match, and match points summed per entrant.

An entrant is a pair, a team or a player, as the round's seating names them (a side of a table:
a team in a partnership game, a seat in Nap); a match no round placed counts for the names its
seats were given. Each match gives 2 points to the side that won it (the engine's winner once the
match is over), 1 to each side sharing the lead, and 0 to the others. A match still being played
counts as it stands: the side leading now (the most score; in Poley the fewest horses, then the
most score), so the standings are live and become final as the matches end."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Placed:
    """A refereed match and who sat on each of its sides."""

    table: str
    match: int
    game: str
    entrants: tuple[str, ...]  # one per side
    standing: dict[str, Any]  # the replay's `match` report
    round: int | None = None


@dataclass
class Line:
    entrant: str
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    points: int = 0
    in_play: int = 0  # matches counted as they stand, not over yet

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def leaders(game: str, standing: dict[str, Any]) -> list[int]:
    """The sides leading a match: its winner once over, else the best placed now."""
    if standing.get("over") and standing.get("winner") is not None:
        return [int(standing["winner"])]
    score = list(standing.get("score", []))
    if not score:
        return []
    if game == "poley":  # horses count against a team, and outrank the points towards the next one
        keys = [(-h, s) for h, s in zip(standing.get("horses", [0] * len(score)), score, strict=False)]
    else:
        keys = [(s,) for s in score]
    best = max(keys)
    return [side for side, key in enumerate(keys) if key == best]


def side_names(seats: Sequence[str], sides: int) -> tuple[str, ...]:
    """A side's name from its seats' names (seat s plays on side s mod sides): "anna & carl"."""
    return tuple(" & ".join(seats[s] for s in range(side, len(seats), sides)) for side in range(sides))


def standings(matches: Sequence[Placed]) -> list[Line]:
    """The standings, best first: points, then wins, then name."""
    lines: dict[str, Line] = {}
    for placed in matches:
        top = leaders(placed.game, placed.standing)
        for side, entrant in enumerate(placed.entrants):
            line = lines.setdefault(entrant, Line(entrant))
            _count(line, side, top, bool(placed.standing.get("over")))
    return sorted(lines.values(), key=lambda line: (-line.points, -line.won, line.entrant))


def _count(line: Line, side: int, top: list[int], over: bool) -> None:
    line.played += 1
    line.in_play += 0 if over else 1
    if side in top and len(top) == 1:
        line.won, line.points = line.won + 1, line.points + 2
    elif side in top:
        line.drawn, line.points = line.drawn + 1, line.points + 1
    else:
        line.lost += 1
