"""Rounds: which entrants (pairs, teams or players) sit at which table, on which side, next.

Two ways to move them. A fixed rotation, set before the evening: with two sides a table the
round-robin's circle (everyone meets everyone once in n - 1 rounds), with more (Nap's players)
each side moves on as many tables as its number, as in a Mitchell movement. Swiss: each round
pairs entrants of like standing who have not yet met, best first. An odd entrant out sits the
round out (a bye). Pure functions: the service stores what they return."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

METHODS = ("rotation", "swiss")


class RoundError(ValueError):
    """A round that cannot be seated as asked; the message says why."""


@dataclass(frozen=True, slots=True)
class Seating:
    """One round: for each table, the entrant on each side; and who sits out."""

    tables: dict[str, tuple[str, ...]]
    byes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Plan:
    method: str
    entrants: tuple[str, ...]
    tables: tuple[str, ...]
    sides: int = 2
    seats: int = 4
    met: frozenset[frozenset[str]] = field(default_factory=frozenset)  # who has sat at one table before


def check(plan: Plan) -> None:
    if plan.method not in METHODS:
        raise RoundError(f"unknown method {plan.method!r} (known: {', '.join(METHODS)})")
    if not 2 <= plan.sides <= plan.seats:
        raise RoundError(f"a table of {plan.seats} seats has 2 to {plan.seats} sides, not {plan.sides}")
    if plan.seats % plan.sides:
        raise RoundError(f"{plan.seats} seats do not split into {plan.sides} sides")
    if len(set(plan.entrants)) != len(plan.entrants):
        raise RoundError("an entrant is named twice")
    if len(set(plan.tables)) != len(plan.tables):
        raise RoundError("a table is named twice")
    needed = len(plan.entrants) // plan.sides
    if needed == 0:
        raise RoundError(f"{len(plan.entrants)} entrants cannot fill a table of {plan.sides} sides")
    if needed > len(plan.tables):
        raise RoundError(f"{len(plan.entrants)} entrants need {needed} tables; {len(plan.tables)} were named")


def rotation(plan: Plan, number: int) -> Seating:
    """Round ``number`` (from 1) of the fixed rotation."""
    check(plan)
    if plan.sides == 2:
        return _circle(plan, number - 1)
    return _mitchell(plan, number - 1)


def _circle(plan: Plan, turn: int) -> Seating:
    people: list[str | None] = list(plan.entrants) + ([None] if len(plan.entrants) % 2 else [])
    n = len(people)
    turn %= n - 1
    others = people[1:]
    ring = [people[0], *others[-turn:], *others[:-turn]] if turn else people
    tables: dict[str, tuple[str, ...]] = {}
    byes = []
    for i in range(n // 2):
        pair = (ring[i], ring[n - 1 - i])
        if pair[0] is None or pair[1] is None:
            byes.append(pair[0] or pair[1])
            continue
        a, b = pair if (i + turn) % 2 == 0 else pair[::-1]  # sides alternate from round to round
        tables[plan.tables[len(tables)]] = (a, b)
    return Seating(tables, tuple(str(b) for b in byes))


def _mitchell(plan: Plan, turn: int) -> Seating:
    count = len(plan.entrants) // plan.sides
    seated = plan.entrants[: count * plan.sides]
    tables = {}
    for t in range(count):
        tables[plan.tables[t]] = tuple(
            seated[((t - side * turn) % count) * plan.sides + side] for side in range(plan.sides)
        )
    return Seating(tables, tuple(plan.entrants[count * plan.sides :]))


def swiss(plan: Plan, ranking: Sequence[str]) -> Seating:
    """A Swiss round: entrants in ``ranking`` order (best first; the unranked after, as entered)."""
    check(plan)
    order = [e for e in ranking if e in plan.entrants] + [e for e in plan.entrants if e not in ranking]
    byes: list[str] = []
    while len(order) % plan.sides:
        byes.append(order.pop())  # the lowest placed sits out
    groups = _pairs(order, plan.met) if plan.sides == 2 else _groups(order, plan.sides)
    return Seating({plan.tables[i]: group for i, group in enumerate(groups)}, tuple(byes))


def _pairs(order: list[str], met: frozenset[frozenset[str]]) -> list[tuple[str, ...]]:
    """Best with the next best not yet met (the next best at all when everyone has met)."""
    left, pairs = list(order), []
    while left:
        first = left.pop(0)
        other = next((e for e in left if frozenset((first, e)) not in met), left[0])
        left.remove(other)
        pairs.append((first, other))
    return pairs


def _groups(order: list[str], sides: int) -> list[tuple[str, ...]]:
    return [tuple(order[i : i + sides]) for i in range(0, len(order), sides)]


def met_before(seatings: Sequence[Seating]) -> frozenset[frozenset[str]]:
    """Every two entrants who have sat at one table in these rounds."""
    met = set()
    for seating in seatings:
        for group in seating.tables.values():
            met.update(frozenset((a, b)) for a in group for b in group if a != b)
    return frozenset(met)


def seats_of_side(side: int, sides: int, seats: int) -> list[int]:
    """The seats a side takes at a table: seat s is on side s mod sides (team 0 the even seats)."""
    return list(range(side, seats, sides))
