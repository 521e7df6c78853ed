"""The legal discards of a declarer, as a lazy sequence.

A Bid Whist declarer with 18 cards may lay away any 6 of them: 18,564 discards. Listing
them all for every ``legal_actions()`` call would cost more than the rest of the hand, so
:class:`Discards` is a ``Sequence`` that builds the ``i``-th combination on demand
(combinatorial unranking) and answers ``action in discards`` by checking the cards, not by
searching. Picking ``discards[k]`` at random is as cheap as picking from a list.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from math import comb
from typing import Any, overload

from engine.actions import Discard
from engine.cards import CARDS, indices


class Discards(Sequence[Discard]):
    """Every way to lay away ``count`` of the cards in ``held`` (a mask of distinct cards).

    The combinations are in lexicographic order of card indices; a ``Discard`` is in the
    sequence when it names ``count`` distinct held cards, in any order.
    """

    __slots__ = ("_cards", "_count", "_held", "_len")

    def __init__(self, held: int, count: int) -> None:
        self._held = held
        self._count = count
        self._cards = indices(held)
        self._len = comb(len(self._cards), count)

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> Discard: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Discard]: ...

    def __getitem__(self, index: int | slice) -> Discard | Sequence[Discard]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._len))]
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("discard index out of range")
        return Discard(tuple(CARDS[i] for i in self._unrank(index)))

    def _unrank(self, rank: int) -> list[int]:
        """The ``rank``-th combination in lexicographic order."""
        chosen: list[int] = []
        n, k, start = len(self._cards), self._count, 0
        while k:
            for position in range(start, n):
                below = comb(n - position - 1, k - 1)  # combinations that start here
                if rank < below:
                    chosen.append(self._cards[position])
                    start, k = position + 1, k - 1
                    break
                rank -= below
        return chosen

    def __contains__(self, action: Any) -> bool:
        if type(action) is not Discard or len(action.cards) != self._count:
            return False
        mask = 0
        for c in action.cards:
            mask |= 1 << c.index
        return mask.bit_count() == self._count and mask & self._held == mask

    def __iter__(self) -> Iterator[Discard]:
        for rank in range(self._len):
            yield self[rank]

    def __repr__(self) -> str:
        return f"Discards({len(self._cards)} cards choose {self._count}: {self._len})"


def discard_mask(discard: Discard) -> int:
    """The cards of a discard as a mask (the order they were named in does not matter)."""
    mask = 0
    for c in discard.cards:
        mask |= 1 << c.index
    return mask
