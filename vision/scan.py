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
    """Every card outline in ``frame`` with its read; unknown reads are kept (``card`` None)."""
    quads = find_cards(frame, card_size_px)
    found = []
    for quad in quads:
        # A card under or over another has their pips across its body: its own count is unknown.
        # A card split out of a pile touches others even when its neighbours were not found.
        # (The check can only turn a read into "unknown", so it runs whenever it can.)
        body_visible = quad.single and not _overlaps(quad, quads)
        read = read_card(warp_card(frame, quad), templates, body_visible=body_visible)
        if read.card is None:
            log.debug("card at %s not read: %s", quad.centre, read.detail)
        found.append(Recognition(read.card, read.confidence, quad.corners, quad.centre))
    return _one_per_card(found)


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
