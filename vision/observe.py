"""One frame on the mat, observed: the cards read, where they lie in mat millimetres and zones,
and which zones are busy (something moving over them, or a hand), so the tracker can ignore them.

This is the step between the pure per-image recognition (:mod:`vision.scan`) and the temporal
voting (:mod:`vision.tracker`): it finds the mat, gives the detector the card size the mat's
scale implies, and compares each frame with the previous one, seen from above at low resolution.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from engine.cards import Card
from vision.classify import CardReader
from vision.detect import Blob
from vision.mat import MatLayout, MatPose, find_markers_in_part, find_mat, marker_parts, pose_from
from vision.scan import ReadMemo, recognise

log = logging.getLogger(__name__)

CARD_MM = (63.5, 88.9)
_TOP_PX_PER_MM = 0.5  # the top-down view for motion and hands: coarse is enough, and cheap
_MOVING = 28  # grey-level change between frames that counts as motion
_MOVING_SHARE = 0.04  # of a zone's area moving: the zone is busy
_SKIN_SHARE = 0.15  # of a zone's area skin-coloured: a hand (red ink blurred on paper is pink, a little)
_PUT_OFF = 4  # frames in a row a changing blob may be put off
_STILL = 10  # grey levels: the largest change of a 1/8-scale pixel that is still camera noise
# Work units (a single card's read with its warp, ~2.7 ms at 1080p on the development machine) a
# frame may spend on new cards (a single card's outline half a unit more, a read with the body
# hidden 1.3, a pile's split in steps of a quarter to one unit) and on the mat's markers and the
# paper mask (two units each) and a changed frame's busy zones (one), the glance (~1.5 ms) aside:
# it keeps a frame within 15 ms; a frame with more new cards in view reads them over the next
# frames.
BUDGET = 3
_MARKER_UNITS = 2  # looking for the mat's markers around where they were (~3.5 ms at 1080p)
_MARKER_PART_UNITS = 1  # one part of a search of the whole frame for them (a sixth of it, with overlaps)
# The busy zones of a changed frame (its top view, skin and motion: ~2-2.5 ms at 1080p): with the
# paper mask's two units they fill the budget, so a frame with a hand moving reads no card ...
_BUSY_UNITS = 1
# ... unless this many frames in a row before it left work waiting without any card work done:
# then the busy zones are not charged, and one read fits (every card's turn comes, a hand moving
# for long or not).
_STARVED = 3
_PLACES_KEPT = 256  # blobs' places remembered (see Observer._place): far more than a table shows


@dataclass(frozen=True, slots=True)
class Observed:
    """A card seen in one frame: identity (None: unreadable), confidence, place on the mat."""

    card: Card | None
    confidence: float
    centre_mm: tuple[float, float]
    zone: str | None


@dataclass(frozen=True, slots=True)
class FrameObservation:
    """Everything the tracker learns from one frame."""

    index: int
    cards: tuple[Observed, ...]
    busy: frozenset[str]  # zones with motion or a hand over them this frame
    mat_found: bool


class Observer:
    """Turns frames into :class:`FrameObservation` s. Keeps the previous top-down view (for motion)
    and the last mat pose (so a hand over the markers for a moment costs nothing)."""

    def __init__(
        self, layout: MatLayout, reader: CardReader, pose_every: int = 5, budget: float | None = BUDGET
    ) -> None:
        self.layout = layout
        self.reader = reader
        # Work units per frame for new cards (see vision.scan.recognise); None: everything in view
        # is worked on in the frame it appears in, however long that takes.
        self.budget = budget
        # The mat lies still on the table: its markers are looked for every few frames (they
        # cost a quarter of a frame), and in every frame until they have been found.
        self.pose_every = pose_every
        self._pose: MatPose | None = None
        self._previous: np.ndarray | None = None
        self._count = 0
        # The cards last found, and a glance at the frame they were found in: when nothing in
        # the frame has changed since (a still table, which is most frames), they still hold.
        self._cards: tuple[Observed, ...] | None = None
        self._glance: np.ndarray | None = None
        self.memo = ReadMemo()  # cards that did not move are not read again
        self._last_glance: np.ndarray | None = None  # the previous frame's
        # The pose and glance the busy zones were last looked at in, and the zones a hand was over.
        self._skin_seen: tuple[MatPose, np.ndarray, frozenset[str]] | None = None
        self._paper_glance: np.ndarray | None = None  # the glance of the frame the card pixels were found in
        self._putting_off = 0  # frames in a row that put a changing blob off
        self._starved = 0  # frames in a row that left work waiting and did no card work
        # The glance when the mat was last found, and where its four markers lie in it: while
        # they look the same, the mat has not moved and its markers need not be looked for.
        self._mat_glance: tuple[np.ndarray, list[tuple[slice, slice]]] | None = None
        self.markers_skipped = 0  # due looks for the markers skipped so (for the benchmark)
        # When the markers are not where they were (the mat or the camera moved), the whole frame
        # is searched for them in parts, one per frame: the next part, and the markers found so far.
        self._search: tuple[int, dict[int, np.ndarray]] | None = None
        self.reused = 0  # frames answered from the last detection (for the benchmark)
        # Where the blobs of card pixels lie on the mat, by outline, worked out through this pose.
        self._places_pose: MatPose | None = None
        self._places: dict[int, tuple[np.ndarray, _Place]] = {}

    @property
    def waiting(self) -> int:
        """Blobs of card pixels in the last frame whose work the budget left for later frames."""
        return len(self.memo.waiting)

    def observe(self, frame: np.ndarray) -> FrameObservation:
        index = self._count
        self._count += 1
        glance, half = _glance(frame)
        previous, self._last_glance = self._last_glance, glance
        # A card left unread is looked at again in the next frame, still or not: the frame the
        # read failed on may have had a hand leaving it, and a camera's next frame differs.
        unread = self._cards is not None and any(c.card is None for c in self._cards)
        # A frame after one that put a blob off is worked on: that blob may hold still now.
        # So is a frame after one that left work for later (the budget).
        still = (
            self._cards is not None
            and not unread
            and self._putting_off == 0
            and not self.memo.waiting
            and _unchanged(glance, self._glance)
        )
        # A still frame cannot have moved the mat: its markers are looked for only after a change.
        due = self._pose is None or (index % self.pose_every == 0 and not still)
        if due and self._pose is not None and self._markers_unchanged(glance):
            due = False  # a hand moving over the cards: the markers are as they were
            self.markers_skipped += 1
        spent = 0.0
        found = None
        if self._search is not None:
            found, spent = self._search_part(frame), _MARKER_PART_UNITS
        elif due and self._pose is None:
            found, spent = find_mat(frame, self.layout), _MARKER_UNITS  # nothing to do without it
        elif due:
            found, spent = find_mat(frame, self.layout, self._pose, whole=False), _MARKER_UNITS
            if found is None:  # not where it was: the whole frame, in parts, from the next frame on
                self._search = (0, {})
        pose = found or self._pose
        if pose is not None and pose is not self._pose:
            self._mat_glance = (glance, self._marker_spots(pose, glance.shape))
        if pose is None:
            log.debug("frame %d: no mat in view", index)
            self._cards = None
            return FrameObservation(index, (), frozenset(), False)
        # The frame the mat is first found in (the camera starting: a search of the whole frame
        # for the markers) is worked on whole, without a budget: a one-off, like the search.
        starting = self._pose is None
        if pose is not self._pose:
            self._cards = None  # the cards' mat positions were computed through the old pose
            still = False
        # The busy zones first: a card in zones with a hand or motion over them is not read in this
        # frame (the tracker ignores those zones), but once they are quiet. Not through a pose
        # new in this frame: its top view is compared with one seen through the old pose.
        moved = pose is not self._pose
        busy, looked = self._busy_zones(frame, pose, glance)
        self._pose = pose
        if looked and not starting and self._starved < _STARVED:
            spent += _BUSY_UNITS
        if still and self._cards is not None:
            self.reused += 1
            cards = self._cards
        else:
            skip = None if starting or moved or not busy or self.budget is None else self._under(pose, busy)
            cards = self._find_cards(frame, pose, glance, previous, spent, half, starting, skip)
            self._cards, self._glance = cards, glance
            self._starved = self._starved + 1 if self.memo.waiting and not self.memo.card_work else 0
        if self.memo.waiting:
            # A zone with a blob whose work waits may hold a card not read yet: it is busy, so that
            # the tracker neither counts it empty nor settles a card there meanwhile.
            busy |= self._zones_under(pose, self.memo.waiting)
        return FrameObservation(index, cards, busy, True)

    def _search_part(self, frame: np.ndarray) -> MatPose | None:
        """One more part of the search of the whole frame for the markers; the pose once every
        part has been searched (None if fewer than two markers turned up: the old pose holds, and
        the search begins again at the next due frame)."""
        assert self._search is not None
        part, found = self._search
        found = {**found, **find_markers_in_part(frame, self.layout, part)}
        if part + 1 < marker_parts(frame.shape):
            self._search = (part + 1, found)
            return None
        self._search = None
        return pose_from(found, self.layout)

    def _zones_under(self, pose: MatPose, outlines: list[np.ndarray]) -> frozenset[str]:
        names: set[str] = set()
        for outline in outlines:
            names.update(name for name in self._place(pose, outline).zones if name is not None)
        return frozenset(names)

    def _under(self, pose: MatPose, busy: frozenset[str]) -> Callable[[Blob], bool]:
        """Whether a blob lies in busy zones only (outline and centre; outside every zone: no)."""

        def under(blob: Blob) -> bool:
            return all(name is not None and name in busy for name in self._place(pose, blob.outline).zones)

        return under

    def _priority(self, pose: MatPose) -> Callable[[Blob], float]:
        """A blob's distance from the nearest seat zone (mat mm; 0 inside one): plays come first."""
        return lambda blob: self._place(pose, blob.outline).distance

    def _place(self, pose: MatPose, outline: np.ndarray) -> _Place:
        """Where a blob lies on the mat. A blob holding still keeps its outline (the same array)
        from frame to frame, and its place is worked out once while the pose holds: a frame with
        work waiting asks for it several times over, for every blob in view."""
        if self._places_pose is not pose or len(self._places) > _PLACES_KEPT:
            self._places_pose, self._places = pose, {}
        known = self._places.get(id(outline))
        if known is not None and known[0] is outline:
            return known[1]
        place = _place_on(self.layout, pose, outline)
        self._places[id(outline)] = (outline, place)
        return place

    def _marker_spots(self, pose: MatPose, shape: tuple[int, ...]) -> list[tuple[slice, slice]]:
        """Where each of the mat's markers lies in the glance (1/8 scale), a glance pixel wider."""
        spots = []
        h, w = shape[:2]
        for corners_mm in self.layout.marker_corners_mm().values():
            xs, ys = (pose.to_frame(corners_mm) / 8).T
            x0, y0 = max(0, int(xs.min()) - 1), max(0, int(ys.min()) - 1)
            x1, y1 = min(w, int(np.ceil(xs.max())) + 2), min(h, int(np.ceil(ys.max())) + 2)
            if x0 < x1 and y0 < y1:  # a marker outside the view cannot come into it unless all moves
                spots.append((slice(y0, y1), slice(x0, x1)))
        return spots

    def _markers_unchanged(self, glance: np.ndarray) -> bool:
        """At least two of the mat's markers look as they did when the mat was found (all of
        them, when fewer than two are in view). A flat mat with two points where they were has
        not moved: the other markers are covered (an arm over a corner of the mat), and looking
        for the mat would fail and start a search of the whole frame, 2.5-3.8 ms a frame at
        1080p for as long as the arm stays. A mat pushed or a camera moved moves them all."""
        if self._mat_glance is None or self._mat_glance[0].shape != glance.shape:
            return False
        before, spots = self._mat_glance
        same = sum(int(cv2.absdiff(glance[s], before[s]).max()) <= _STILL for s in spots)
        return bool(spots) and same >= min(2, len(spots))

    def _find_cards(
        self,
        frame: np.ndarray,
        pose: MatPose,
        glance: np.ndarray,
        previous: np.ndarray | None,
        spent: float = 0.0,
        half: np.ndarray | None = None,
        whole: bool = False,
        skip: Callable[[Blob], bool] | None = None,
    ) -> tuple[Observed, ...]:
        centre = (frame.shape[1] / 2, frame.shape[0] / 2)
        scale = pose.px_per_mm(centre)
        size = (CARD_MM[0] * scale, CARD_MM[1] * scale)
        # Blobs of card pixels whose part of the glance did not change keep their cards: a hand
        # moving over one zone costs that zone's blobs only.
        # A blob still changing (a hand moving over it) is put off, at most _PUT_OFF frames in a
        # row: then every blob is worked on once (something may change on every frame for long).
        if self._putting_off >= _PUT_OFF or previous is None or previous.shape != glance.shape:
            previous = None
        before = self.memo.put_off
        # A frame that is the previous one within camera noise (the first still frame after a
        # hand left, or one going on with work the budget left) has its card pixels already.
        unchanged = _unchanged(glance, self._paper_glance)
        if not unchanged:
            self._paper_glance = glance  # compared with that frame, so that a slow change adds up
        found = recognise(
            frame,
            self.reader,
            size,
            self.memo,
            glance,
            previous,
            None if whole else self.budget,
            self._priority(pose),
            spent,
            unchanged,
            half,
            skip,
        )
        self._putting_off = self._putting_off + 1 if self.memo.put_off > before else 0
        cards = []
        for rec in found:
            x, y = pose.to_mat(np.array([rec.center]))[0]
            zone = self.layout.zone_at(float(x), float(y))
            cards.append(Observed(rec.card, rec.confidence, (float(x), float(y)), zone.name if zone else None))
        return tuple(cards)

    def _busy_zones(self, frame: np.ndarray, pose: MatPose, glance: np.ndarray) -> tuple[frozenset[str], bool]:
        """The busy zones, and whether they were looked at afresh (False: an unchanged frame's)."""
        # A frame unchanged (within camera noise) since the one the zones were last looked at in
        # has no motion, and a hand in it is where it was.
        last = self._skin_seen
        if last is not None and last[0] is pose and _unchanged(glance, last[1]):
            return last[2], False
        size = (round(self.layout.width_mm * _TOP_PX_PER_MM), round(self.layout.height_mm * _TOP_PX_PER_MM))
        to_top = np.diag([_TOP_PX_PER_MM, _TOP_PX_PER_MM, 1.0]) @ pose.frame_to_mat
        top = cv2.warpPerspective(frame, to_top, size, flags=cv2.INTER_AREA)
        grey = cv2.GaussianBlur(cv2.cvtColor(top, cv2.COLOR_BGR2GRAY), (5, 5), 0)
        skin = _skin(top)
        moving = cv2.absdiff(grey, self._previous) > _MOVING if self._previous is not None else np.zeros_like(skin)
        self._previous = grey
        busy, hands = set(), set()
        for zone in self.layout.zones:
            x0, y0, x1, y1 = (round(v * _TOP_PX_PER_MM) for v in zone.box_mm)
            if skin[y0:y1, x0:x1].mean() > _SKIN_SHARE:
                hands.add(zone.name)
            if moving[y0:y1, x0:x1].mean() > _MOVING_SHARE:
                busy.add(zone.name)
        self._skin_seen = (pose, glance, frozenset(hands))
        return frozenset(busy | hands), True


@dataclass(frozen=True, slots=True)
class _Place:
    """Where a blob of card pixels lies on the mat: the zone (name, or None) of each of some
    32 points along its outline and of its centre (when the centre lies on the blob), and its
    centre's distance from the nearest seat zone (mat mm; 0 inside one)."""

    zones: tuple[str | None, ...]
    distance: float


def _place_on(layout: MatLayout, pose: MatPose, outline: np.ndarray) -> _Place:
    points = outline[:: max(1, len(outline) // 32)]
    centre = outline.mean(axis=0, keepdims=True)
    on_mat = pose.to_mat(np.vstack([points, centre]))
    # The centre of a blob that is not card-like (a pale table's band, bent round the mat) may lie
    # off its pixels, in a zone it does not touch: its zone counts only when it lies on the blob.
    on_blob = cv2.pointPolygonTest(outline.astype(np.float32), (float(centre[0, 0]), float(centre[0, 1])), False) >= 0
    zones = tuple(z.name if z is not None else None for z in layout.zones_at(on_mat if on_blob else on_mat[:-1]))
    boxes = np.array([z.box_mm for z in layout.zones if z.seat is not None] or [[0, 0, 0, 0]], float)
    x, y = on_mat[-1]
    dx = np.maximum(np.maximum(boxes[:, 0] - x, x - boxes[:, 2]), 0)
    dy = np.maximum(np.maximum(boxes[:, 1] - y, y - boxes[:, 3]), 0)
    return _Place(zones, float(np.hypot(dx, dy).min()))


def _glance(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The frame at 1/8 scale in grey, by three halvings: INTER_AREA by exactly two is a fast path
    (three of them cost a third of one division by eight), and averages the camera's noise away
    (64 pixels per glance pixel). And the first halving (at 1080p, the paper mask's work scale)."""
    small = half = frame
    for i in range(3):
        small = cv2.resize(small, (small.shape[1] // 2, small.shape[0] // 2), interpolation=cv2.INTER_AREA)
        if i == 0:
            half = small
    return (cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small), half


def _unchanged(glance: np.ndarray, before: np.ndarray | None) -> bool:
    """Nothing anywhere in the frame changed beyond noise. Compared with the frame the cards were
    found in, not the previous one, so that a slow slide adds up until it is seen."""
    return before is not None and before.shape == glance.shape and int(cv2.absdiff(glance, before).max()) <= _STILL


def _skin(image: np.ndarray) -> np.ndarray:
    """Skin-coloured pixels (the classic YCrCb box): a hand, still or not, hides what is under it."""
    ycrcb = cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb)
    return cv2.inRange(ycrcb, (40, 138, 80), (250, 175, 125)) > 0
