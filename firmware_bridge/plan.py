"""What a deal is made of, in plain values, and the host's tally of it (pure, no I/O).

A :class:`DealPlan` gives the pack as card ids (a card appears as many times as the pack holds
it: twice in Fifty-Six), the cards each seat receives and how many go to the rest, and
optionally a predetermined deal. The :class:`Tally` chooses each read card's slot and checks
the pack as it is read: a card foreign to the pack or one copy too many raises
:class:`DeckMismatch` naming it; at the end, :meth:`Tally.missing_message` names what never came.

Randomness: each card goes to a slot drawn with probability proportional to the cards that
slot still needs (``randrange`` over the total need: exact, no float rounding). Whatever the
order of the stack, every assignment of the cards to slots with the right counts is then
equally likely, because the draw never looks at which card it is placing.
"""

from __future__ import annotations

import secrets
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from firmware_bridge.errors import BridgeError
from firmware_bridge.protocol import REST, SEATS


class CardNames(Protocol):
    """How cards are named in messages to people (the controller supplies real names)."""

    def name(self, card: int) -> str: ...  # "the 9 of hearts (9H)"

    def plural(self, card: int) -> str: ...  # "queens of spades (QS)"


class NumberedNames:
    """Fallback names when nobody supplied better: "card 38"."""

    def name(self, card: int) -> str:
        return f"card {card}"

    def plural(self, card: int) -> str:
        return f"copies of card {card}"


class DeckMismatch(BridgeError, ValueError):
    """The pack in the hopper is not the game's pack; the message names the cards."""


@dataclass(frozen=True)
class DealPlan:
    pack: tuple[int, ...]
    seats: tuple[int, ...]  # cards for each seat (a seat that sits out gets 0)
    rest: int = 0
    fixed: tuple[tuple[int, ...], ...] | None = None  # a predetermined deal: each seat's cards, then the rest
    game: str = "game's"  # the game's title, as in "the Poley pack"
    names: CardNames = field(default_factory=NumberedNames)

    def __post_init__(self) -> None:
        if len(self.seats) > SEATS:
            raise ValueError(f"the machine has {SEATS} seat slots, not {len(self.seats)}")
        if sum(self.seats) + self.rest != len(self.pack):
            raise ValueError(f"{sum(self.seats)} cards to seats and {self.rest} to the rest, from {len(self.pack)}")
        if self.fixed is not None:
            self._check_fixed(self.fixed)

    def _check_fixed(self, fixed: tuple[tuple[int, ...], ...]) -> None:
        sizes = tuple(len(h) for h in fixed)
        if sizes != (*self.seats, self.rest):
            raise ValueError(f"the predetermined deal has {sizes} cards, the game deals {(*self.seats, self.rest)}")
        if Counter(c for h in fixed for c in h) != Counter(self.pack):
            raise ValueError("the predetermined deal is not made of the game's pack")

    def destinations(self) -> dict[int, int]:
        """Cards needed per machine destination (seat numbers, and REST)."""
        need = dict(enumerate(self.seats))
        if self.rest:
            need[REST] = self.rest
        return need


_WORDS = ("no", "one", "two", "three", "four", "five", "six")


def _count(n: int) -> str:
    return _WORDS[n] if n < len(_WORDS) else str(n)


class Tally:
    """The host's running account of a deal: what each slot still needs, what has been read."""

    def __init__(self, plan: DealPlan, rng: secrets.SystemRandom | None = None) -> None:
        self.plan = plan
        self.rng = rng or secrets.SystemRandom()
        self.need = plan.destinations()
        self.in_pack = Counter(plan.pack)
        self.counted: Counter[int] = Counter()  # cards routed to a seat or the rest, not given back
        self._fixed: dict[int, list[int]] = {}
        if plan.fixed is not None:
            dests = [*range(len(plan.seats)), REST]
            for dest, cards in zip(dests, plan.fixed, strict=True):
                for card in cards:
                    self._fixed.setdefault(card, []).append(dest)

    def choose(self, card: int) -> int:
        """The destination for a card just read; raise DeckMismatch if it cannot be in the pack."""
        self._verify(card)
        dest = self._fixed[card].pop() if self.plan.fixed is not None else self._draw()
        self.need[dest] -= 1
        self.counted[card] += 1
        return dest

    def _verify(self, card: int) -> None:
        copies = self.in_pack[card]
        if copies == 0:
            raise DeckMismatch(f"{self.plan.names.name(card)} does not belong in the {self.plan.game} pack")
        if self.counted[card] >= copies:
            n = copies + 1
            raise DeckMismatch(
                f"{_count(n)} {self.plan.names.plural(card)}: the {self.plan.game} pack has {_count(copies)}"
            )

    def _draw(self) -> int:
        pick = self.rng.randrange(sum(self.need.values()))
        for dest, left in self.need.items():
            if pick < left:
                return dest
            pick -= left
        raise AssertionError("unreachable: pick < total need")

    def give_back(self, card: int, dest: int) -> None:
        """A card routed to ``dest`` never got there (jam cleared, purged): it will be read again."""
        self.need[dest] += 1
        self.counted[card] -= 1
        if self.plan.fixed is not None:
            self._fixed.setdefault(card, []).append(dest)

    def left(self) -> int:
        return sum(self.need.values())

    def missing(self) -> list[tuple[int, int]]:
        """(card, copies not yet dealt), in pack order."""
        gone = Counter(self.in_pack)
        gone.subtract(self.counted)
        return [(card, n) for card, n in sorted(gone.items()) if n > 0]

    def missing_message(self) -> str:
        parts = []
        for card, n in self.missing():
            copies = self.in_pack[card]
            if copies == 1:
                parts.append(self.plan.names.name(card))
            elif n == copies:
                parts.append(f"all {_count(copies)} {self.plan.names.plural(card)}")
            else:
                parts.append(f"{_count(n)} of the {_count(copies)} {self.plan.names.plural(card)}")
        if not parts:
            return ""
        verb = "is" if len(parts) == 1 and not parts[0].startswith("all") else "are"
        listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        return f"{listed} {verb} missing"
