"""The project's own card faces, drawn from their codes with OpenCV.

Every face is drawn at one canonical size (:data:`FACE_W` x :data:`FACE_H` pixels, the 63.5 x
88.9 mm proportions of a poker card) and is point-symmetric like a commercial card: an index
(rank over suit) in the top-left corner and the same index turned 180 degrees in the
bottom-right, pips for the number cards (the lower ones upside down), a framed picture for the
court cards and the jokers. ``BJ`` (the big joker) is drawn red, ``LJ`` black. These faces are
what the camera simulator places on the table, and what the vision tests read back.
"""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np

from engine.cards import BIG_JOKER, CARDS, LITTLE_JOKER, Card, Suit

FACE_W = 250
FACE_H = 350
CORNER_RADIUS = 12

PAPER = (246, 246, 246)
BLACK = (25, 25, 25)
RED = (35, 30, 200)

# The index box, in face pixels: rank glyph above, suit symbol below. The classifier's default
# index geometry (vision.classify) is measured from faces drawn here, never hard-wired to it.
RANK_BOX = (6, 10, 30, 40)  # x, y, width, height
SUIT_CENTRE = (21, 70)
SUIT_SIZE = 12
RANK_TEXT = {"T": "10"}
JOKER_RANK_TEXT = "JK"


def _ink(card: Card) -> tuple[int, int, int]:
    if card.index == BIG_JOKER:
        return RED
    if card.index == LITTLE_JOKER:
        return BLACK
    return RED if card.suit in (Suit.HEARTS, Suit.DIAMONDS) else BLACK


def draw_suit(img: np.ndarray, suit: Suit | None, centre: tuple[float, float], size: float, colour) -> None:
    """Draw a suit symbol (or, for ``None``, the joker's star) of half-height ``size``."""
    cx, cy = centre
    s = size

    def poly(points: list[tuple[float, float]]) -> None:
        pts = np.array([[cx + dx * s, cy + dy * s] for dx, dy in points], dtype=np.float64)
        cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)

    def disc(dx: float, dy: float, r: float) -> None:
        cv2.circle(
            img, (round((cx + dx * s) * 16), round((cy + dy * s) * 16)), round(r * s * 16), colour, -1, cv2.LINE_AA, 4
        )

    if suit is Suit.DIAMONDS:
        poly([(0, -1), (0.72, 0), (0, 1), (-0.72, 0)])
    elif suit is Suit.HEARTS:
        disc(-0.45, -0.35, 0.5)
        disc(0.45, -0.35, 0.5)
        poly([(-0.93, -0.15), (0.93, -0.15), (0, 0.95)])
    elif suit is Suit.SPADES:
        disc(-0.45, 0.2, 0.48)
        disc(0.45, 0.2, 0.48)
        poly([(-0.91, 0.05), (0.91, 0.05), (0, -0.95)])
        poly([(0, 0.3), (-0.32, 1.0), (0.32, 1.0)])
    elif suit is Suit.CLUBS:
        disc(0, -0.48, 0.38)
        disc(-0.45, 0.12, 0.38)
        disc(0.45, 0.12, 0.38)
        poly([(0, -0.1), (-0.32, 1.0), (0.32, 1.0)])
    else:
        outer = [(np.sin(a), -np.cos(a)) for a in np.linspace(0, 2 * np.pi, 6)[:-1]]
        inner = [(0.4 * np.sin(a), -0.4 * np.cos(a)) for a in np.linspace(np.pi / 5, 2 * np.pi + np.pi / 5, 6)[:-1]]
        poly([p for pair in zip(outer, inner, strict=True) for p in pair])


def _text_patch(text: str, width: int, height: int, colour) -> tuple[np.ndarray, np.ndarray]:
    """``text`` stretched to fill a width x height box: (colour patch, alpha 0..1)."""
    scratch = np.zeros((120, 60 * len(text) + 20), np.uint8)
    cv2.putText(scratch, text, (5, 100), cv2.FONT_HERSHEY_DUPLEX, 3.0, 255, 9, cv2.LINE_AA)
    ys, xs = np.nonzero(scratch)
    glyph = scratch[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    alpha = cv2.resize(glyph, (width, height), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    patch = np.empty((height, width, 3), np.float32)
    patch[:] = colour
    return patch, alpha


def _paste_text(img: np.ndarray, text: str, box: tuple[int, int, int, int], colour) -> None:
    x, y, w, h = box
    patch, alpha = _text_patch(text, w, h, colour)
    region = img[y : y + h, x : x + w].astype(np.float32)
    a = alpha[..., None]
    img[y : y + h, x : x + w] = np.round(region * (1 - a) + patch * a).astype(np.uint8)


def _rank_text(card: Card) -> str:
    if card.is_joker:
        return JOKER_RANK_TEXT
    letter = str(card)[0]
    return RANK_TEXT.get(letter, letter)


def _draw_index(img: np.ndarray, card: Card) -> None:
    colour = _ink(card)
    _paste_text(img, _rank_text(card), RANK_BOX, colour)
    draw_suit(img, card.suit, SUIT_CENTRE, SUIT_SIZE, colour)


def _both_ways(img: np.ndarray, draw) -> np.ndarray:
    """Draw something, then the same thing turned 180 degrees: the symmetry of a real card."""
    draw(img)
    turned = np.ascontiguousarray(img[::-1, ::-1])
    draw(turned)
    return np.ascontiguousarray(turned[::-1, ::-1])


# Pip positions for the number cards, as (u, v) in the body box; v > 0.5 pips are drawn upside down.
_COL = (0.0, 0.5, 1.0)
PIP_LAYOUTS: dict[int, list[tuple[float, float]]] = {
    2: [(0.5, 0.0), (0.5, 1.0)],
    3: [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    4: [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)],
    5: [(0.0, 0.0), (1.0, 0.0), (0.5, 0.5), (0.0, 1.0), (1.0, 1.0)],
    6: [(u, v) for u in (0.0, 1.0) for v in (0.0, 0.5, 1.0)],
    7: [(u, v) for u in (0.0, 1.0) for v in (0.0, 0.5, 1.0)] + [(0.5, 0.25)],
    8: [(u, v) for u in (0.0, 1.0) for v in (0.0, 0.5, 1.0)] + [(0.5, 0.25), (0.5, 0.75)],
    9: [(u, v) for u in (0.0, 1.0) for v in (0.0, 1 / 3, 2 / 3, 1.0)] + [(0.5, 0.5)],
    10: [(u, v) for u in (0.0, 1.0) for v in (0.0, 1 / 3, 2 / 3, 1.0)] + [(0.5, 1 / 6), (0.5, 5 / 6)],
}
BODY_BOX = (68, 62, 114, 226)  # x, y, width, height of the pip centres
PIP_SIZE = 17


def _draw_pips(img: np.ndarray, card: Card, count: int) -> None:
    bx, by, bw, bh = BODY_BOX
    colour = _ink(card)
    for u, v in PIP_LAYOUTS[count]:
        centre = (bx + u * bw, by + v * bh)
        if v <= 0.5:
            draw_suit(img, card.suit, centre, PIP_SIZE, colour)
        else:  # drawn upright on the turned face, so it appears upside down
            draw_suit_turned(img, card.suit, centre, PIP_SIZE, colour)


def draw_suit_turned(img: np.ndarray, suit: Suit | None, centre: tuple[float, float], size: float, colour) -> None:
    """A suit symbol turned 180 degrees about its own centre."""
    h, w = img.shape[:2]
    turned = np.ascontiguousarray(img[::-1, ::-1])
    draw_suit(turned, suit, (w - 1 - centre[0], h - 1 - centre[1]), size, colour)
    img[:] = turned[::-1, ::-1]


def _draw_picture(img: np.ndarray, card: Card) -> None:
    """Court cards and jokers: a double frame, the letter (or a star) and the suit, mirrored."""
    colour = _ink(card)
    x0, y0, x1, y1 = 44, 42, FACE_W - 45, FACE_H - 43
    cv2.rectangle(img, (x0, y0), (x1, y1), colour, 3, cv2.LINE_AA)
    cv2.rectangle(img, (x0 + 7, y0 + 7), (x1 - 7, y1 - 7), (60, 170, 215), 2, cv2.LINE_AA)
    cv2.line(img, (x0 + 7, y1 - 7), (x1 - 7, y0 + 7), colour, 2, cv2.LINE_AA)

    def half(face: np.ndarray) -> None:
        if card.is_joker:
            draw_suit(face, None, (x0 + 50, y0 + 52), 30, colour)
            _paste_text(face, "JOKER", (x0 + 18, y0 + 95, 90, 16), colour)
        else:
            _paste_text(face, str(card)[0], (x0 + 20, y0 + 26, 44, 58), colour)
            draw_suit(face, card.suit, (x0 + 100, y0 + 50), 20, colour)

    turned = _both_ways(img, half)
    img[:] = turned


@cache
def _face(card: Card) -> np.ndarray:
    img = np.empty((FACE_H, FACE_W, 3), np.uint8)
    img[:] = PAPER
    rank = card.rank
    if card.is_joker or (rank is not None and 9 <= rank <= 11):
        _draw_picture(img, card)
    elif rank == 12:
        draw_suit(img, card.suit, (FACE_W / 2, FACE_H / 2), 44, _ink(card))
    else:
        assert rank is not None
        _draw_pips(img, card, rank + 2)
    img = _both_ways(img, lambda face: _draw_index(face, card))
    img.setflags(write=False)
    return img


def render_face(card: Card) -> np.ndarray:
    """The face of ``card``: a BGR ``FACE_H x FACE_W`` image (a fresh, writable copy)."""
    return _face(card).copy()


@cache
def _back() -> np.ndarray:
    img = np.empty((FACE_H, FACE_W, 3), np.uint8)
    img[:] = PAPER
    cv2.rectangle(img, (10, 10), (FACE_W - 11, FACE_H - 11), (150, 60, 20), -1)
    for k in range(-FACE_H, FACE_W + FACE_H, 14):
        cv2.line(img, (k, 10), (k + FACE_H, 10 + FACE_H), (200, 120, 60), 2)
        cv2.line(img, (k, 10), (k - FACE_H, 10 + FACE_H), (200, 120, 60), 2)
    img[:10] = PAPER
    img[-10:] = PAPER
    img[:, :10] = PAPER
    img[:, -10:] = PAPER
    img.setflags(write=False)
    return img


def render_back() -> np.ndarray:
    """The back of every card: a blue lattice inside a white margin."""
    return _back().copy()


@cache
def _mask() -> np.ndarray:
    mask = np.zeros((FACE_H, FACE_W), np.uint8)
    r = CORNER_RADIUS
    cv2.rectangle(mask, (r, 0), (FACE_W - 1 - r, FACE_H - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (FACE_W - 1, FACE_H - 1 - r), 255, -1)
    for cx in (r, FACE_W - 1 - r):
        for cy in (r, FACE_H - 1 - r):
            cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    mask.setflags(write=False)
    return mask


def card_mask() -> np.ndarray:
    """The card's outline with its rounded corners: 255 inside, 0 outside (``FACE_H x FACE_W``)."""
    return _mask().copy()


def all_faces() -> list[tuple[Card, np.ndarray]]:
    """Every card of the 54 with its face: what a classifier's templates are taken from."""
    return [(c, render_face(c)) for c in CARDS]
