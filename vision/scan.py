"""One image in, the cards recognised in it out: detection, warping and reading put together.

A function of the frame, the reader (a deck's templates, or the generic reader) and (optionally)
the card size in pixels that the mat's scale gives; given a :class:`ReadMemo`, also of the
previous frame's reads (a card that did not change is not read again). Used by ``croupier vision
scan`` and, frame by frame, by the observer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from engine.cards import Card
from vision.classify import CardRead, CardReader
from vision.detect import (
    CANONICAL_H,
    CANONICAL_PAD,
    CANONICAL_W,
    SPLIT_FIRST_STEP,
    Blob,
    CardQuad,
    Paper,
    find_blobs,
    paper,
    warp_card,
)
from vision.outline import turned_about

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Recognition:
    """A card found in an image: its identity (None: unknown), confidence, outline and centre."""

    card: Card | None
    confidence: float
    corners: np.ndarray  # 4 x 2, image pixels, clockwise
    center: tuple[float, float]
    leaning: Card | None = None  # unknown, but the card its read leaned to (vision.classify.CardRead)
    glimpse: Card | None = None  # ... or, short of leaning, glimpsed (vision.classify.CardRead)

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
_NEAR = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * _GLANCE_MARGIN + 1, 2 * _GLANCE_MARGIN + 1))
_SECOND_LOOKS = 2  # further candidates read at the place of a card read in a pile
# ... or, where its first read is short of sure (_SURE) and no look has yet read the same card,
# this many: a lone index read a little short of clear is often the first of several candidates
# there, and the next few, a pixel or two off, read nothing (see _Place.looks).
_SECOND_LOOKS_UNSURE = 6
# ... and, where none of those read its card, one look through its own outline grown by this
# share (tried: the eight moves of ``_NUDGES`` in turn; on seeds 1-11 of the benchmark only the
# grown one ever confirmed a place, 22 times, and none disputed one: docs/vision.md, session 11).
_GROWN_LOOK = 0.03
_GLIMPSE_LOOKS = 3  # outlines that glimpsed a place's card read again grown (see _glimpsed_places)
# A pile's read at least this sure needs no second candidate to agree with it (a lone corner
# read at its best quality scores 0.81). Wrong pile reads seen while tuning scored 0.57-0.71,
# and three at 0.81 that a neighbouring candidate disputed (it read the true card).
_SURE = 0.7
# Of a card's short side: a candidate further off a place's outline than the first is no second
# look at it but a card of its own (a fan's neighbours lie 0.45-0.7 apart), up to the second.
_OWN_PLACE = (0.2, 0.75)
_BOTH_CORNERS = 0.9  # above what one corner alone can score (0.81): both corners read the card
# The work budget's units: a single card's read (its warp and the reader, ~2.7 ms at 1080p) is one
# unit; splitting a pile into candidate outlines costs about two per card's worth of its area.
_SPLIT_UNITS = 2.0
_PILE_READS = 2.0  # reads a pile takes per card's worth of its area (candidates, second looks)
# A read with the body hidden (a pile's candidate: ~3.5 ms with its warp at 1080p, against ~2.7
# for a single card's) looks harder for an index, often where none lies.
_HIDDEN_READ_UNITS = 1.3
_PAPER_UNITS = 2.0  # the paper mask of a changed frame (~5.5 ms at 1080p, ~7 at 720p)
_OUTLINE_UNITS = 0.5  # a new single card's outline found and fitted to the frame's edges (~1.5 ms)
_SINGLE = 1.35  # cards' worth of area below which a blob is taken for one card (one read)
# A blob longer or wider than this many cards' long sides is larger than any trick: its work
# comes after every other blob's.
_HUGE_SPAN = 5
_NO_CARD = 0.6  # ... and below which it holds no card to read (a marker's frame, a cut-off corner)


# The glance over a blob (see _patch): where in the glance, what it showed, the blob's pixels.
_GlancePatch = tuple[tuple[int, int, int, int], np.ndarray, np.ndarray]


@dataclass(frozen=True, slots=True)
class _Remembered:
    corners: np.ndarray
    thumb: np.ndarray
    body_visible: bool
    read: CardRead
    looks: int = 0  # the reads in a row, unknown, of a single card at this place (see ReadMemo.read)


@dataclass(slots=True)
class _Waiting:
    """A blob whose work the budget left for a later frame: since when it waits (the memo's frame
    count), whether its outlines were found (``detected``), the reads made in it so far (by
    the id of the outline read, one of its blob's ``quads``), and, when it is a pile whose split
    into candidates was begun, that split (:func:`vision.detect.split_steps`), to go on with."""

    since: int
    detected: bool
    done: dict[int, _Remembered] = field(default_factory=dict)
    split: _Split | None = None  # its pile's split, begun


@dataclass(slots=True)
class _Split:
    """A pile's split into candidates (:func:`vision.detect.split_steps`), begun: its steps, and
    what the next one costs (each step says what the one after it costs)."""

    steps: Generator[float, None, list[np.ndarray]]
    next_units: float = SPLIT_FIRST_STEP


@dataclass(frozen=True, slots=True)
class _KnownBlob:
    blob: Blob
    glance: _GlancePatch
    found: list[Recognition]
    reads: list[_Remembered]  # the reads made in it, kept for when it changes
    waiting: _Waiting | None = None  # its work is not done: it yields no card yet


class _OutOfBudget(Exception):
    """The frame's work budget is spent: the blob being read waits for the next frame."""


@dataclass(slots=True)
class _Work:
    """What one frame may still spend (``units`` None: no limit) and has spent, in work units."""

    units: float | None
    spent: float = 0.0
    reads: int = 0
    steps: int = 0  # steps of piles' splits
    worked: bool = False  # some card work (a split or a read) was done this frame

    def read(self, units: float = 1.0) -> None:
        """Pay for one read (``units``), or raise :class:`_OutOfBudget`. The first piece of card
        work in a frame is always paid for, so that every frame gets something done."""
        if self.units is not None and self.worked and self.spent + units > self.units:
            raise _OutOfBudget
        self.spent += units
        self.reads += 1
        self.worked = True

    def step(self, units: float) -> bool:
        """Pay for one step of a pile's split (``units``), or say the budget is spent (False);
        the first piece of card work in a frame is always paid for, as a read is."""
        if self.units is not None and self.worked and self.spent + units > self.units:
            return False
        self.spent += units
        self.steps += 1
        self.worked = True
        return True


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
        self.card_work = 0  # reads and split steps made in the last frame
        self.skipped = 0  # blobs not worked on under a hand or motion (``skip``), all frames together
        self.frame = 0  # frames seen (the age of a waiting blob is counted in them)
        self.deferred = 0  # blobs left for a later frame by the work budget, all frames together
        # The blobs whose work the budget left for a later frame, in the last frame: outlines in
        # frame pixels (the observer marks their zones busy: a card may lie there unread).
        self.waiting: list[np.ndarray] = []
        self.paper: Paper | None = None  # the last frame's card pixels
        self.paper_shape: tuple[int, ...] = ()

    def next_frame(self) -> None:
        self._last, self._now = self._now, []
        self._last_blobs, self._now_blobs = self._now_blobs, []
        self.frame += 1
        self.waiting = []

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

    def read(
        self,
        frame: np.ndarray,
        quad: CardQuad,
        reader: CardReader,
        body_visible: bool,
        work: _Work | None = None,
        done: dict[int, _Remembered] | None = None,
    ) -> CardRead:
        if done is not None and id(quad) in done:  # read in an earlier frame while its blob waited
            self._now.append(done[id(quad)])
            return done[id(quad)].read
        thumb = _thumbnail(frame, quad)
        looks = 0
        for old in self._last:
            same_place = old.body_visible == body_visible and _same_outline(old.corners, quad.corners)
            # An unknown read is never reused: it is read again (it may have been a frame with a
            # hand leaving the card); a card read is reused while it lies still.
            if same_place and old.read.card is not None and float(np.mean(np.abs(old.thumb - thumb))) <= _SAME_PIXELS:
                self.hits += 1
                self._now.append(old)
                if done is not None:
                    done[id(quad)] = old
                return old.read
            if same_place and old.read.card is None and quad.pile < 0:
                looks = max(looks, old.looks + 1)
        if work is not None:
            work.read(1.0 if body_visible else _HIDDEN_READ_UNITS)
        self.misses += 1
        # A single card read unknown at this place before is read again through an outline moved
        # a little (another one each time): a card that lies still shows the reader the same
        # pixels through the same outline, and an index a pixel or two outside where it looks is
        # missed in every frame alike.
        seen = quad if looks == 0 else replace(quad, corners=_nudged(quad.corners, looks))
        read = reader.read(warp_card(frame, seen), body_visible=body_visible)
        remembered = _Remembered(quad.corners, thumb, body_visible, read, looks)
        self._now.append(remembered)
        if done is not None:
            done[id(quad)] = remembered
        return read


# The moves of an outline read again (see ReadMemo.read), in the order tried: grown (the paper
# mask's outline lies inside the card), slid along either side, turned, shrunk. Each is (growth,
# share of its size; turn, degrees; slide across, slide along, shares of its short side).
_NUDGES = (
    (0.03, 0.0, 0.0, 0.0),
    (0.0, 0.0, 0.025, 0.0),
    (0.0, 0.0, -0.025, 0.0),
    (0.0, 0.0, 0.0, 0.025),
    (0.0, 0.0, 0.0, -0.025),
    (0.0, 1.5, 0.0, 0.0),
    (0.0, -1.5, 0.0, 0.0),
    (-0.03, 0.0, 0.0, 0.0),
)


def _nudged(corners: np.ndarray, looks: int) -> np.ndarray:
    """The outline's ``looks``-th move (``_NUDGES`` round and round, the outline itself between)."""
    k = looks % (len(_NUDGES) + 1)
    return corners if k == 0 else _moved(corners, *_NUDGES[k - 1])


def _moved(
    corners: np.ndarray, grow: float = 0.0, turn: float = 0.0, across: float = 0.0, along: float = 0.0
) -> np.ndarray:
    """An outline grown (a share of its size), turned (degrees) and slid across and along (shares
    of its short side) about its centre."""
    centre = corners.mean(axis=0)
    turned = (turned_about(corners, centre, np.deg2rad(turn)) - centre) * (1 + grow) + centre
    sides = np.array([corners[1] - corners[0], corners[3] - corners[0]])
    lengths = np.linalg.norm(sides, axis=1)
    moved: np.ndarray = turned + lengths.min() * (across * sides[0] / lengths[0] + along * sides[1] / lengths[1])
    return moved


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
    budget: float | None = None,
    priority: Callable[[Blob], float] | None = None,
    spent: float = 0.0,
    unchanged: bool = False,
    half: np.ndarray | None = None,
    skip: Callable[[Blob], bool] | None = None,
) -> list[Recognition]:
    """Every card outline in ``frame`` with its read; unknown reads of single cards are kept
    (``card`` None). Candidates split out of a pile count only when their index reads. With a
    ``memo`` (one per camera), cards unchanged since the previous call are not read again; with
    the frame's ``glance`` too (grey, 1/8 scale) and the card size, a blob of card pixels whose
    glance has not changed since its cards were found is not worked on again (its cards hold).
    Given the ``previous`` frame's glance as well, a blob not seen before that is still changing
    (something moves over or next to it: a hand) is put off: it yields no card until it holds
    still for a frame (the tracker ignores such a zone anyway).

    With a ``budget`` too (work units per frame: a single card's read is one, finding its outline
    half of one, a read with the body hidden 1.3, a pile's split about two per card's worth, in
    steps that each say what they cost; ``spent`` is what the frame already spent elsewhere), the
    blobs to work on are taken oldest waiting first, then by ``priority`` (lower first), and those
    the budget does not cover wait for the next frames (``memo.waiting``): a waiting blob yields no card,
    and a blob cut off in the middle of its reads goes on where it stopped while it holds still.
    A frame that computes its paper mask spends two units on it. The first piece of work in a
    frame (unless the frame ``spent`` some already, or computed its mask) is always done, so
    every blob's turn comes in the next still frame. A frame
    ``unchanged`` since the previous call (within camera noise) reuses its card pixels; ``half``
    is the frame halved (``INTER_AREA``), if the caller has it (:func:`vision.detect.paper`).

    A blob for which ``skip`` says yes (the observer: it lies in zones with a hand or motion over
    them, which the tracker ignores) is not worked on in this frame unless its cards hold as they
    are: it yields no card, costs nothing, and is worked on in a later frame without it."""
    memo = memo or ReadMemo()
    memo.next_frame()
    known = None
    triage = None
    split = None
    held: dict[int, tuple[_KnownBlob, bool]] = {}
    put_off: set[int] = set()
    skipped: set[int] = set()  # blobs under a hand or motion (``skip``), not worked on this frame
    deferred: set[int] = set()  # blobs left undetected by the budget this frame
    resumed: dict[int, _Split] = {}  # piles' splits begun before
    splitting: dict[int, _Split] = {}  # ... and left unfinished now
    allowed: dict[int, float] = {}  # the units a pile's split may spend this frame
    since: dict[int, int] = {}  # when each blob waiting for work began to wait
    rank: dict[int, tuple[bool, int, float]] = {}  # the order blobs are worked on in, under a budget
    changed: list[tuple[int, int, int, int]] = []  # boxes of the blobs not as they were
    work = _Work(None if budget is None or glance is None or card_size_px is None else budget, spent)
    # Work done elsewhere in this frame (the mat's markers) counts as its first piece of work, and
    # so does the paper mask (below): a frame that spent its budget on them does no card work (the
    # next frames do: a still frame reuses the mask, and the markers are seldom looked for).
    work.worked = spent > 0
    patches: dict[int, _GlancePatch] = {}

    def patch_of(blob: Blob) -> _GlancePatch:
        """The glance over a blob, worked out once a frame (it is asked for more than once)."""
        assert glance is not None
        key = id(blob.outline)
        if key not in patches:
            patches[key] = _patch(glance, blob)
        return patches[key]

    if glance is not None:

        def known(blob: Blob) -> tuple[CardQuad, ...] | None:
            match = memo.known_blob(blob, glance)
            key = id(blob.outline)
            if match is not None and match[0].waiting is not None:
                since[key] = match[0].waiting.since
                if not match[0].waiting.detected:
                    if match[1] and match[0].waiting.split is not None:
                        resumed[key] = match[0].waiting.split  # unchanged: its split goes on
                    return None  # waited for its outlines: found now, if the budget allows
            if match is not None:
                held[key] = match
                return match[0].blob.quads
            if skip is not None and skip(blob):
                skipped.add(key)
                return ()
            if previous is not None and _moving(patch_of(blob), previous):
                put_off.add(key)
                return ()
            return None

        if work.units is not None:
            assert card_size_px is not None
            card_area = card_size_px[0] * card_size_px[1]
            card_reach = _HUGE_SPAN * max(card_size_px)

            def order(blob: Blob, new: int) -> tuple[bool, int, float]:
                # A blob larger than any trick (a pale table or the mat's paper taken for card
                # pixels, with the cards on it) comes last: it must not use up the budget that
                # the cards just put down need; then the oldest waiting first (a blob not waiting
                # counts as waiting since ``new``), then nearest a seat.
                span = max(blob.box[2] - blob.box[0], blob.box[3] - blob.box[1])
                return (span > card_reach, since.get(id(blob.outline), new), priority(blob) if priority else 0.0)

            def triage(todo: list[Blob], scale: float) -> set[int]:
                # What the blobs held with reads still to make will ask for, oldest first: those
                # that waited, and those still with a card read unknown, read again in every frame
                # (the project's 2C on a pale table, the last cards of a trick: a pile's split
                # going on in the table's blob took the budget first in every other frame) ...
                plan = [
                    (order(old.blob, memo.frame), cost, -1)
                    for old, still in held.values()
                    if still and (cost := held_reads(old)) > 0
                ]
                # ... and the new blobs: finding their outlines, then reading them.
                for k, blob in enumerate(todo):
                    plan.append((order(blob, memo.frame), _cost(blob.area / (scale * scale * card_area)), k))
                plan.sort(key=lambda p: (p[0], p[2]))
                assert work.units is not None
                committed, later = work.spent, set()
                for i, (key, cost, k) in enumerate(plan):
                    if k < 0:
                        committed += cost
                        continue
                    blob = todo[k]
                    # A pile's split goes in steps: it begins when a step fits, and takes what the
                    # work planned before it leaves (its reads are paid for as they are made). A
                    # single card begins when its read fits: its outline is found in any case.
                    if (i > 0 or work.worked) and committed + min(cost, 1.0) > work.units:
                        later.add(k)
                        deferred.add(id(blob.outline))
                        continue
                    allowed[id(blob.outline)] = work.units - committed  # a split's share, if it is one
                    committed += cost
                    rank[id(blob.outline)] = key
                return later

            def split(  # type: ignore[no-redef]
                blob: Blob, start: Callable[[], Generator[float, None, list[np.ndarray]]]
            ) -> list[np.ndarray] | None:
                key = id(blob.outline)
                pile = resumed.pop(key, None) or _Split(start())
                spent = 0.0
                while True:
                    units = pile.next_units
                    over = spent + units > allowed.get(key, 0.0) and (spent > 0 or work.worked)
                    if over or not work.step(units):
                        splitting[key] = pile  # the rest in a later frame
                        return None
                    spent += units
                    try:
                        pile.next_units = next(pile.steps)
                    except StopIteration as finished:
                        return finished.value

    def held_reads(old: _KnownBlob) -> float:
        if old.waiting is None:  # read before, a card unknown: read again (the cards read are reused)
            return float(sum(rec.card is None for rec in old.found))
        return sum(_HIDDEN_READ_UNITS if q.pile >= 0 else 1.0 for q in old.blob.quads if id(q) not in old.waiting.done)

    found: list[Recognition] = []
    pixels = memo.paper if unchanged and memo.paper is not None and memo.paper_shape == frame.shape else None
    if pixels is None:
        pixels = paper(frame, half, card_size_px)
        if work.units is not None:
            work.spent += _PAPER_UNITS
            work.worked = True
    memo.paper, memo.paper_shape = pixels, frame.shape
    blobs = find_blobs(frame, card_size_px, known, triage, pixels, split)
    if work.units is not None:  # the oldest waiting first, then the others by priority
        for blob in blobs:
            if id(blob.outline) in held and id(blob.outline) not in rank:
                rank[id(blob.outline)] = order(blob, -1)
        blobs = sorted(blobs, key=lambda b: rank.get(id(b.outline), (False, -1, 0.0)))
    for blob in blobs:
        key = id(blob.outline)
        old, still = held.get(key, (None, False))
        waited = old.waiting if old is not None else None
        # A blob with a card left unread is worked on again: that read may succeed now.
        if old is not None and still and waited is None and all(rec.card is not None for rec in old.found):
            memo.keep_blob(old, again=True)
            found += old.found
            continue
        if key in put_off:
            memo.put_off += 1
            changed.append(blob.box)
            continue
        if key in skipped or (key in held and skip is not None and skip(blob)):
            # Its cards would be read again (it changed, or one read unknown), or found: the hand
            # over it leaves first (the tracker ignores its zones meanwhile).
            memo.skipped += 1
            memo.waiting.append(blob.outline)  # work left for later: its zones stay busy
            changed.append(blob.box)
            continue
        if key in deferred or key in splitting:
            memo.deferred += 1
            memo.waiting.append(blob.outline)
            wait = _Waiting(since.get(key, memo.frame), False, split=splitting.get(key))
            memo.keep_blob(_KnownBlob(blob, patch_of(blob), [], [], wait))
            changed.append(blob.box)
            continue
        if waited is None or not still:
            changed.append(blob.box)
        start = len(memo._now)
        # A blob that waited, unchanged, goes on with the reads made in it before.
        done = dict(waited.done) if waited is not None and still else {}
        try:
            cards = _recognise_blob(frame, blob, reader, memo, work if work.units is not None else None, done)
        except _OutOfBudget:
            memo.deferred += 1
            memo.waiting.append(blob.outline)
            if glance is not None:
                # The glance its work began in is kept: any change since then starts its reads anew.
                patch = old.glance if old is not None and still else patch_of(blob)
                wait = _Waiting(since.get(key, memo.frame), True, done)
                memo.keep_blob(_KnownBlob(blob, patch, [], memo._now[start:], wait))
            continue
        if glance is not None:
            memo.keep_blob(_KnownBlob(blob, patch_of(blob), cards, memo._now[start:]))
        found += cards
    # What lay where a blob changed is remembered still: when the hand has gone and the glance
    # there is back to what it was, those cards hold again without being worked on.
    memo.remember_under(changed)
    memo.card_work = work.reads + work.steps
    return _one_per_card(found)


def _cost(cards: float) -> float:
    """The work units a new blob of this many cards' worth of area is expected to take."""
    if cards < _NO_CARD:
        return 0.0
    if cards < _SINGLE:
        return 1.0 + _OUTLINE_UNITS  # its outline, then one read
    return (_SPLIT_UNITS + _PILE_READS) * round(cards)


def _boxes_meet(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _moving(patch: _GlancePatch, previous: np.ndarray) -> bool:
    """Some 1/8-scale grey pixel over the blob (its glance ``patch``) or near it changed since
    the previous frame."""
    (x0, y0, x1, y1), now, near = patch
    before = previous[y0:y1, x0:x1]
    return before.shape == now.shape and int(cv2.absdiff(now, before)[near].max(initial=0)) > _STILL


def _recognise_blob(
    frame: np.ndarray,
    blob: Blob,
    reader: CardReader,
    memo: ReadMemo,
    work: _Work | None = None,
    done: dict[int, _Remembered] | None = None,
) -> list[Recognition]:
    quads = blob.quads
    singles = [q for q in quads if q.pile < 0]
    found = [_read(frame, quad, reader, not _overlaps(quad, singles), memo, work, done) for quad in singles]
    candidates = [q for q in quads if q.pile >= 0]
    if candidates:
        found += _read_pile(frame, candidates, reader, memo, work, done)
    return found


def _patch(glance: np.ndarray, blob: Blob) -> _GlancePatch:
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
    near = cv2.dilate(near, _NEAR) > 0
    return (x0, y0, x1, y1), glance[y0:y1, x0:x1].copy(), near


def _read(
    frame: np.ndarray,
    quad: CardQuad,
    reader: CardReader,
    body_visible: bool,
    memo: ReadMemo,
    work: _Work | None = None,
    done: dict[int, _Remembered] | None = None,
) -> Recognition:
    read = memo.read(frame, quad, reader, body_visible, work, done)
    if read.card is None:
        log.debug("card at %s not read: %s", quad.centre, read.detail)
    return Recognition(read.card, read.confidence, quad.corners, quad.centre, read.leaning, read.glimpse)


@dataclass
class _Place:
    """One card's place in a pile: its first read, and what the next candidates there said."""

    first: Recognition
    second_looks: int = 0
    confirmed: bool = False  # another candidate here read the same card (or leaned to it)
    seconded: bool = False  # ... read it, as a card (not only leaning to it)
    disputed: bool = False  # another candidate here read another card
    # First read from an outline well off another place it overlaps (a fan's neighbour, or an
    # outline between two cards seeing one's index turned: a 9 read as a 6): it needs a second
    # candidate here reading the same card, however sure it is.
    off: bool = False

    @property
    def looks(self) -> int:
        """How many second looks the place takes: more while its first read needs one to agree
        and none has (once one has, more looks only risk a dispute by a weaker read)."""
        return _SECOND_LOOKS if self.first.confidence >= _SURE or self.confirmed else _SECOND_LOOKS_UNSURE

    @property
    def settled(self) -> bool:
        """Both corners read alike from one outline, closely: no second look is needed."""
        return self.first.confidence >= _BOTH_CORNERS and not self.off

    @property
    def counts(self) -> bool:
        """Whether the place is a card: undisputed, and confirmed or read surely from its own place."""
        return not self.disputed and (self.confirmed or (self.first.confidence >= _SURE and not self.off))

    @property
    def looked_at_grown(self) -> bool:
        """Whether the place is still open to a look through a grown outline (its own, or one that
        glimpsed its card): it does not count yet, and no look disputed it. A place well off
        another (``off``) only if its read is sure: a lone index short of clear there may be seen
        through a wrong outline, and grown it reads the same (anglo's JS at 0.65, 29 px off the 5S
        under it), while the 2.8 px outline of the project's KH, read at 0.8, was off only because
        a 3C read first through an outline 29 px off its own."""
        return not self.counts and not self.disputed and (not self.off or self.first.confidence >= _SURE)

    def second_look(self, rec: Recognition) -> None:
        """What another outline at this place read: the same card (or a lean to it) confirms it,
        another card disputes it (unless it is the place's card misread, weakly: _outweighed)."""
        self.second_looks += 1
        witness = rec.card if rec.card is not None else rec.leaning  # a read leaning to a card is a weak one
        self.confirmed |= witness == self.first.card
        self.seconded |= rec.card == self.first.card
        self.disputed |= rec.card is not None and rec.card != self.first.card and not _outweighed(rec, self)


def _read_pile(
    frame: np.ndarray,
    candidates: list[CardQuad],
    reader: CardReader,
    memo: ReadMemo,
    work: _Work | None = None,
    done: dict[int, _Remembered] | None = None,
) -> list[Recognition]:
    """The cards of one pile. A candidate that reads nothing is dropped, not reported as unknown:
    it is a guess at an outline, and only an index upright in its corner shows it is a card (a
    read pins the outline: the glyphs are searched a few pixels around where the deck prints
    them). The body check is skipped, since a pile's neighbours lie across each card's body, so
    the next candidates at the same place, a few pixels apart, are read too: the card counts if
    none of them reads another card, and, unless its own read is sure, one reads the same card
    (a club taken for a spade from one outline is seldom taken for it from the next) or leans to
    it (``Recognition.leaning``: unsure only between its rank and one other, or of its suit, or a
    little short of a close match; a read further from one is no witness: it confirmed anglo's 3S
    read as a 5S), even one read before the place began (:func:`_leans_here`). A candidate
    overlapping a place but well off its outline (``_OWN_PLACE``: an outline grown halfway between
    two fanned cards reads either) is no second look there: read, it confirms that place or
    begins one of its own, which needs a second candidate reading its card (but not when it reads
    the place's rank in the other suit of its colour: that is the place's card misread). One
    further off still, turned across the place, is a second look there, but what it reads, if
    another card, also begins a place of its own that needs confirming. A place no other candidate
    confirmed is looked at once more through its own outline grown (``_GROWN_LOOK``), and so are
    the outlines that glimpsed a card (:func:`_glimpsed_places`)."""
    places: list[_Place] = []
    early_witnesses: list[Recognition] = []  # reads of no card that leaned to one, before any place there
    glimpses: list[Recognition] = []  # reads of no card that glimpsed one

    def read(quad: CardQuad) -> Recognition:
        rec = _read(frame, quad, reader, False, memo, work, done)
        if rec.card is None and rec.glimpse is not None:
            glimpses.append(rec)
        return rec

    def read_grown(corners: np.ndarray) -> Recognition:
        # (``done`` is not given: it is keyed by the candidates' ids, and this outline is new.)
        grown = CardQuad(_moved(corners, grow=_GROWN_LOOK), False, candidates[0].pile)
        return _read(frame, grown, reader, False, memo, work)

    for quad in candidates:
        here = [(_apart(quad.corners, p.first.corners), p) for p in places if _covered(quad.corners, p.first.corners)]
        apart, place = min(here, key=lambda h: h[0], default=(0.0, None))
        off_by = apart / quad.size[0]  # of the short side
        if place is not None and not place.settled and _OWN_PLACE[0] < off_by <= _OWN_PLACE[1]:
            # It overlaps a card read from one corner but lies well off it: the card under or
            # over that one in a fan (an outline grown halfway between two cards reads either).
            # An outline further off still is turned across the place (a card grown the other
            # way from a corner): that is no card of a fan (813 of 814 such read nothing).
            rec = read(quad)
            if rec.card == place.first.card:
                place.confirmed = place.seconded = True
            elif rec.card is not None and not _suit_misread(rec.card, place.first.card):
                # (The place's rank in the other suit of its colour is its card misread, a
                # diamond taken for a heart: no card of its own. Two outlines 14 px off the
                # project's QD both read a QH, which stood beside it as a wrong card.)
                places.append(_Place(rec, off=True))
            continue
        if place is not None and (place.disputed or place.second_looks >= place.looks or place.settled):
            continue
        rec = read(quad)
        if place is None:
            if rec.card is not None:
                places.append(_Place(rec, confirmed=any(_leans_here(r, rec) for r in early_witnesses)))
            elif rec.leaning is not None:
                early_witnesses.append(rec)
            continue
        place.second_look(rec)
        if rec.card is not None and rec.card != place.first.card and off_by > _OWN_PLACE[1]:
            # An outline turned across the place read another card: one of the two outlines is
            # turned across the other's card (the project's 4D under an LJ: the place began with
            # an LJ read through an outline 83 px off it), and either may be the true one. Both
            # stand only when confirmed: a sure read is marked ``off`` (another candidate or its
            # grown outline must read it too), one short of sure needs that anyway.
            places.append(_Place(rec, off=rec.confidence >= _SURE))
    for place in places:
        if place.looked_at_grown:
            # No other candidate here read its card: one more look, through its own outline grown
            # a little (candidates split out of a pile often lie a pixel or two inside the card,
            # and the index in its corner is then read short of clear; grown, it is read again,
            # and seldom the same way when the first read was wrong).
            place.second_look(read_grown(place.first.corners))
    places += _glimpsed_places(places, glimpses, early_witnesses, read_grown)
    return [p.first for p in places if p.counts]


def _glimpsed_places(
    places: list[_Place],
    glimpses: list[Recognition],
    early_witnesses: list[Recognition],
    read_grown: Callable[[np.ndarray], Recognition],
) -> list[_Place]:
    """The outlines that glimpsed a card (``Recognition.glimpse``: a lone index against the
    outline's edge, sure of its rank, short of a close match) read again grown, up to
    ``_GLIMPSE_LOOKS`` per place: at a place of that card still unconfirmed, as second looks; where
    no place lies, but two of them glimpsed the same card, the first grown read of that card
    begins a place, and the next ones confirm it. Returns the new places (they count only when
    confirmed, as any place short of sure). kde:standard's courts at 720p: outlines split out of
    a pile a pixel inside the card see the index against their edge, and read it only grown."""
    for place in places:
        if not place.looked_at_grown:
            continue
        seen_here = [g for g in glimpses if g.glimpse == place.first.card and _at_place(g, place.first.corners)]
        for glimpse in seen_here[:_GLIMPSE_LOOKS]:
            place.second_look(read_grown(glimpse.corners))
            if not place.looked_at_grown:
                break
    elsewhere = [g for g in glimpses if not any(_covered(g.corners, p.first.corners) for p in places)]
    new: list[_Place] = []
    for glimpse in elsewhere:
        here = next((p for p in new if _at_place(glimpse, p.first.corners)), None)
        if here is not None:
            if glimpse.glimpse == here.first.card and not (
                here.counts or here.disputed or here.second_looks >= _GLIMPSE_LOOKS
            ):
                here.second_look(read_grown(glimpse.corners))
            continue
        if sum(1 for g in elsewhere if g.glimpse == glimpse.glimpse and _at_place(g, glimpse.corners)) < 2:
            continue  # one outline's glimpse: an index's fragment seen through a wrong outline, as likely
        rec = read_grown(glimpse.corners)
        if rec.card == glimpse.glimpse:
            new.append(_Place(rec, confirmed=any(_leans_here(r, rec) for r in early_witnesses)))
    return new


def _at_place(rec: Recognition, corners: np.ndarray) -> bool:
    """Whether a read's outline would be a second look at a place with these corners: covered by
    it, and not well off it (``_OWN_PLACE``)."""
    near = _apart(rec.corners, corners) <= _OWN_PLACE[0] * CardQuad(rec.corners, False).size[0]
    return near and _covered(rec.corners, corners)


def _leans_here(weak: Recognition, rec: Recognition) -> bool:
    """Whether an earlier read of no card, leaning to one, is a second look at the place a
    read begins: it leaned to the same card, from an outline that would have been a second
    look there (covered by the place's, not well off it)."""
    return weak.leaning == rec.card and _at_place(weak, rec.corners)


def _outweighed(rec: Recognition, place: _Place) -> bool:
    """Whether a second look's read of another card, short of sure, is too weak to dispute the
    place: two outlines there read its card (one weak read does not outvote two: anglo's 3H read
    at 0.79 and 0.76, then as a 5H at 0.65 by an outline 12 px off; the project's 2D read twice
    at 0.8, then as the LJ beside it at 0.65), or one read it and another leaned to it, and the
    weak read is its card misread, the same rank in the other suit of its colour (two outlines
    read the project's 3C at 0.8, a third, 19 px off, a 3S at 0.65)."""
    weak = rec.card is not None and rec.confidence < _SURE
    return weak and (place.seconded or (place.confirmed and _suit_misread(rec.card, place.first.card)))


def _suit_misread(a: Card, b: Card) -> bool:
    """Whether two cards are one rank in the two suits of one colour (a heart and a diamond)."""
    if a.is_joker or b.is_joker:
        return False
    (rank_a, suit_a), (rank_b, suit_b) = str(a), str(b)
    return rank_a == rank_b and suit_a != suit_b and (suit_a in "HD") == (suit_b in "HD")


def _apart(a: np.ndarray, b: np.ndarray) -> float:
    """How far apart two outlines lie: the largest distance between their corners, paired as
    they lie (both are clockwise; a card's outline may start at either short side)."""
    return float(min(np.max(np.linalg.norm(a - np.roll(b, k, axis=0), axis=1)) for k in (0, 2)))


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
