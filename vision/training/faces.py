"""Card faces to compose scenes from, each with the boxes of its corner indices.

Three sources, all allowed for training: the project's own faces, the three Debian designs the
project may learn from (``kde:standard``, ``kde:nicu-white``, ``aisleriot:anglo``), and cards
drawn here with indices in many fonts (:func:`font_face`), so that no one design's glyphs are
what the detector learns. An index box is ``(x0, y0, x1, y1)`` in face pixels, upright; every
face has its second index turned 180 degrees in the opposite corner.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from engine.cards import BIG_JOKER, Card

log = logging.getLogger(__name__)

ALLOWED_DECKS = ("kde:standard", "kde:nicu-white", "aisleriot:anglo")
FONT_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts/opentype"))
SUIT_GLYPHS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


@dataclass(frozen=True, slots=True)
class Face:
    """One card's face (BGR, upright, portrait) and its upright top-left index box."""

    card: Card
    image: np.ndarray
    index_box: tuple[float, float, float, float]
    design: str

    def index_boxes(self) -> list[tuple[tuple[float, float], float, float, float]]:
        """Both indices as (centre, width, height, up-angle in degrees; 0 means up is -y)."""
        x0, y0, x1, y1 = self.index_box
        h, w = self.image.shape[:2]
        centre = ((x0 + x1) / 2, (y0 + y1) / 2)
        turned = (w - centre[0], h - centre[1])
        return [(centre, x1 - x0, y1 - y0, 0.0), (turned, x1 - x0, y1 - y0, 180.0)]


def _darkness(image: np.ndarray) -> np.ndarray:
    return 255 - image.min(axis=2)


def find_index_box(image: np.ndarray, joker: bool = False) -> tuple[float, float, float, float] | None:
    """The top-left index of a rendered face: the ink nearest the corner (the rank, with a ten's
    second digit beside it), then what hangs under it (the suit; a joker's word, letter by letter).
    Border lines, picture frames and the body's pips are left out."""
    h, w = image.shape[:2]
    region = _darkness(image[: int(0.45 * h), : int(0.3 * w)])
    ink = (region > 70).astype(np.uint8)
    _n, _, stats, _ = cv2.connectedComponentsWithStats(ink)
    parts = [
        (int(x), int(y), int(x + bw), int(y + bh))
        for x, y, bw, bh, area in stats[1:]
        if bw < 0.2 * w and bh < 0.2 * h and area >= 0.00015 * w * h
    ]
    if not parts:
        return None
    box = list(min(parts, key=lambda p: p[0] + p[1]))
    glyph_h = box[3] - box[1]
    for p in parts:  # a ten's other digit: beside the first, on the same line
        if p != tuple(box) and abs(p[1] - box[1]) < 0.3 * glyph_h and 0 <= p[0] - box[2] < 0.4 * glyph_h:
            box = [box[0], min(box[1], p[1]), p[2], max(box[3], p[3])]
    for _ in range(6 if joker else 1):
        # A joker's word, letter under letter: a letter may be wider than the one above it (an O
        # under a J), though never wider than the first letter is tall.
        below = [p for p in parts if _hangs_under(box, p, glyph_h if joker else 0)]
        if not below:
            break
        p = min(below, key=lambda q: q[1])
        box = [min(box[0], p[0]), box[1], max(box[2], p[2]), p[3]]
    return (box[0] - 2.0, box[1] - 2.0, box[2] + 2.0, box[3] + 2.0)


def _hangs_under(box: list[int], p: tuple[int, int, int, int], letter_h: int = 0) -> bool:
    """``p`` lies just under ``box``, centred on it, no wider than a glyph and a half (the glyph:
    the box's width, or a letter ``letter_h`` tall, whichever is wider)."""
    width, centre = max(box[2] - box[0], letter_h), (p[0] + p[2]) / 2
    gap = p[1] - box[3]
    return (
        -2 <= gap < 0.6 * max(width, 8) + 4
        and box[0] - 0.2 * width <= centre <= box[2] + 0.2 * width
        and (p[2] - p[0] < 1.6 * width + 4)
    )


def _checked_boxes(faces: list[tuple[Card, np.ndarray]], design: str) -> list[Face]:
    """Faces whose found index box agrees with the design's median (court cards' pictures can
    reach into the corner): an outlier takes the median box, widened to its own rank."""
    found = [(card, image, find_index_box(image, card.is_joker)) for card, image in faces]
    boxes = np.array([b for c, _, b in found if b is not None and not c.is_joker])
    median = np.median(boxes, axis=0)
    out = []
    for card, image, box in found:
        if (
            box is None
            or (not card.is_joker and abs(box[3] - median[3]) > 0.25 * (median[3] - median[1]))
            or box[1] > median[1] + 6
        ):
            box = tuple(float(v) for v in median)
        out.append(Face(card, image, box, design))
    return out


@cache
def design_faces(design: str) -> tuple[Face, ...]:
    """The faces of one allowed design ("project" or a Debian one), with their index boxes."""
    if design == "project":
        from simulators.card_faces import RANK_BOX, SUIT_CENTRE, SUIT_SIZE, all_faces

        x, y, bw, _bh = RANK_BOX
        box = (x - 2.0, y - 2.0, x + bw + 2.0, SUIT_CENTRE[1] + SUIT_SIZE + 2.0)
        return tuple(Face(c, im, box, design) for c, im in all_faces())
    from vision.decks import deck_faces

    return tuple(_checked_boxes(deck_faces(design), design))


def enrolled_faces(folder: Path) -> tuple[Face, ...]:
    """An enrolled deck's faces (``croupier vision enroll``), with their index boxes found."""
    from vision.enrol import load_deck

    return tuple(_checked_boxes(load_deck(folder), f"enrolled:{folder.name}"))


def available_designs() -> list[str]:
    from vision.decks import deck_available

    return ["project", *[d for d in ALLOWED_DECKS if deck_available(d)]]


@cache
def fonts() -> tuple[Path, ...]:
    """Every TrueType or OpenType font on the machine with Latin digits and letters (not symbol
    or script-only fonts): the rank glyphs of the drawn cards."""
    found = []
    for root in FONT_DIRS:
        if root.is_dir():
            found += [p for p in root.rglob("*") if p.suffix.lower() in (".ttf", ".otf")]
    latin = [p for p in sorted(found) if _latin(p)]
    log.info("%d fonts for drawn indices", len(latin))
    return tuple(latin)


def _latin(path: Path) -> bool:
    name = path.name.lower()
    if "noto" in name and not any(k in name for k in ("notosans-", "notoserif-", "notosansmono", "notoserifdisplay")):
        return False  # Noto's script fonts lack Latin letters
    return not any(k in name for k in ("math", "symbol", "dingbat", "music", "emoji", "z003"))


@cache
def suit_fonts() -> tuple[Path, ...]:
    """Fonts that draw the four suit symbols."""
    keep = []
    for p in fonts():
        n = p.name.lower()
        if any(k in n for k in ("dejavu", "freesans", "freeserif", "freemono", "notosanssymbols")):
            keep.append(p)
    return tuple(keep) or fonts()


CARD_W, CARD_H = 250, 350
RANK_TEXT = {"T": "10"}
JOKER_WORDS = ("JOKER", "J", "★", "JK")  # down the corner, letter under letter
JOKER_WORDS_ACROSS = ("JOKER", "Joker", "joker")  # across the top, as many decks print it
ACROSS = 0.5  # the share of drawn jokers whose word runs across the top


def font_face(rng: np.random.Generator, card: Card) -> Face:
    """A card drawn here: its index in a random font, size, weight and colour on a plain face,
    with pips or a picture of random shapes in the body."""
    from PIL import Image, ImageDraw

    paper = tuple(int(v) for v in rng.uniform([225, 225, 215], [255, 255, 255]))
    img = Image.new("RGB", (CARD_W, CARD_H), paper)
    draw = ImageDraw.Draw(img)
    red = (card.is_joker and card.index == BIG_JOKER) or (not card.is_joker and str(card)[1] in "DH")
    ink = _ink(rng, red)
    font_path = fonts()[rng.integers(len(fonts()))]
    suit_path = suit_fonts()[rng.integers(len(suit_fonts()))]
    rank_px = int(rng.uniform(0.09, 0.15) * CARD_H)
    left, top = rng.uniform(0.025, 0.06) * CARD_W, rng.uniform(0.02, 0.05) * CARD_H
    code = str(card)
    if card.is_joker and rng.random() < ACROSS:
        box = _draw_joker_across(draw, rng, font_path, rank_px, (left, top), ink)
    elif card.is_joker:
        box = _draw_joker_index(draw, rng, font_path, rank_px, (left, top), ink)
    else:
        box = _draw_plain_index(draw, rng, font_path, suit_path, code, rank_px, (left, top), ink)
    _draw_body(draw, rng, suit_path, card, ink)
    image = cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR)
    if rng.random() < 0.3:  # a frame line around the body, as many designs have
        m = int(rng.uniform(0.18, 0.24) * CARD_W)
        cv2.rectangle(image, (m, m), (CARD_W - m, CARD_H - m), tuple(int(v) for v in ink[::-1]), 1)
    full = image.copy()
    x0, y0, x1, y1 = (max(0, int(v)) for v in box)
    full[CARD_H - y1 : CARD_H - y0, CARD_W - x1 : CARD_W - x0] = image[y0:y1, x0:x1][::-1, ::-1]
    _border(full, rng)
    return Face(card, full, box, "drawn")


def _ink(rng: np.random.Generator, red: bool) -> tuple[int, int, int]:
    if red:
        return (int(rng.uniform(170, 240)), int(rng.uniform(0, 50)), int(rng.uniform(0, 60)))
    v = int(rng.uniform(0, 50))
    return (v, v, v + int(rng.uniform(0, 30)))


def _font(path: Path, size: int):
    from PIL import ImageFont

    return ImageFont.truetype(str(path), size)


def _draw_plain_index(draw, rng, font_path, suit_path, code, rank_px, at, ink) -> tuple[float, float, float, float]:
    text = RANK_TEXT.get(code[0], code[0])
    font = _font(font_path, rank_px)
    x, y = at
    rank_box = draw.textbbox((x, y), text, font=font, anchor="lt")
    if text == "10" and rng.random() < 0.5:  # some designs squeeze the ten
        font = _font(font_path, int(rank_px * 0.8))
        rank_box = draw.textbbox((x, y), text, font=font, anchor="lt")
    draw.text((x, y), text, font=font, fill=ink, anchor="lt")
    suit_px = int(rank_px * rng.uniform(0.7, 1.05))
    suit_font = _font(suit_path, suit_px)
    glyph = SUIT_GLYPHS[code[1]]
    sx = (rank_box[0] + rank_box[2]) / 2
    sy = rank_box[3] + rank_px * rng.uniform(0.05, 0.25)
    sbox = draw.textbbox((sx, sy), glyph, font=suit_font, anchor="mt")
    draw.text((sx, sy), glyph, font=suit_font, fill=ink, anchor="mt")
    return (
        min(rank_box[0], sbox[0]) - 2,
        min(rank_box[1], sbox[1]) - 2,
        max(rank_box[2], sbox[2]) + 2,
        max(rank_box[3], sbox[3]) + 2,
    )


def _draw_joker_index(draw, rng, font_path, rank_px, at, ink) -> tuple[float, float, float, float]:
    word = JOKER_WORDS[rng.integers(len(JOKER_WORDS))]
    font = _font(font_path, int(rank_px * (0.6 if len(word) > 2 else 1.0)))
    x, y = at
    boxes = []
    for letter in word:  # written down the corner, one letter under another
        b = draw.textbbox((x, y), letter, font=font, anchor="lt")
        if letter == "★":
            b = (x, y, x + rank_px, y + rank_px)
            draw.regular_polygon((x + rank_px / 2, y + rank_px / 2, rank_px / 2), 5, fill=ink)
        else:
            draw.text((x, y), letter, font=font, fill=ink, anchor="lt")
        boxes.append(b)
        y = b[3] + rank_px * 0.08
    return (
        min(b[0] for b in boxes) - 2,
        min(b[1] for b in boxes) - 2,
        max(b[2] for b in boxes) + 2,
        max(b[3] for b in boxes) + 2,
    )


def _draw_joker_across(draw, rng, font_path, rank_px, at, ink) -> tuple[float, float, float, float]:
    """A joker's word written across the card's top, from the corner or centred."""
    word = JOKER_WORDS_ACROSS[rng.integers(len(JOKER_WORDS_ACROSS))]
    font = _font(font_path, int(rank_px * rng.uniform(0.55, 0.9)))
    x, y = at
    if rng.random() < 0.5:
        x, anchor = CARD_W / 2, "mt"
    else:
        anchor = "lt"
    box = draw.textbbox((x, y), word, font=font, anchor=anchor)
    draw.text((x, y), word, font=font, fill=ink, anchor=anchor)
    return (box[0] - 2, box[1] - 2, box[2] + 2, box[3] + 2)


def _draw_body(draw, rng, suit_path, card: Card, ink) -> None:
    """Pips for a number card, a picture of random shapes for a court card or a joker."""
    rank = card.rank
    if card.is_joker or (rank is not None and rank >= 9 and rank != 12):
        for _ in range(int(rng.integers(4, 12))):
            x0, y0 = rng.uniform(0.25, 0.7) * CARD_W, rng.uniform(0.18, 0.75) * CARD_H
            x1, y1 = x0 + rng.uniform(10, 60), y0 + rng.uniform(10, 80)
            colour = tuple(int(v) for v in rng.integers(0, 255, 3))
            (draw.ellipse if rng.random() < 0.5 else draw.rectangle)((x0, y0, x1, y1), fill=colour)
        return
    from simulators.card_faces import PIP_LAYOUTS  # where a number card's pips go

    count = 1 if rank == 12 else int(rank) + 2
    size = int((0.35 if count == 1 else rng.uniform(0.12, 0.16)) * CARD_H)
    font = _font(suit_path, size)
    for u, v in PIP_LAYOUTS.get(count, [(0.5, 0.5)]):
        x = CARD_W * (0.3 + 0.4 * u) if count > 1 else CARD_W / 2
        y = CARD_H * (0.22 + 0.56 * v) if count > 1 else CARD_H / 2
        draw.text((x, y), SUIT_GLYPHS[str(card)[1]], font=font, fill=ink, anchor="mm")


def _border(image: np.ndarray, rng: np.random.Generator) -> None:
    if rng.random() < 0.4:
        colour = tuple(int(v) for v in rng.integers(0, 120, 3))
        cv2.rectangle(image, (0, 0), (CARD_W - 1, CARD_H - 1), colour, int(rng.integers(1, 3)))
