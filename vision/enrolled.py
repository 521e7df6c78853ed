"""The reader of an enrolled deck: the generic reader first, then the deck's own index
templates for what it leaves unknown.

The generic reader (:class:`vision.reader.GenericReader`) knows no deck and is strict (unknown
rather than a guess); the templates (:class:`vision.classify.IndexTemplates`) know the deck's
exact glyphs and read many of the cards it leaves unknown (anglo's thin 3, its hollow Q beside
the picture's dashed frame). But the templates alone take small, blurred clubs for spades (on
single faces: 14 of 270 of anglo's cards, 2 of the project's), so a templates' read stands only
when the generic reader's own suit witnesses do not lean firmly the other way, and, for a club
or a spade, lean its way. Measured, the pair reads at least as many cards as the generic reader
on every design, with no wrong card (``croupier bench vision``, the "enrolled" rows; single
faces: ``python -m benchmarks.vision_faces``). Before, enrolling a deck could read fewer cards
than the generic reader out of the box (kde:standard scenes: 88 % against 95 %).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from engine.cards import Card
from vision.classify import CardRead, IndexTemplates
from vision.reader import SUIT_VETO, GenericReader

# The generic reader's suit evidence (log-odds) that a templates' read of a club or a spade needs:
# with a pip seen, and with the indices alone.
_LEANING, _LEANING_NO_PIP = 1.0, 3.0


class EnrolledReader:
    """Reads a canonical card with the generic reader, and with a deck's templates when it
    cannot (see the module's docstring)."""

    def __init__(self, templates: IndexTemplates, generic: GenericReader | None = None) -> None:
        self.templates = templates
        self.generic = generic if generic is not None else GenericReader()

    @classmethod
    def from_faces(cls, faces: Iterable[tuple[Card, np.ndarray]]) -> EnrolledReader:
        """The reader of the deck whose faces (one per card) are given."""
        return cls(IndexTemplates.from_faces(faces))

    def read(self, card: np.ndarray, body_visible: bool = True) -> CardRead:
        by_generic = self.generic.read(card, body_visible)
        if by_generic.card is not None:
            return by_generic
        by_templates = self.templates.read(card, body_visible)
        if by_templates.card is None:
            return CardRead(None, 0.0, f"generic: {by_generic.detail}; templates: {by_templates.detail}")
        identity = by_templates.card
        if not identity.is_joker:
            # Its witnesses must not lean firmly to the other suit of the colour, and for a club
            # or a spade they must lean to its suit: those two blur alike in a deck's own
            # templates too (anglo's clubs seen small match its spades; hearts and diamonds
            # stay apart).
            witnesses, pip = self.generic.suit_witnesses(card, identity, body_visible)
            black = str(identity)[1] in "SC"
            if min(witnesses, default=0.0) < -SUIT_VETO or (
                black and sum(witnesses) < (_LEANING if pip else _LEANING_NO_PIP)
            ):
                return CardRead(None, 0.0, f"templates read {identity}, but its suit is not borne out")
        return by_templates
