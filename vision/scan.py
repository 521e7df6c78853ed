"""One image in, the cards recognised in it out: detection, warping and reading put together.

Pure: a function of the frame, the deck's templates and (optionally) the card size in pixels
that the mat's scale gives. Used by ``croupier vision scan`` and, frame by frame, by the tracker.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from engine.cards import Card
from vision.classify import IndexTemplates, read_card
from vision.detect import CardQuad, find_cards, warp_card

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Recognition:
    """A card found in an image: its identity (None: unknown), confidence, outline and centre."""

    card: Card | None
    confidence: float
    corners: np.ndarray  # 4 x 2, image pixels, clockwise
    center: tuple[float, float]

    def to_json(self) -> dict[str, object]:
        return {
            "card": None if self.card is None else str(self.card),
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "confidence": round(self.confidence, 3),
        }


def _overlaps(quad: CardQuad, others: list[CardQuad]) -> bool:
    mine = quad.corners.astype(np.float32)
    return any(
        other is not quad and cv2.intersectConvexConvex(mine, other.corners.astype(np.float32))[0] > 1.0
        for other in others
    )


def recognise(
    frame: np.ndarray, templates: IndexTemplates, card_size_px: tuple[float, float] | None = None
) -> list[Recognition]:
    """Every card outline in ``frame`` with its read; unknown reads of single cards are kept
    (``card`` None). Candidates split out of a pile count only when their index reads."""
    quads = find_cards(frame, card_size_px)
    singles = [q for q in quads if q.pile < 0]
    found = [_read(frame, quad, templates, body_visible=not _overlaps(quad, singles)) for quad in singles]
    piles: dict[int, list[CardQuad]] = {}
    for quad in quads:
        if quad.pile >= 0:
            piles.setdefault(quad.pile, []).append(quad)
    for candidates in piles.values():
        found += _read_pile(frame, candidates, templates)
    return _one_per_card(found)


def _read(frame: np.ndarray, quad: CardQuad, templates: IndexTemplates, body_visible: bool) -> Recognition:
    read = read_card(warp_card(frame, quad), templates, body_visible=body_visible)
    if read.card is None:
        log.debug("card at %s not read: %s", quad.centre, read.detail)
    return Recognition(read.card, read.confidence, quad.corners, quad.centre)


def _read_pile(frame: np.ndarray, candidates: list[CardQuad], templates: IndexTemplates) -> list[Recognition]:
    """The cards of one pile: its candidates read best first, each skipped once a read card
    covers most of it. A candidate that reads nothing is dropped, not reported as unknown: it is
    a guess at an outline, and only an index upright in its corner shows it is a card. (A read
    pins the outline: the glyphs are searched a few pixels around where the deck prints them.)
    The body check is skipped: a pile's neighbours lie across each card's body."""
    read: list[Recognition] = []
    for quad in candidates:
        if any(_covered(quad.corners, r.corners) for r in read):
            continue
        rec = _read(frame, quad, templates, body_visible=False)
        if rec.card is not None:
            read.append(rec)
    return read


def _covered(quad: np.ndarray, by: np.ndarray) -> bool:
    inter, _ = cv2.intersectConvexConvex(quad.astype(np.float32), by.astype(np.float32))
    return bool(inter > 0.5 * cv2.contourArea(quad.astype(np.float32)))


def _one_per_card(found: list[Recognition]) -> list[Recognition]:
    """Two outlines of one physical card (grown from two of its corners) read as the same card:
    keep the surer one. Two copies of a card (a double pack) lie apart, so they both stay."""
    kept: list[Recognition] = []
    for rec in sorted(found, key=lambda r: -r.confidence):
        if rec.card is not None and any(k.card == rec.card and _same_place(k, rec) for k in kept):
            continue
        kept.append(rec)
    return kept


def _same_place(a: Recognition, b: Recognition) -> bool:
    inter, _ = cv2.intersectConvexConvex(a.corners.astype(np.float32), b.corners.astype(np.float32))
    smaller = min(cv2.contourArea(a.corners.astype(np.float32)), cv2.contourArea(b.corners.astype(np.float32)))
    return bool(smaller > 0 and inter / smaller > 0.3)
