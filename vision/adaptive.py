"""A table's own deck style, learned from the cards it reads surely: the generic reader first,
then the deck's own glyphs for what the generic reader leaves unknown.

Every card the generic reader reports with high confidence (both indices found, the body in
view) teaches the table that deck's index glyphs: the rank's and the suit's ink of each index,
under the label the read gave. Once a label has been seen a few times, a card the generic reader
leaves unknown is read against these templates: both corners must find their index and agree
with each other, each glyph must be close to its label's templates and clearly closer than to
any other learned label (for the suit, both suits of the ink's colour must have been learned),
and the body must show exactly the rank's pips (or a picture for J Q K). A learned template
never overrules the generic reader's colour, a contradicting body or the generic reader's own
leaning on the suit; a club or a spade still needs the generic reader's full suit evidence (so
for black cards it is the rank the table's templates add). A card the generic reader reads is
never changed: the templates only fill in what it left unknown.
"""

from __future__ import annotations

from collections import defaultdict

import cv2
import numpy as np

from engine.cards import Card
from vision.classify import CardRead
from vision.glyphs import glyph_vector
from vision.reader import _BLACK_ODDS, GenericReader, expected_body, index_inks

_LEARN_CONFIDENCE = 0.9  # a generic read this sure teaches the table its glyphs
_MIN_SEEN = 2  # examples of a label before it is used
_MAX_KEPT = 12  # examples kept per label (the first ones)
_CLOSE = 0.85  # correlation with a label's templates to be read as it
_MARGIN = 0.06  # and this much above any other learned label's
_SUIT_Z = 0.5
# The generic reader's summed suit evidence (log-odds, both indices and the pips) must lean to
# the learned suit this much (this with no pips to see: an ace, a court card); a club or a spade
# needs as much as the generic reader asks (measured: the project's blurred clubs look like its
# spades in its own templates too, and a learned club/spade template alone read 2 of 324 wrong).
_LEANING, _LEANING_NO_PIP = 1.0, 3.0


class AdaptiveReader:
    """Wraps a :class:`GenericReader`; learns the table's deck style from its sure reads."""

    def __init__(self, generic: GenericReader | None = None) -> None:
        self.generic = generic if generic is not None else GenericReader()
        self.examples: dict[str, dict[str, list[np.ndarray]]] = {"rank": defaultdict(list), "suit": defaultdict(list)}
        self.learned_reads = 0
        self.learning = True  # False: read with what it has learned, learn no more

    def read(self, card: np.ndarray, body_visible: bool = True) -> CardRead:
        read = self.generic.read(card, body_visible)
        if read.card is not None:
            if self.learning and body_visible and read.confidence >= _LEARN_CONFIDENCE and not read.card.is_joker:
                self._learn(card, read.card)
            return read
        if not body_visible:
            return read
        learned = self._read_learned(card)
        return learned if learned is not None else read

    def _learn(self, card: np.ndarray, identity: Card) -> None:
        rank, suit = _labels(identity)
        inks = [index_inks(card, far) for far in (False, True)]
        if any(i is None for i in inks):
            return  # both indices, or none: a lone index may be another card's
        for rank_ink, suit_ink, _ in inks:  # type: ignore[misc]
            for kind, label, ink in (("rank", rank, rank_ink), ("suit", suit, suit_ink)):
                kept = self.examples[kind][label]
                if len(kept) < _MAX_KEPT:
                    kept.append(_vector(kind, ink))
        self.learned_reads += 1

    def _match(self, kind: str, ink: np.ndarray, allowed: tuple[str, ...] | None = None) -> str | None:
        """The learned label this glyph is clearly closest to, or None."""
        v = _vector(kind, ink)
        if kind == "suit" and allowed is not None:
            return self._suit(v, allowed)
        scores = {}
        for label, kept in self.examples[kind].items():
            if (allowed is None or label in allowed) and len(kept) >= _MIN_SEEN:
                s = np.sort(np.array(kept) @ v)[::-1]
                scores[label] = float(s[: min(3, len(s))].mean())
        if allowed is not None and len(scores) < len(allowed):
            return None  # the other suit of the colour not learned yet: nothing to compare
        if not scores:
            return None
        ranked = sorted(scores, key=scores.__getitem__, reverse=True)
        best = ranked[0]
        if scores[best] < _CLOSE:
            return None
        if len(ranked) > 1 and scores[best] - scores[ranked[1]] < _MARGIN:
            return None
        return best

    def _suit(self, v: np.ndarray, pair: tuple[str, ...]) -> str | None:
        """One suit of a colour's pair against the other: the two learned suits' mean glyphs
        differ in a few pixels (a club's lobes, a spade's point); along that difference the glyph must
        lie well on one side of the midpoint."""
        a, b = (np.array(self.examples["suit"].get(s, [])) for s in pair)
        if len(a) < _MIN_SEEN or len(b) < _MIN_SEEN:
            return None
        direction = a.mean(axis=0) - b.mean(axis=0)
        ma, mb = float(a.mean(axis=0) @ direction), float(b.mean(axis=0) @ direction)
        z = (float(v @ direction) - (ma + mb) / 2) / max((ma - mb) / 2, 1e-6)  # +1: a's mean, -1: b's
        if z >= _SUIT_Z:
            return pair[0]
        return pair[1] if z <= -_SUIT_Z else None

    def _read_learned(self, card: np.ndarray) -> CardRead | None:
        labels = []
        for far in (False, True):
            inks = index_inks(card, far)
            if inks is None:
                return None
            rank_ink, suit_ink, red = inks
            rank = self._match("rank", rank_ink)
            suit = self._match("suit", suit_ink, ("H", "D") if red else ("S", "C"))
            if rank is None or suit is None:
                return None
            labels.append((rank, suit))
        if labels[0] != labels[1]:
            return None
        rank, suit = labels[0]
        identity = Card.from_str(("T" if rank == "10" else rank) + suit)
        seen, pip = self.generic.body_evidence(card, identity)
        if seen != expected_body(identity):
            return None
        if pip is None and str(identity)[0] not in "AJQK":
            return None  # a number card's pips must be seen
        # The generic reader's own suit evidence (both indices, the pips) must lean the same way.
        # (its indices' witnesses only: the body's pip was just judged above)
        leaning = sum(self.generic.suit_witnesses(card, identity, body_visible=False)[0]) + (pip or 0.0)
        if leaning < (_LEANING if pip is not None else _LEANING_NO_PIP):
            return None
        if str(identity)[1] in "SC" and leaning < _BLACK_ODDS:
            return None  # clubs and spades: the deck's own templates blur alike too
        return CardRead(identity, 0.6, "learned style")


def _vector(kind: str, ink: np.ndarray) -> np.ndarray:
    """A glyph's shape vector: the rank's as the glyph models see it; the suit's finer (24 x 32,
    unblurred), since what tells a club from a spade is a few pixels."""
    if kind == "rank":
        return glyph_vector(ink)[0]
    small = cv2.resize(ink.astype(np.float32), (24, 32), interpolation=cv2.INTER_AREA).ravel()
    small -= small.mean()
    norm = float(np.linalg.norm(small))
    return small / norm if norm > 0 else small


def _labels(card: Card) -> tuple[str, str]:
    text = str(card)
    return ("10" if text[0] == "T" else text[0]), text[1]
