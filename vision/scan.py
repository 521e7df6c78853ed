"""One image in, the cards recognised in it out: detection, warping and reading put together.

A function of the frame, the reader (a deck's templates, or the generic reader) and (optionally)
the card size in pixels that the mat's scale gives; given a :class:`ReadMemo`, also of the
previous frame's reads (a card that did not change is not read again). Used by ``croupier vision
scan`` and, frame by frame, by the observer.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from engine.cards import Card
from vision.classify import CardRead, CardReader
from vision.detect import CANONICAL_H, CANONICAL_PAD, CANONICAL_W, Blob, CardQuad, find_blobs, warp_card

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


_SAME_CORNERS_PX = 2.0  # an outline within this of last frame's, at every corner, is the same place
_SAME_PIXELS = 4.0  # mean grey-level difference of two thumbnails that is still camera noise
_THUMB = (22, 30)
# A blob is the one seen before when its box moved at most this (frame pixels; a work pixel is
# two at 1080p, and the paper mask's edge wavers with the table's brightness estimate) ...
_SAME_BOX_PX = 4
_SAME_AREA = 0.03  # ... and its area changed at most this share; its cards hold when
_STILL = 10  # no 1/8-scale grey pixel around it changed more than this (camera noise),
_SAME_SHAPE = 0.005  # its outlines when at most this share of its card pixels changed
_GLANCE_MARGIN = 2  # 1/8-scale pixels around a blob's box that must be unchanged too
_SECOND_LOOKS = 2  # further candidates read at the place of a card read in a pile
# A pile's read at least this sure needs no second candidate to agree with it (a lone corner
# read at its best quality scores 0.81). Wrong pile reads seen while tuning scored 0.57-0.71,
# and three at 0.81 that a neighbouring candidate disputed (it read the true card).
_SURE = 0.7
_BOTH_CORNERS = 0.9  # above what one corner alone can score (0.81): both corners read the card


@dataclass(frozen=True, slots=True)
class _Remembered:
    corners: np.ndarray
    thumb: np.ndarray
    body_visible: bool
    read: CardRead


@dataclass(frozen=True, slots=True)
class _KnownBlob:
    blob: Blob
    glance: tuple[tuple[int, int, int, int], np.ndarray, np.ndarray]  # where, what it showed, the blob's pixels
    found: list[Recognition]
    reads: list[_Remembered]  # the reads made in it, kept for when it changes


class ReadMemo:
    """The reads of the previous frame, to skip re-reading a card that has not moved: at a live
    table most cards lie still for many frames, and reading is the costly step. A read is reused
    only for an outline at the same place (every corner within two pixels) whose warped pixels
    look the same (a 22x30 thumbnail within camera noise): a card swapped for another in the
    same spot changes its thumbnail far more than that."""

    def __init__(self) -> None:
        self._last: list[_Remembered] = []
        self._now: list[_Remembered] = []
        self.hits = 0
        self.misses = 0
        # Blobs of card pixels and the cards found in them (kept when given the frames' glances).
        self._last_blobs: list[_KnownBlob] = []
        self._now_blobs: list[_KnownBlob] = []
        self.blobs_kept = 0
        self.put_off = 0

    def next_frame(self) -> None:
        self._last, self._now = self._now, []
        self._last_blobs, self._now_blobs = self._now_blobs, []

    def known_blob(self, blob: Blob, glance: np.ndarray) -> tuple[_KnownBlob, bool] | None:
        """The blob of the previous frame at the same place (every side of its box within
        ``_SAME_BOX_PX``, its area within ``_SAME_AREA``), and whether its cards still hold
        (its glance, with a margin, unchanged beyond camera noise since they were found). A
        blob whose glance changed is still the one seen before when its card pixels are the same
        ones (all but ``_SAME_SHAPE`` of them): then its outlines hold, but not its reads."""
        for old in self._last_blobs:
            if max(abs(a - b) for a, b in zip(old.blob.box, blob.box, strict=True)) > _SAME_BOX_PX:
                continue
            if abs(old.blob.area - blob.area) > _SAME_AREA * max(old.blob.area, 1.0):
                continue
            (x0, y0, x1, y1), before, near = old.glance
            now = glance[y0:y1, x0:x1]
            if now.shape == before.shape and int(cv2.absdiff(now, before)[near].max(initial=0)) <= _STILL:
                return old, True
            if old.blob.work_box == blob.work_box:
                differ = np.count_nonzero(old.blob.shape != blob.shape)
                if differ <= _SAME_SHAPE * blob.area:
                    return old, False
        return None

    def remember_under(self, boxes: list[tuple[int, int, int, int]]) -> None:
        """The previous frame's blobs overlapping these boxes, kept for the next frame too."""
        kept = {id(b) for b in self._now_blobs}
        for old in self._last_blobs:
            if id(old) not in kept and any(_boxes_meet(old.blob.box, box) for box in boxes):
                self._now_blobs.append(old)

    def keep_blob(self, blob: _KnownBlob, again: bool = False) -> None:
        self._now_blobs.append(blob)
        if again:  # its reads stay at hand for the frame it changes in
            self._now += blob.reads
            self.blobs_kept += 1

    def read(self, frame: np.ndarray, quad: CardQuad, reader: CardReader, body_visible: bool) -> CardRead:
        thumb = _thumbnail(frame, quad)
        for old in self._last:
            same_place = old.body_visible == body_visible and _same_outline(old.corners, quad.corners)
            # An unknown read is never reused: it is read again (it may have been a frame with a
            # hand leaving the card); a card read is reused while it lies still.
            if same_place and old.read.card is not None and float(np.mean(np.abs(old.thumb - thumb))) <= _SAME_PIXELS:
                self.hits += 1
                self._now.append(old)
                return old.read
        self.misses += 1
        read = reader.read(warp_card(frame, quad), body_visible=body_visible)
        self._now.append(_Remembered(quad.corners, thumb, body_visible, read))
        return read


def _thumbnail(frame: np.ndarray, quad: CardQuad) -> np.ndarray:
    """The card at 22x30 in grey, warped at a quarter of the reader's size first (a sixteenth of
    a full warp's cost, which a card read before need not pay): each thumbnail pixel still
    averages several frame pixels, so that camera noise stays well under ``_SAME_PIXELS`` while
    an index or a pip changed does not."""
    p, w, h = CANONICAL_PAD / 4, CANONICAL_W / 4, CANONICAL_H / 4
    target = np.array([[p, p], [p + w, p], [p + w, p + h], [p, p + h]], np.float32)
    homography = cv2.getPerspectiveTransform(quad.corners.astype(np.float32), target)
    size = (round(w + 2 * p), round(h + 2 * p))
    small = cv2.warpPerspective(frame, homography, size, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return cv2.resize(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), _THUMB, interpolation=cv2.INTER_AREA).astype(np.float32)


def _same_outline(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.max(np.linalg.norm(a - b, axis=1)) <= _SAME_CORNERS_PX)


def _overlaps(quad: CardQuad, others: list[CardQuad]) -> bool:
    mine = quad.corners.astype(np.float32)
    return any(
        other is not quad and cv2.intersectConvexConvex(mine, other.corners.astype(np.float32))[0] > 1.0
        for other in others
    )


def recognise(
    frame: np.ndarray,
    reader: CardReader,
    card_size_px: tuple[float, float] | None = None,
    memo: ReadMemo | None = None,
    glance: np.ndarray | None = None,
    previous: np.ndarray | None = None,
) -> list[Recognition]:
    """Every card outline in ``frame`` with its read; unknown reads of single cards are kept
    (``card`` None). Candidates split out of a pile count only when their index reads. With a
    ``memo`` (one per camera), cards unchanged since the previous call are not read again; with
    the frame's ``glance`` too (grey, 1/8 scale) and the card size, a blob of card pixels whose
    glance has not changed since its cards were found is not worked on again (its cards hold).
    Given the ``previous`` frame's glance as well, a blob not seen before that is still changing
    (something moves over or next to it: a hand) is put off: it yields no card until it holds
    still for a frame (the tracker ignores such a zone anyway)."""
    memo = memo or ReadMemo()
    memo.next_frame()
    known = None
    held: dict[int, tuple[_KnownBlob, bool]] = {}
    put_off: set[int] = set()
    changed: list[tuple[int, int, int, int]] = []  # boxes of the blobs not as they were
    if glance is not None:

        def known(blob: Blob) -> tuple[CardQuad, ...] | None:
            match = memo.known_blob(blob, glance)
            if match is not None:
                held[id(blob.outline)] = match
                return match[0].blob.quads
            if previous is not None and _moving(blob, glance, previous):
                put_off.add(id(blob.outline))
                return ()
            return None

    found: list[Recognition] = []
    for blob in find_blobs(frame, card_size_px, known):
        old, still = held.get(id(blob.outline), (None, False))
        # A blob with a card left unread is worked on again: that read may succeed now.
        if old is not None and still and all(rec.card is not None for rec in old.found):
            memo.keep_blob(old, again=True)
            found += old.found
            continue
        if id(blob.outline) in put_off:
            memo.put_off += 1
            changed.append(blob.box)
            continue
        changed.append(blob.box)
        start = len(memo._now)
        cards = _recognise_blob(frame, blob, reader, memo)
        if glance is not None:
            memo.keep_blob(_KnownBlob(blob, _patch(glance, blob), cards, memo._now[start:]))
        found += cards
    # What lay where a blob changed is remembered still: when the hand has gone and the glance
    # there is back to what it was, those cards hold again without being worked on.
    memo.remember_under(changed)
    return _one_per_card(found)


def _boxes_meet(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _moving(blob: Blob, glance: np.ndarray, previous: np.ndarray) -> bool:
    """Some 1/8-scale grey pixel over the blob or near it changed since the previous frame."""
    (x0, y0, x1, y1), now, near = _patch(glance, blob)
    before = previous[y0:y1, x0:x1]
    return before.shape == now.shape and int(cv2.absdiff(now, before)[near].max(initial=0)) > _STILL


def _recognise_blob(frame: np.ndarray, blob: Blob, reader: CardReader, memo: ReadMemo) -> list[Recognition]:
    quads = blob.quads
    singles = [q for q in quads if q.pile < 0]
    found = [_read(frame, quad, reader, not _overlaps(quad, singles), memo) for quad in singles]
    candidates = [q for q in quads if q.pile >= 0]
    if candidates:
        found += _read_pile(frame, candidates, reader, memo)
    return found


def _patch(glance: np.ndarray, blob: Blob) -> tuple[tuple[int, int, int, int], np.ndarray, np.ndarray]:
    """The glance over a blob (frame pixels), with a margin for the image edges the detector
    looks at next to the blob and for a hand or a card coming close: where in the glance, what
    it showed, and which of those pixels are the blob's (with its margin)."""
    h, w = glance.shape
    box = blob.box
    x0, y0 = max(0, box[0] // 8 - _GLANCE_MARGIN), max(0, box[1] // 8 - _GLANCE_MARGIN)
    x1, y1 = min(w, box[2] // 8 + 1 + _GLANCE_MARGIN), min(h, box[3] // 8 + 1 + _GLANCE_MARGIN)
    near = np.zeros((y1 - y0, x1 - x0), np.uint8)
    outline = np.round(blob.outline / 8 - (x0, y0)).astype(np.int32)
    cv2.fillPoly(near, [outline], 255)
    size = 2 * _GLANCE_MARGIN + 1
    near = cv2.dilate(near, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))) > 0
    return (x0, y0, x1, y1), glance[y0:y1, x0:x1].copy(), near


def _read(frame: np.ndarray, quad: CardQuad, reader: CardReader, body_visible: bool, memo: ReadMemo) -> Recognition:
    read = memo.read(frame, quad, reader, body_visible)
    if read.card is None:
        log.debug("card at %s not read: %s", quad.centre, read.detail)
    return Recognition(read.card, read.confidence, quad.corners, quad.centre)


@dataclass
class _Place:
    """One card's place in a pile: its first read, and what the next candidates there said."""

    first: Recognition
    second_looks: int = 0
    confirmed: bool = False  # another candidate here read the same card
    disputed: bool = False  # another candidate here read another card

    @property
    def settled(self) -> bool:
        """Both corners read alike from one outline, closely: no second look is needed."""
        return self.first.confidence >= _BOTH_CORNERS


def _read_pile(frame: np.ndarray, candidates: list[CardQuad], reader: CardReader, memo: ReadMemo) -> list[Recognition]:
    """The cards of one pile. A candidate that reads nothing is dropped, not reported as unknown:
    it is a guess at an outline, and only an index upright in its corner shows it is a card (a
    read pins the outline: the glyphs are searched a few pixels around where the deck prints
    them). The body check is skipped, since a pile's neighbours lie across each card's body, so
    the next candidates at the same place, a few pixels apart, are read too: the card counts if
    none of them reads another card, and, unless its own read is sure, one reads the same card
    (a club taken for a spade from one outline is seldom taken for it from the next)."""
    places: list[_Place] = []
    for quad in candidates:
        place = next((p for p in places if _covered(quad.corners, p.first.corners)), None)
        if place is not None and (place.disputed or place.second_looks >= _SECOND_LOOKS or place.settled):
            continue
        rec = _read(frame, quad, reader, False, memo)
        if place is None:
            if rec.card is not None:
                places.append(_Place(rec))
            continue
        place.second_looks += 1
        place.confirmed |= rec.card == place.first.card
        place.disputed |= rec.card is not None and rec.card != place.first.card
    return [p.first for p in places if not p.disputed and (p.confirmed or p.first.confidence >= _SURE)]


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
