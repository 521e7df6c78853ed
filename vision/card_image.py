"""A card cut out of a frame, upright, at the faces' canonical size (enrolment's captures).

The card is found by its two corner indices (:func:`vision.scan.scan` with ``any_pair``: an
unknown deck's indices pair by where they lie, whatever they read as), which give its outline;
the outline is warped to :data:`FACE_W` x :data:`FACE_H` pixels.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.cards import Recognition
from vision.scan import scan

FACE_W, FACE_H = 250, 350


def cards_in_view(frame: np.ndarray) -> list[Recognition]:
    """Every card whose index shows, read or not; a card alone shows both its indices. Without
    the photo scan's further looks (:data:`vision.scales.LOOKS`): enrolment takes a card only
    once it has seen it alone in four frames running, and a look at 30 px read a lone LJ beside
    an index (beside `aisleriot:anglo`'s KC, in one frame of the six it lay still), which kept
    the card from ever being taken."""
    return _without_its_pictures(scan(frame, any_pair=True, looks=None))


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


def sole_card(frame: np.ndarray, found: list[Recognition]) -> Recognition | None:
    """The one card in view, with a sure outline: both its indices found, or one of them and the
    card's own edges (:func:`alone_by_its_edges`). None when there is not exactly one such card."""
    if len(found) != 1:
        return None
    return found[0] if whole(found[0]) else alone_by_its_edges(frame, found[0])


CARD_SHAPES = (0.6, 0.8)  # a card's width over its height: bridge (0.63) to poker (0.71), and a margin
_FILLED = 0.9  # of each corner of the four-sided outline that must be card (a finger over one cuts into it)


def alone_by_its_edges(frame: np.ndarray, card: Recognition) -> Recognition | None:
    """A card alone in view whose second index was not found (a joker's word, a design the
    detector reads faintly), outlined by its own edges instead. The lone index's outline, drawn
    from its size and up direction, is only a guess of the card's (cards are 3.5 to 6 index
    heights tall, and the direction is good to tens of degrees), so GrabCut cuts the card from
    the table within the largest card's reach of the index, learning the card's colours from the
    guessed card's middle, and its four-sided shape is kept if it is a card's shape, whole (every
    corner filled: nothing over it), of a card's size for that index, and has the index in a
    corner. None when it is not."""
    if len(card.index_centres) != 1:
        return None
    guess = np.asarray(card.corners, np.float32)
    index = np.asarray(card.index_centres[0], np.float32)
    height = float(np.linalg.norm(guess[3] - guess[0]))  # the guessed card's height
    found = _cut_out(frame, index, guess.mean(axis=0), reach=1.45 * height, sure=0.15 * height)
    if found is None:
        return None
    box, filled = found
    sides = sorted(float(np.linalg.norm(box[k] - box[k - 1])) for k in range(4))
    shape = (sides[0] + sides[1]) / (sides[2] + sides[3])
    if not (CARD_SHAPES[0] < shape < CARD_SHAPES[1]) or filled < _FILLED:
        return None
    if not (0.7 * height < sides[-1] < 1.45 * height):
        return None
    if np.linalg.norm(box - index, axis=1).min() > 0.25 * sides[-1]:
        return None  # the index is not in one of its corners: not this card's outline
    corner = guess[0]  # the guess has the index at its top-left
    scaled = corner + (guess - corner) * (sides[-1] / height)
    corners = _in_order_of(box, scaled)
    centre = corners.mean(axis=0)
    return replace(card, corners=corners, center=(float(centre[0]), float(centre[1])))


def _cut_out(
    frame: np.ndarray, index: np.ndarray, middle: np.ndarray, reach: float, sure: float
) -> tuple[np.ndarray, float] | None:
    """The four-sided shape of what GrabCut finds as the card: surely card within ``sure`` of
    ``middle`` (and perhaps within twice that), perhaps table within ``reach`` of ``index``, table
    beyond; with how much of the shape's corners the card's outer edge fills (:func:`_corners_filled`)."""
    window = _window(frame, index - 1.6 * reach, index + 1.6 * reach)
    if window is None:
        return None
    part, offset = window
    mask = np.full(part.shape[:2], cv2.GC_BGD, np.uint8)
    # The card's colours are learnt from its middle only: a wide "perhaps card" would teach the
    # table's colours as the card's too, and the cut would follow the mat's lines instead.
    cv2.circle(mask, _point(index - offset), round(reach), cv2.GC_PR_BGD, -1)
    cv2.circle(mask, _point(middle - offset), max(3, round(2 * sure)), cv2.GC_PR_FGD, -1)
    cv2.circle(mask, _point(middle - offset), max(2, round(sure)), cv2.GC_FGD, -1)
    outline = _card_outline(part, mask)
    if outline is None:
        return None
    box = _quadrilateral(outline)
    return box + offset, _corners_filled(outline, box, mask.shape)


def _corners_filled(outline: np.ndarray, box: np.ndarray, shape: tuple[int, ...]) -> float:
    """How much of the four-sided shape's corners the card's outer edge fills, at the least
    filled corner: a finger over a corner (over the index not found, perhaps) cuts into it, while
    the sides, fitted to the edges' middles, still make a whole card's shape."""
    inside = np.zeros(shape[:2], np.uint8)
    cv2.drawContours(inside, [outline], -1, 1, -1)
    shape_mask = np.zeros_like(inside)
    cv2.fillConvexPoly(shape_mask, np.round(box).astype(np.int32), 1)
    reach = 0.25 * min(float(np.linalg.norm(box[k] - box[k - 1])) for k in range(4))
    filled = []
    for corner in box:
        near = np.zeros_like(inside)
        cv2.circle(near, _point(corner), max(2, round(reach)), 1, -1)
        region = shape_mask & near
        filled.append(float((inside & region).sum()) / max(float(region.sum()), 1.0))
    return min(filled)


def _window(frame: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The part of the frame from ``low`` to ``high`` (x, y), clipped to it, and its top-left
    corner; None when too little of it is in the frame to cut a card from."""
    h, w = frame.shape[:2]
    x0, y0 = np.floor(low).astype(int).clip(0, [w - 1, h - 1])
    x1, y1 = np.ceil(high).astype(int).clip(1, [w, h])
    if x1 - x0 < 16 or y1 - y0 < 16:
        return None
    return np.ascontiguousarray(frame[y0:y1, x0:x1]), np.array([x0, y0], np.float32)


def _card_outline(part: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
    """The outer edge of what GrabCut, seeded by ``mask``, takes for the card (the picture inside
    it may pass for table: only the outer edge counts); None when it finds none. GrabCut is
    seeded: its colour models start from k-means on OpenCV's random generator, and the same frame
    must give the same outline."""
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.setRNGSeed(0)
    try:
        cv2.grabCut(part, mask, None, bgd, fgd, 4, cv2.GC_INIT_WITH_MASK)
    except cv2.error:
        return None
    card = np.isin(mask, (cv2.GC_FGD, cv2.GC_PR_FGD)).astype(np.uint8)
    contours, _ = cv2.findContours(card, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return max(contours, key=cv2.contourArea) if contours else None


def _point(p: np.ndarray) -> tuple[int, int]:
    return (round(float(p[0])), round(float(p[1])))


def upright_face(frame: np.ndarray, card: Recognition, margin: float = 0.04) -> np.ndarray:
    """The card's face, warped upright to the canonical size; the outline grown by ``margin``
    of its size first, so that a slightly short outline keeps the card's edges."""
    corners = _as_photographed(refined_outline(frame, np.asarray(card.corners, np.float32)))
    centre = corners.mean(axis=0)
    grown = centre + (corners - centre) * (1 + margin)
    target = np.array([[0, 0], [FACE_W - 1, 0], [FACE_W - 1, FACE_H - 1], [0, FACE_H - 1]], np.float32)
    h = cv2.getPerspectiveTransform(grown.astype(np.float32), target)
    return cv2.warpPerspective(frame, h, (FACE_W, FACE_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _as_photographed(corners: np.ndarray) -> np.ndarray:
    """Of the two ways a card may stand (its two indices are alike, half a turn apart), the one
    nearer the image's up: a card is photographed, or shown to the camera, the right way up, and
    its picture may not be the same both ways (a joker, a seven's middle pip)."""
    top = (corners[0] + corners[1]) / 2 - corners.mean(axis=0)
    return np.roll(corners, 2, axis=0) if top[1] > 0 else corners


def refined_outline(frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The card's own edges near the outline its indices gave: the indices place a card to a few
    degrees and pixels, and two captures of one card must warp alike (enrolment compares them).
    The card is told from the table around it by GrabCut, seeded with the outline; the
    four-sided shape of what it finds (:func:`_quadrilateral`) replaces the outline when it
    agrees with it in size and place, each corner matched to the outline's nearest. Otherwise
    the outline stands."""
    centre = corners.mean(axis=0)
    grown = centre + (corners - centre) * 1.3
    window = _window(frame, grown.min(axis=0), grown.max(axis=0))
    if window is None:
        return corners
    part, offset = window
    mask = np.full(part.shape[:2], cv2.GC_BGD, np.uint8)
    cv2.fillConvexPoly(mask, np.round(grown - offset).astype(np.int32), cv2.GC_PR_BGD)
    cv2.fillConvexPoly(mask, np.round(corners - offset).astype(np.int32), cv2.GC_PR_FGD)
    inner = centre + (corners - centre) * 0.6
    cv2.fillConvexPoly(mask, np.round(inner - offset).astype(np.int32), cv2.GC_FGD)
    outline = _card_outline(part, mask)
    if outline is None:
        return corners
    box = _quadrilateral(outline) + offset
    area, found_area = cv2.contourArea(corners), cv2.contourArea(box)
    if not (0.8 < found_area / max(area, 1.0) < 1.25):
        return corners
    if np.linalg.norm(box.mean(axis=0) - centre) > 0.1 * np.sqrt(area):
        return corners
    box = _in_order_of(box, corners)
    if np.linalg.norm(box - corners, axis=1).max() > 0.15 * np.sqrt(area):
        return corners  # a shape that is not the outline's card (a corner far from any of its)
    return box


def _quadrilateral(contour: np.ndarray) -> np.ndarray:
    """The four-sided shape of a card's contour: each side a straight line fitted to the
    contour's points along it (a card seen at an angle is no rectangle, and its rounded corners
    lie inside the corners its sides meet at)."""
    hull = cv2.convexHull(contour)
    rough = cv2.boxPoints(cv2.minAreaRect(hull))
    for share in (0.02, 0.04, 0.06, 0.08):
        approx = cv2.approxPolyDP(hull, share * cv2.arcLength(hull, True), True)
        if len(approx) == 4:
            rough = approx.reshape(4, 2)
            break
    points = contour.reshape(-1, 2).astype(np.float32)
    lines = []
    for a, b in zip(rough, np.roll(rough, -1, axis=0), strict=True):
        side = b - a
        length = float(np.linalg.norm(side))
        if length < 4:
            return rough.astype(np.float32)
        t = (points - a) @ side / length**2
        rel = points - a
        off = np.abs(side[0] * rel[:, 1] - side[1] * rel[:, 0]) / length
        near = points[(t > 0.15) & (t < 0.85) & (off < 0.05 * length + 2)]  # the side's straight middle
        if len(near) < 2:
            return rough.astype(np.float32)
        vx, vy, x, y = cv2.fitLine(near, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x, y]), np.array([vx, vy])))
    corners = [_meet(lines[k - 1], lines[k]) for k in range(4)]
    if any(c is None for c in corners):
        return rough.astype(np.float32)
    return np.array(corners, np.float32)


def _meet(first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray]) -> np.ndarray | None:
    (p, u), (q, v) = first, second
    det = float(u[0] * -v[1] + v[0] * u[1])
    if abs(det) < 1e-6:
        return None
    t = ((q[0] - p[0]) * -v[1] + v[0] * (q[1] - p[1])) / det
    return p + t * u


def _in_order_of(box: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """``box``'s corners listed as ``corners`` are: each nearest its counterpart."""
    turns = [np.roll(b, k, axis=0) for b in (box, box[::-1]) for k in range(4)]
    return min(turns, key=lambda t: float(np.linalg.norm(t - corners, axis=1).sum()))
