"""Reading a card's rank and suit from its corner indices, with colour and the body as checks.

The input is a card already warped upright to the canonical size (:mod:`vision.detect`). Both
index corners are read: the top-left one as it is and the bottom-right one turned 180 degrees
(an index is point-symmetric, so both are upright). Each corner's rank and suit glyphs are found
by normalised cross-correlation against the deck's templates inside a search window, which
absorbs a few pixels of error in the card's outline. Glyphs are compared on *darkness*
(255 minus the smallest channel), so that red and black ink look alike and colour is judged
separately: the ink's redness must agree with the suit, and tells the two jokers apart.

The body gives an independent second opinion against the classic confusions (A/4, 6/8/9): the
number of pips must equal a number card's rank, an ace has one large pip, court cards and jokers
a picture. A read whose evidence is weak or contradictory is returned with ``card=None``:
"unknown" rather than a guess, because a wrong card at the table is a false accusation.

Templates come from a deck's faces (:meth:`IndexTemplates.from_faces`): the project's own faces,
or, later, a deck enrolled from the camera. Nothing here is tied to one deck's drawing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from engine.cards import BIG_JOKER, LITTLE_JOKER, Card, Suit
from vision.detect import CANONICAL_H, CANONICAL_PAD, CANONICAL_W, pad_canonical

log = logging.getLogger(__name__)

ACCEPT = 0.5  # reads below this confidence are reported as unknown
JOKER = "JK"
STAR = "*"
_INDEX_SEARCH = (0.3, 0.5)  # a corner index lies within this share of the card's width and height
_INK = 60  # darkness above which a pixel is ink
_LONE_CORNER_SCORE = 0.82  # a read from one corner alone must match its templates this well
_MARGIN = 6  # search slack around the glyphs' template positions, canonical pixels (a work pixel is 3)


class TemplateError(ValueError):
    """A deck's faces from which no usable index templates can be taken."""


@dataclass(frozen=True, slots=True)
class CardRead:
    """What the classifier made of one warped card."""

    card: Card | None
    confidence: float
    detail: str = ""
    # When no card was read (``card`` None), the one the read leaned to, if it fell short only of
    # telling its rank from one other, of its suit, of the confidence a card needs, or (a lone
    # index with the body hidden) a little of a close match: a weak witness, which in a pile
    # confirms another outline's read of that card (vision.scan).
    leaning: Card | None = None
    # ... or, short even of leaning, the card a lone index under others seemed to show, sure of its
    # rank (vision.reader._glimpsed): in a pile, the outline is read again grown.
    glimpse: Card | None = None


class CardReader(Protocol):
    """Anything that reads a canonical warped card: a deck's templates, or the generic reader."""

    def read(self, card: np.ndarray, body_visible: bool = True) -> CardRead: ...


@dataclass(frozen=True, slots=True)
class IndexTemplates:
    """A deck's index glyphs (darkness images) and where on the card to look for them."""

    ranks: dict[str, np.ndarray]
    suits: dict[str, np.ndarray]
    rank_window: tuple[int, int, int, int]  # x0, y0, x1, y1 in canonical pixels
    suit_window: tuple[int, int, int, int]
    likeness: dict[tuple[str, str], float]  # how well each glyph matches each other glyph of its kind
    index_box: tuple[int, int, int, int]  # where the deck's indices lie (for their colour)
    body_box: tuple[int, int, int, int]  # the body, clear of the indices
    bodies: dict[Card, str]  # what the body of each template face reads as (see body_reading)

    @classmethod
    def from_faces(cls, faces: Iterable[tuple[Card, np.ndarray]]) -> IndexTemplates:
        """Templates from one face per card (BGR images of any size, portrait, upright): the
        index glyphs, where the deck puts them, and what each card's body looks like."""
        ranks: dict[str, np.ndarray] = {}
        suits: dict[str, np.ndarray] = {}
        rank_boxes, suit_boxes, darks = [], [], []
        for card, face in faces:
            dark = _darkness(_as_seen(face))
            # Glyphs are found on the crisp face (blur joins a Q's tail to the heart under it),
            # and cut from the softened one, which is what the camera will deliver.
            try:
                rank_box, suit_box = _glyph_boxes(_darkness(_canonical(face)), card)
            except TemplateError as exc:
                # Such a card is never reported (nothing to match it against): safe, and logged.
                log.warning("%s: left out of the templates", exc)
                continue
            ranks.setdefault(_rank_key(card), _crop(dark, rank_box))
            suits.setdefault(_suit_key(card), _crop(dark, suit_box))
            rank_boxes.append(rank_box)
            suit_boxes.append(suit_box)
            darks.append((card, dark))
        if not ranks:
            raise TemplateError("no faces to take index templates from")
        likeness = _likeness(ranks) | _likeness(suits)
        index_box = _window(rank_boxes + suit_boxes, margin=0)
        body_box = _body_box(index_box)
        bodies = {card: body_reading(dark, body_box) for card, dark in darks}
        return cls(ranks, suits, _window(rank_boxes), _window(suit_boxes), likeness, index_box, body_box, bodies)

    def read(self, card: np.ndarray, body_visible: bool = True) -> CardRead:
        """Read a canonical card with these templates (see :func:`read_card`)."""
        return read_card(card, self, body_visible)


def _body_box(index_box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The card's middle, between the index columns on either side."""
    p = CANONICAL_PAD
    right_of_index = index_box[2] + 2
    return (
        right_of_index,
        p + round(0.05 * CANONICAL_H),
        CANONICAL_W + 2 * p - right_of_index,
        p + round(0.95 * CANONICAL_H),
    )


def _likeness(glyphs: dict[str, np.ndarray]) -> dict[tuple[str, str], float]:
    """Pairwise best correlation of glyphs: how close a perfect read of one comes to the other."""
    out = {}
    for a, ga in glyphs.items():
        for b, gb in glyphs.items():
            if a != b:
                h, w = max(ga.shape[0], gb.shape[0]) + 2 * _MARGIN, max(ga.shape[1], gb.shape[1]) + 2 * _MARGIN
                canvas = np.zeros((h, w), np.uint8)
                canvas[_MARGIN : _MARGIN + ga.shape[0], _MARGIN : _MARGIN + ga.shape[1]] = ga
                out[(a, b)] = float(cv2.matchTemplate(canvas, gb, cv2.TM_CCOEFF_NORMED).max())
    return out


def _canonical(face: np.ndarray) -> np.ndarray:
    return pad_canonical(cv2.resize(face, (CANONICAL_W, CANONICAL_H), interpolation=cv2.INTER_AREA))


def _as_seen(face: np.ndarray) -> np.ndarray:
    """A face as the camera delivers it after the warp: canonical size, softened by having been
    about half as many pixels wide in the frame."""
    small = cv2.resize(face, (CANONICAL_W * 11 // 20, CANONICAL_H * 11 // 20), interpolation=cv2.INTER_AREA)
    return pad_canonical(cv2.resize(small, (CANONICAL_W, CANONICAL_H), interpolation=cv2.INTER_LINEAR))


def _darkness(card: np.ndarray) -> np.ndarray:
    """255 minus the smallest channel: ink of any colour is dark, paper is not."""
    b, g, r = cv2.split(card)
    # uint8 throughout: cv2's min and matchTemplate are several times faster on bytes than floats.
    return 255 - cv2.min(cv2.min(b, g), r)


def _rank_key(card: Card) -> str:
    return JOKER if card.is_joker else str(card)[0]


def _suit_key(card: Card) -> str:
    return STAR if card.is_joker else str(card)[1]


Box = tuple[int, int, int, int]


def _glyph_boxes(dark: np.ndarray, card: Card) -> tuple[Box, Box]:
    """The rank's and the suit's boxes (x0, y0, x1, y1) in the top-left index. The rank is the ink
    nearest the corner (with its neighbours on the same line: the two digits of a 10); the suit
    is the nearest ink below it. No deck's layout is assumed beyond that."""
    p = CANONICAL_PAD
    sx1, sy1 = p + round(_INDEX_SEARCH[0] * CANONICAL_W), p + round(_INDEX_SEARCH[1] * CANONICAL_H)
    ink = (dark[p:sy1, p:sx1] > 2 * _INK).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=4)
    # Left out: specks, and whatever touches the card's edge (a printed border, or the table
    # showing past a rounded corner in a photographed face): an index always stands clear of it.
    boxes = [
        (int(x), int(y), int(x + w), int(y + h)) for x, y, w, h, area in stats[1:n] if area >= 6 and x > 0 and y > 0
    ]
    if not boxes:
        raise TemplateError(f"no index found on the face of {card}")
    rank = min(boxes, key=lambda b: b[0] + b[1])
    height = rank[3] - rank[1]
    for b in sorted(boxes):
        same_line = abs(b[1] - rank[1]) < 0.2 * height and abs(b[3] - rank[3]) < 0.2 * height
        if b != rank and same_line and b[0] >= rank[0] and b[0] - rank[2] < 0.4 * height:
            rank = (rank[0], min(rank[1], b[1]), max(rank[2], b[2]), max(rank[3], b[3]))
    below = [b for b in boxes if b[1] >= rank[3] - 1 and min(b[2], rank[2]) - max(b[0], rank[0]) > 0]
    if not below:
        raise TemplateError(f"no suit found below the rank in the index of {card}")
    suit = min(below, key=lambda b: b[1])
    return _shift(rank, p), _shift(suit, p)


def _shift(box: Box, by: int) -> Box:
    return (box[0] + by, box[1] + by, box[2] + by, box[3] + by)


def _crop(dark: np.ndarray, box: tuple[int, int, int, int], pad: int = 2) -> np.ndarray:
    x0, y0, x1, y1 = box
    return dark[max(0, y0 - pad) : y1 + pad, max(0, x0 - pad) : x1 + pad].copy()


def _window(boxes: list[Box], margin: int = _MARGIN + 2) -> Box:
    a = np.array(boxes)
    return (
        max(0, int(a[:, 0].min()) - margin),
        max(0, int(a[:, 1].min()) - margin),
        min(CANONICAL_W + 2 * CANONICAL_PAD, int(a[:, 2].max()) + margin),
        min(CANONICAL_H + 2 * CANONICAL_PAD, int(a[:, 3].max()) + margin),
    )


# ---- reading one card ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _CornerRead:
    rank: str
    suit: str
    confidence: float
    red: bool | None
    score: float = 0.0  # the weaker of the rank's and the suit's best correlation


def _scores(region: np.ndarray, templates: dict[str, np.ndarray]) -> list[tuple[float, str]]:
    out = []
    for key, glyph in templates.items():
        if glyph.shape[0] > region.shape[0] or glyph.shape[1] > region.shape[1]:
            continue
        out.append((float(cv2.matchTemplate(region, glyph, cv2.TM_CCOEFF_NORMED).max()), key))
    return sorted(out, reverse=True)


def _quality(scores: list[tuple[float, str]], likeness: dict[tuple[str, str], float]) -> float:
    """How sure a template match is: a high best score, and clear of the runner-up *relative to
    how alike the two glyphs are* (a club and a spade correlate at 0.9 when blurred: a 0.03
    lead between them means as much as a 0.3 lead between a 7 and a K)."""
    if len(scores) < 2:
        return 0.0
    (best, first), (second, runner) = scores[0], scores[1]
    gap = max(0.02, 1.0 - likeness.get((first, runner), 0.0))
    return float(np.clip((best - 0.5) / 0.3, 0, 1) * np.clip((best - second) / gap / 0.4, 0, 1))


_SUITS_OF_COLOUR = {True: {"H", "D", STAR}, False: {"C", "S", STAR}}


def _read_corner(card: np.ndarray, dark: np.ndarray, templates: IndexTemplates) -> _CornerRead:
    """One corner's rank, suit and ink colour. With the colour known, the suit competes only
    against the suit of the same colour (a diamond against a heart): that margin is what matters."""
    red = _colour(_redness(card, dark, templates.index_box))
    x0, y0, x1, y1 = templates.rank_window
    ranks = _scores(dark[y0:y1, x0:x1], templates.ranks)
    x0, y0, x1, y1 = templates.suit_window
    suit_templates = templates.suits
    if red is not None:
        suit_templates = {k: v for k, v in suit_templates.items() if k in _SUITS_OF_COLOUR[red]}
    suits = _scores(dark[y0:y1, x0:x1], suit_templates)
    if not ranks or not suits:
        return _CornerRead("", "", 0.0, red)
    quality = min(_quality(ranks, templates.likeness), _quality(suits, templates.likeness))
    return _CornerRead(ranks[0][1], suits[0][1], quality, red, min(ranks[0][0], suits[0][0]))


def _normalised(card: np.ndarray) -> np.ndarray:
    """The card with its paper brought to white: uneven light and grey exposure cancel."""
    grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
    paper = float(np.percentile(grey[::3, ::3], 90))  # a subsample judges the paper as well
    return np.clip(card.astype(np.float32) * (245.0 / max(paper, 40.0)), 0, 255).astype(np.uint8)


def _redness(patch: np.ndarray, dark: np.ndarray, box: Box) -> float | None:
    """Mean redness of the ink in one index corner; None when there is too little ink to judge."""
    # Inside the card only: the margin around it may show a red-brown table.
    x0, y0 = max(box[0], CANONICAL_PAD), max(box[1], CANONICAL_PAD)
    x1, y1 = box[2], box[3]
    ink = dark[y0:y1, x0:x1] > 2 * _INK
    if np.count_nonzero(ink) < 20:
        return None
    p = patch[y0:y1, x0:x1][ink].astype(np.float32)
    return float(np.mean(p[:, 2] - (p[:, 0] + p[:, 1]) / 2))


def body_reading(dark: np.ndarray, box: Box) -> str:
    """The body's own say: ``"picture"``, ``"ace"``, or the number of pips as a string."""
    x0, y0, x1, y1 = box
    body = (dark[y0:y1, x0:x1] > 2 * _INK).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(body)
    return reading_of_blobs(stats[1:n], body.shape)


def reading_of_blobs(stats: np.ndarray, shape: tuple[int, ...]) -> str:
    """:func:`body_reading` from the body's ink blobs (connected-component stats, background
    left out) and the body's shape: shared with the generic reader, which keeps the blobs."""
    bh, bw = shape[:2]
    size = bh * bw
    big = [s for s in stats if s[cv2.CC_STAT_AREA] >= 0.003 * size]
    if len(big) == 1 and big[0][cv2.CC_STAT_AREA] > 0.03 * size and _solidity(big[0]) > 0.35:
        return "ace"  # one large solid pip
    # A pip spans a fifth of the body at most; a picture's frame or figure much more.
    if any(s[cv2.CC_STAT_WIDTH] > 0.45 * bw or s[cv2.CC_STAT_HEIGHT] > 0.45 * bh for s in big):
        return "picture"
    return str(len(big))


def _solidity(stats: np.ndarray) -> float:
    return float(stats[cv2.CC_STAT_AREA]) / max(1, stats[cv2.CC_STAT_WIDTH] * stats[cv2.CC_STAT_HEIGHT])


def _card_from(rank: str, suit: str, red: bool | None) -> Card | None:
    if rank == JOKER or suit == STAR:
        if rank != JOKER or suit != STAR or red is None:
            return None
        return Card(BIG_JOKER if red else LITTLE_JOKER)
    card = Card.from_str(rank + suit)
    if red is not None and red != (card.suit in (Suit.HEARTS, Suit.DIAMONDS)):
        return None  # the ink's colour contradicts the suit read
    return card


def _colour(redness: float | None) -> bool | None:
    if redness is None:
        return None
    if redness > 35:
        return True
    return False if redness < 15 else None


def read_card(card: np.ndarray, templates: IndexTemplates, body_visible: bool = True) -> CardRead:
    """Read a canonical upright card (BGR). ``body_visible`` False (another card lies across it)
    skips the body check, which would then count someone else's pips."""
    card = _normalised(card)
    dark = _darkness(card)
    top = _read_corner(card, dark, templates)
    bottom = _read_corner(cv2.flip(card, -1), cv2.flip(dark, -1), templates)  # the far corner, turned upright
    # A corner counts only with its colour judged: the colour is what keeps D from C and S from H.
    corners = [c for c in (top, bottom) if c.confidence >= 0.3 and c.red is not None]
    if not corners:
        return CardRead(None, max(top.confidence, bottom.confidence), "no readable index")
    if len({(c.rank, c.suit, c.red) for c in corners}) > 1:
        return CardRead(None, 0.0, f"corners disagree: {top.rank}{top.suit} / {bottom.rank}{bottom.suit}")
    rank, suit = corners[0].rank, corners[0].suit
    if len(corners) == 2:
        confidence = 1 - (1 - top.confidence) * (1 - bottom.confidence)
    elif corners[0].score < _LONE_CORNER_SCORE:
        return CardRead(None, 0.0, f"one corner only, and not a close match: {rank}{suit}")
    else:
        confidence = 0.9 * corners[0].confidence
    identity = _card_from(rank, suit, corners[0].red)
    if identity is None:
        return CardRead(None, 0.0, f"colour contradicts {rank}{suit}")
    expected = templates.bodies.get(identity)
    if body_visible and expected is not None:
        # The body must look like the template card's body: pips counted, a picture, one big pip.
        seen = body_reading(dark, templates.body_box)
        # Only a body that looks like *another* card of the suit vetoes (an ace's index over four
        # pips): a blurred picture that looks like nothing in particular says nothing.
        rivals = [c for c, b in templates.bodies.items() if b == seen and c != identity and c.suit == identity.suit]
        if seen != expected and rivals:
            return CardRead(None, 0.0, f"index says {identity} but the body shows {seen}")
    elif len(corners) == 1:
        confidence *= 0.9
    if confidence < ACCEPT:
        return CardRead(None, confidence, f"unsure: {identity}")
    return CardRead(identity, float(confidence), "")
