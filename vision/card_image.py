"""A card cut out of a frame, upright, at the faces' canonical size (enrolment's captures).

The card is found by its two corner indices (:func:`vision.scan.scan` with ``any_pair``: an
unknown deck's indices pair by where they lie, whatever they read as), which give its outline;
the outline is warped to :data:`FACE_W` x :data:`FACE_H` pixels.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards import Recognition
from vision.scan import scan

FACE_W, FACE_H = 250, 350


def cards_in_view(frame: np.ndarray) -> list[Recognition]:
    """Every card whose index shows, read or not; a card alone shows both its indices."""
    return _without_its_pictures(scan(frame, any_pair=True))


def _without_its_pictures(found: list[Recognition]) -> list[Recognition]:
    """With exactly one whole card in view, the unread lone indices inside its outline are its
    own picture seen as an index (a court card's face), not other cards."""
    wholes = [c for c in found if whole(c)]
    if len(wholes) != 1:
        return found
    outline = np.asarray(wholes[0].corners, np.float32).reshape(-1, 1, 2)

    def its_picture(c: Recognition) -> bool:
        inside = cv2.pointPolygonTest(outline, tuple(map(float, c.index_centres[0])), False) >= 0
        return c.card is None and len(c.index_centres) == 1 and inside

    return [c for c in found if not its_picture(c)]


def whole(card: Recognition) -> bool:
    """Both of the card's indices were found: nothing lies over it, and its outline is sure."""
    return len(card.index_centres) == 2


def upright_face(frame: np.ndarray, card: Recognition, margin: float = 0.04) -> np.ndarray:
    """The card's face, warped upright to the canonical size; the outline grown by ``margin``
    of its size first, so that a slightly short outline keeps the card's edges."""
    corners = np.asarray(card.corners, np.float32)
    centre = corners.mean(axis=0)
    grown = centre + (corners - centre) * (1 + margin)
    target = np.array([[0, 0], [FACE_W - 1, 0], [FACE_W - 1, FACE_H - 1], [0, FACE_H - 1]], np.float32)
    h = cv2.getPerspectiveTransform(grown.astype(np.float32), target)
    return cv2.warpPerspective(frame, h, (FACE_W, FACE_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
