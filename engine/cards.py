"""Cards and packs.

Inside the engine a card is a small integer, its *index*: ``suit * 13 + rank`` for the 52
ordinary cards (rank 0 is the two, 12 the ace) and 52, 53 for the big and little jokers. A
hand is a bitmask of indices. :class:`Card` objects and the two-character notation
(``"TH"``, ``"BJ"``) are for the edges: logs, the command line, the web page.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

from engine.errors import BadNotation


class Suit(IntEnum):
    """The four suits, in the order their indices use."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "CDHS"[self]

    @property
    def plural(self) -> str:
        return ("clubs", "diamonds", "hearts", "spades")[self]

    @classmethod
    def from_letter(cls, text: str) -> Suit:
        index = "CDHS".find(text.upper()) if len(text) == 1 else -1
        if index < 0:
            raise BadNotation(f"{text!r} is not a suit (use S, H, D or C)")
        return cls(index)


class Rank(IntEnum):
    """Ranks from the two (0) to the ace (12)."""

    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12

    @property
    def letter(self) -> str:
        return RANK_LETTERS[self]

    @property
    def word(self) -> str:
        return RANK_WORDS[self]


RANK_LETTERS = "23456789TJQKA"
RANK_WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace"]
BIG_JOKER = 52
LITTLE_JOKER = 53
CARD_COUNT = 54


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card, identified by its index (see the module docstring)."""

    index: int

    def __hash__(self) -> int:
        return self.index

    @property
    def is_joker(self) -> bool:
        return self.index >= BIG_JOKER

    @property
    def suit(self) -> Suit | None:
        return None if self.is_joker else Suit(self.index // 13)

    @property
    def rank(self) -> Rank | None:
        return None if self.is_joker else Rank(self.index % 13)

    @property
    def bit(self) -> int:
        return 1 << self.index

    @classmethod
    def from_str(cls, text: str) -> Card:
        """Parse ``"TH"``, ``"qs"``, ``"BJ"``; raise :class:`BadNotation` otherwise."""
        card = _BY_CODE.get(text.upper()) if isinstance(text, str) else None
        if card is None:
            raise BadNotation(f"{text!r} is not a card code")
        return card

    def name(self) -> str:
        """The card in words: "the ten of hearts", "the big joker"."""
        if self.index == BIG_JOKER:
            return "the big joker"
        if self.index == LITTLE_JOKER:
            return "the little joker"
        assert self.rank is not None and self.suit is not None
        return f"the {self.rank.word} of {self.suit.plural}"

    def __str__(self) -> str:
        return CODES[self.index]

    def __repr__(self) -> str:
        return f"Card({CODES[self.index]!r})"


CODES: tuple[str, ...] = (*(RANK_LETTERS[i % 13] + "CDHS"[i // 13] for i in range(52)), "BJ", "LJ")
CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(CARD_COUNT))
_BY_CODE = {code: CARDS[i] for i, code in enumerate(CODES)}


def card(code: str) -> Card:
    """Shorthand for :meth:`Card.from_str`."""
    return Card.from_str(code)


def cards(codes: str | Iterable[str]) -> list[Card]:
    """Parse ``"AS KS 7D"`` or an iterable of codes."""
    items = codes.split() if isinstance(codes, str) else codes
    return [Card.from_str(c) for c in items]


def mask_of(items: Iterable[Card]) -> int:
    mask = 0
    for c in items:
        mask |= 1 << c.index
    return mask


def indices(mask: int) -> list[int]:
    """The card indices set in a bitmask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def cards_of(mask: int) -> list[Card]:
    return [CARDS[i] for i in indices(mask)]


def suit_mask(suit: Suit) -> int:
    return 0x1FFF << (13 * suit)


def sort_for_display(items: Iterable[Card]) -> list[Card]:
    """Spades, hearts, diamonds, clubs, each from the ace down; jokers first."""
    return sorted(items, key=lambda c: (-c.index if c.is_joker else 0, -(c.suit or 0), -(c.rank or 0)))


# --- packs --------------------------------------------------------------------------------


def _pack(codes: str) -> tuple[Card, ...]:
    return tuple(cards(codes))


def _ranks_in_suits(ranks: str, suits: str) -> str:
    return " ".join(r + s for s in suits for r in ranks)


STANDARD_52: tuple[Card, ...] = CARDS[:52]
WITH_JOKERS_54: tuple[Card, ...] = CARDS
POLEY_22: tuple[Card, ...] = _pack(_ranks_in_suits("AKQJT98", "CHS") + " 7D")
FIFTY_SIX_48: tuple[Card, ...] = _pack(_ranks_in_suits("J9ATKQ", "SHDC")) * 2


@dataclass(frozen=True, slots=True)
class PackDifference:
    """How a set of cards differs from the pack it should be."""

    missing: tuple[Card, ...]
    extra: tuple[Card, ...]

    def __bool__(self) -> bool:
        return bool(self.missing or self.extra)

    def describe(self) -> str:
        """'missing: 9H; extra: QS (a second copy)' in words a player understands."""
        parts = []
        if self.missing:
            parts.append("missing " + ", ".join(str(c) for c in self.missing))
        if self.extra:
            parts.append("extra " + ", ".join(str(c) for c in self.extra))
        return "; ".join(parts)


@functools.cache
def _sorted_indices(pack: tuple[Card, ...]) -> list[int]:
    return sorted(c.index for c in pack)


_SORTED_BY_ID: dict[int, tuple[Sequence[Card], list[int]]] = {}


def sorted_indices(pack: Sequence[Card]) -> list[int]:
    # A game's pack is one long-lived tuple: look it up by identity, since hashing a tuple
    # of 52 cards (Card.__hash__ is Python code) costs more than the comparison it saves.
    found = _SORTED_BY_ID.get(id(pack))
    if found is not None and found[0] is pack:
        return found[1]
    result = _sorted_indices(tuple(pack)) if not isinstance(pack, tuple) else _sorted_indices(pack)
    if isinstance(pack, tuple) and len(_SORTED_BY_ID) < 64:
        _SORTED_BY_ID[id(pack)] = (pack, result)
    return result


def pack_difference(pack: Sequence[Card], got: Iterable[Card]) -> PackDifference:
    """Compare a multiset of cards with a pack: which cards are missing, which extra."""
    got = list(got)
    if sorted(c.index for c in got) == sorted_indices(pack):  # the usual case, made cheap
        return PackDifference((), ())
    want, have = Counter(pack), Counter(got)
    missing = sorted((want - have).elements())
    extra = sorted((have - want).elements())
    return PackDifference(tuple(missing), tuple(extra))
