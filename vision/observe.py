"""One frame on the mat, observed: the cards read, where they lie in mat millimetres and zones,
and which zones are busy (something moving over them, or a hand), so the tracker can ignore them.

The frame's way, one step per module: the mat's pose (:mod:`vision.mat`), what changed since
the cards were last read (:mod:`vision.changes`), the index detector on the changed regions at
the scale the mat gives (:mod:`vision.indices`), the indices joined into cards
(:mod:`vision.cards`), each card's zone (:mod:`vision.mat`); then the tracker
(:mod:`vision.tracker`). A frame where nothing changed costs only its glance.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from engine.cards import Card
from vision import changes
from vision.cards import Recognition, join
from vision.index_reads import SURE, IndexRead, Look, in_view
from vision.indices import IndexDetector
from vision.mat import MatLayout, MatPose, find_markers_in_part, find_mat, marker_parts, pose_from
from vision.scales import scale_for, suppress
from vision.scan import INDEX_SHARE, default_detector

log = logging.getLogger(__name__)

CARD_MM = (63.5, 88.9)
_TOP_PX_PER_MM = 0.5  # the top-down view for motion and hands: coarse is enough, and cheap
_MOVING = 28  # grey-level change between frames that counts as motion
_MOVING_SHARE = 0.04  # of a zone's area moving: the zone is busy
_SKIN_SHARE = 0.15  # of a zone's area skin-coloured: a hand
# Changed regions grow by this share of a card's height: an index just beside the change, and room
# around an index for the detector to see it whole (indices are 0.19-0.38 of a card's height).
_MARGIN_CARDS = 0.35
# A card read as unknown is read again in this many following frames, still or not (the frame it
# failed on may have had a hand leaving it, and a camera's next frame differs), then left until
# its region changes.
_RETRIES = 3
# The deck's index size, as a share of its card's height, is learned from this many of the
# latest indices of whole cards read (at least _SIZE_FROM of them): one index's own height is a
# noisy estimate, and the deck on the table does not change.
_SIZE_READS = 64
_SIZE_FROM = 6
_SAME_SCALE = 1.2  # a learned share within this factor of INDEX_SHARE: no second look at the default


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
    """Turns frames into :class:`FrameObservation` s. Keeps the index reads of the regions that
    did not change, the mat's last pose, and the previous top-down view (for motion)."""

    def __init__(self, layout: MatLayout, detector: IndexDetector | None = None, pose_every: int = 5) -> None:
        self.layout = layout
        self.detector = detector or default_detector()
        # The mat lies still on the table: its markers are looked for every few frames that
        # changed, and in every frame until they have been found.
        self.pose_every = pose_every
        # The referee's prior: the cards that may lie in each seat's zone (that seat's cards this
        # hand); elsewhere on the mat, any of them.
        self.allowed: dict[str, set[Card]] | None = None
        self._pose: MatPose | None = None
        self._count = 0
        self._reads: list[IndexRead] = []  # the indices in view, as last read
        self._settled: np.ndarray | None = None  # the glance the reads reflect
        self._cards: tuple[Observed, ...] = ()
        self._unsure: dict[tuple[int, int, int, int], int] = {}  # boxes around unknown cards: tries left
        self._previous_top: np.ndarray | None = None
        self._hands: frozenset[str] = frozenset()  # zones a hand was over when last looked at
        self._busy_glance: np.ndarray | None = None
        self._search: tuple[int, dict[int, np.ndarray]] | None = None
        self.reused = 0  # frames answered from the last reads (for the benchmark)
        self.regions_read = 0  # changed regions run through the detector (for the benchmark)
        self._index_shares: deque[float] = deque(maxlen=_SIZE_READS)  # index heights / card's

    def observe(self, frame: np.ndarray) -> FrameObservation:
        index = self._count
        self._count += 1
        now = changes.glance(frame)
        still = changes.unchanged(now, self._settled)
        pose = self._pose_for(frame, index, still)
        if pose is None:
            log.debug("frame %d: no mat in view", index)
            self._settled, self._reads, self._cards = None, [], ()
            return FrameObservation(index, (), frozenset(), False)
        if pose is not self._pose:
            self._settled, self._reads = None, []  # everything is read again through the new pose
            self._pose = pose
        busy = self._busy_zones(frame, pose, now)
        if still and not self._unsure:
            self.reused += 1
        else:
            self._read_changes(frame, now, pose, busy)
        return FrameObservation(index, self._cards, busy, True)

    def _pose_for(self, frame: np.ndarray, index: int, still: bool) -> MatPose | None:
        """The mat's pose: the last one while frames hold still, looked for again every
        ``pose_every`` frames otherwise; searched for over the whole frame, a part a frame, when
        it is no longer where it was."""
        if self._search is not None:
            part, found = self._search
            found = {**found, **find_markers_in_part(frame, self.layout, part)}
            if part + 1 < marker_parts(frame.shape):
                self._search = (part + 1, found)
                return self._pose
            self._search = None
            return pose_from(found, self.layout) or self._pose
        if self._pose is None:
            return find_mat(frame, self.layout)
        if still or index % self.pose_every:
            return self._pose
        found = find_mat(frame, self.layout, self._pose, whole=False)
        if found is None:
            self._search = (0, {})
            return self._pose
        return self._pose if _same_pose(found, self._pose, frame.shape) else found

    def card_size_px(self, pose: MatPose, shape: tuple[int, ...]) -> tuple[float, float]:
        scale = pose.px_per_mm((shape[1] / 2, shape[0] / 2))
        return (CARD_MM[0] * scale, CARD_MM[1] * scale)

    def _read_changes(self, frame: np.ndarray, now: np.ndarray, pose: MatPose, busy: frozenset[str]) -> None:
        """Reads the changed regions that are not under a hand or motion, keeps the reads
        elsewhere, and joins them all into the frame's cards."""
        size = self.card_size_px(pose, frame.shape)
        margin = _MARGIN_CARDS * size[1]
        regions = changes.changed_regions(now, self._settled, margin, frame.shape)
        retries = {box: n for box, n in self._unsure.items() if not any(_overlap(box, r) for r in regions)}
        self._unsure = {}
        waiting: list[tuple[int, int, int, int]] = []
        read: list[tuple[tuple[int, int, int, int], list[IndexRead]]] = []
        to_read = []
        for box in changes.merge_where_cheaper(regions + list(retries)):
            if busy and self._under_busy(pose, box, busy, only_centre=box in retries):
                waiting.append(box)  # read once the hand has gone: the region stays changed until then
                continue
            to_read.append(box)
            self._settled = changes.settle(self._settled, now, box)
            self.regions_read += 1
        read = list(zip(to_read, self._detect(frame, to_read, size[1]), strict=True))
        fresh = _deepest(read, frame.shape)
        self._reads = _renewed(self._reads, fresh, [box for box, _ in read], margin / 2, frame.shape)
        recognised = join(self._reads, size, self._prior(pose))
        self._learn_index_size(recognised, fresh, size[1])
        cards = []
        for rec in recognised:
            at_mm, zone = self._place(pose, rec.center)
            cards.append(Observed(rec.card, rec.confidence, at_mm, zone))
            if rec.card is None:
                box = _box_around(rec.corners, frame.shape)
                tries = max((n for b, n in retries.items() if _overlap(b, box)), default=_RETRIES + 1)
                tries -= 0 if any(_overlap(b, box) for b in waiting) else 1
                if tries > 0:
                    self._unsure[box] = tries
        self._cards = tuple(cards)

    def _detect(
        self, frame: np.ndarray, boxes: list[tuple[int, int, int, int]], card_height: float
    ) -> list[list[IndexRead]]:
        """The indices in each region of the frame, at the scale this deck's index size asks for
        (once learned: :meth:`_index_share`), else at the scale :data:`INDEX_SHARE` gives. A
        region where a learned size finds nothing sure is looked at again at the default scale:
        a size learned wrongly (from a picture's glyphs, say) must not blind the camera for good."""
        learned = self._index_share()
        share, told = (learned, learned * card_height) if learned is not None else (INDEX_SHARE, None)
        found = self._look(frame, boxes, share, told, card_height)
        if learned is not None and abs(math.log(learned / INDEX_SHARE)) >= math.log(_SAME_SCALE):
            blind = [k for k, reads in enumerate(found) if not any(r.index_heat >= SURE for r in reads)]
            again = self._look(frame, [boxes[k] for k in blind], INDEX_SHARE, None, card_height)
            for k, reads in zip(blind, again, strict=True):
                found[k] = reads
        return found

    def _look(
        self,
        frame: np.ndarray,
        boxes: list[tuple[int, int, int, int]],
        share: float,
        index_height: float | None,
        card_height: float,
    ) -> list[list[IndexRead]]:
        """The detector's reads in each box (frame pixels), run at the scale of an index ``share``
        of a card's height; an index cut off by the frame's edge is none (:func:`in_view`)."""
        if not boxes:
            return []
        scale = scale_for(share * card_height)
        looks = [Look(frame[y0:y1, x0:x1], scale, index_height) for x0, y0, x1, y1 in boxes]
        found = self.detector.detect_each(looks)
        return [
            in_view([r.scaled(1.0, (box[0], box[1])) for r in reads], frame.shape)
            for box, reads in zip(boxes, found, strict=True)
        ]

    def _learn_index_size(self, recognised: list[Recognition], fresh: list[IndexRead], card_height: float) -> None:
        """Learns the deck's index size from this frame's new reads of named cards whose two
        indices were both found and agree: a lone read may be a glyph in a court card's or a
        joker's picture, and a wrong size would set the detector's scale wrong."""
        by_centre = {r.centre: r for r in fresh}
        for rec in recognised:
            if rec.card is not None and len(rec.index_centres) == 2:
                pair = [by_centre.get(c) for c in rec.index_centres]
                self._index_shares.extend(r.height / card_height for r in pair if r is not None)

    def _index_share(self) -> float | None:
        """The deck's index height over its card's, as learned from the latest reads of whole
        cards (None: too few yet). The detector then runs at the scale that brings this deck's
        indices to its best height, and the reader's crops are cut to it."""
        if len(self._index_shares) < _SIZE_FROM:
            return None
        return float(np.median(self._index_shares))

    def _prior(self, pose: MatPose) -> Callable[[tuple[float, float]], set[Card] | None] | None:
        """The cards that may lie at a point of the frame: its seat zone's, or anyone's."""
        allowed = self.allowed
        if allowed is None:
            return None
        anyone = set().union(*allowed.values())

        def at(centre: tuple[float, float]) -> set[Card]:
            _, zone = self._place(pose, centre)
            return allowed.get(zone, anyone) if zone is not None else anyone

        return at

    def _place(self, pose: MatPose, centre: tuple[float, float]) -> tuple[tuple[float, float], str | None]:
        """A point of the frame on the mat: millimetres, and the zone there (None: outside all)."""
        x, y = (float(v) for v in pose.to_mat(np.array([centre]))[0])
        zone = self.layout.zone_at(x, y)
        return (x, y), zone.name if zone else None

    def _under_busy(
        self, pose: MatPose, box: tuple[int, int, int, int], busy: frozenset[str], only_centre: bool = False
    ) -> bool:
        """Whether a region lies in busy zones only (its corners and centre, or, for a card read
        again, its centre; outside every zone: no)."""
        x0, y0, x1, y1 = box
        points = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1], [(x0 + x1) / 2, (y0 + y1) / 2]], float)
        points = points[-1:] if only_centre else points
        zones = self.layout.zones_at(pose.to_mat(points))
        return all(z is not None and z.name in busy for z in zones)

    def _busy_zones(self, frame: np.ndarray, pose: MatPose, now: np.ndarray) -> frozenset[str]:
        """Zones with a hand (skin) or motion over them. A frame unchanged since the one they
        were last looked at in has no motion, and a hand in it is where it was."""
        if changes.unchanged(now, self._busy_glance):
            return self._hands
        size = (round(self.layout.width_mm * _TOP_PX_PER_MM), round(self.layout.height_mm * _TOP_PX_PER_MM))
        to_top = np.diag([_TOP_PX_PER_MM, _TOP_PX_PER_MM, 1.0]) @ pose.frame_to_mat
        top = cv2.warpPerspective(frame, to_top, size, flags=cv2.INTER_AREA)
        grey = cv2.GaussianBlur(cv2.cvtColor(top, cv2.COLOR_BGR2GRAY), (5, 5), 0)
        skin = _skin(top)
        previous, self._previous_top = self._previous_top, grey
        moving = cv2.absdiff(grey, previous) > _MOVING if previous is not None else np.zeros_like(skin)
        hands, busy = set(), set()
        for zone in self.layout.zones:
            x0, y0, x1, y1 = (round(v * _TOP_PX_PER_MM) for v in zone.box_mm)
            if skin[y0:y1, x0:x1].mean() > _SKIN_SHARE:
                hands.add(zone.name)
            if moving[y0:y1, x0:x1].mean() > _MOVING_SHARE:
                busy.add(zone.name)
        self._hands, self._busy_glance = frozenset(hands), now
        return frozenset(busy | hands)


def _deepest(read: list[tuple[tuple[int, int, int, int], list[IndexRead]]], shape: tuple[int, ...]) -> list[IndexRead]:
    """The reads of regions read in one frame, an index read in two overlapping regions kept
    once: as read in the region it lies deeper inside (near a region's edge, the detector sees
    only part of what surrounds an index, or only part of the index)."""
    reads = [r for _, found in read for r in found]
    if len(read) < 2:
        return reads
    depths = [_depth(r, box, shape) for box, found in read for r in found]
    return suppress(reads, depths, apart=0.25)


def _renewed(
    old: list[IndexRead],
    fresh: list[IndexRead],
    boxes: list[tuple[int, int, int, int]],
    band: float,
    shape: tuple[int, ...],
) -> list[IndexRead]:
    """The reads after regions were read again: an old read inside a region gives way to the new
    ones, unless it lies in the region's outer ``band`` (pixels; the margin a region grew by around
    what changed), where nothing changed. There the old read stays, and a new read of the same
    index (seen near the region's edge, perhaps cut by it) is dropped."""
    cores = [_shrunk(box, band, shape) for box in boxes]
    kept = [r for r in old if not any(_inside(r.centre, core) for core in cores)]
    near_edge = [r for r in kept if any(_inside(r.centre, box) for box in boxes)]
    if not near_edge:
        return kept + fresh
    away = [r for r in kept if r not in near_edge]
    return away + suppress(near_edge + fresh, [math.inf] * len(near_edge) + [0.0] * len(fresh), apart=0.25)


def _shrunk(box: tuple[int, int, int, int], by: float, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """A box shrunk by ``by`` pixels on each side that is not the frame's edge."""
    h, w = shape[:2]
    x0, y0, x1, y1 = box
    b = round(by)
    return (x0 + b if x0 > 0 else x0, y0 + b if y0 > 0 else y0, x1 - b if x1 < w else x1, y1 - b if y1 < h else y1)


def _depth(r: IndexRead, box: tuple[int, int, int, int], shape: tuple[int, ...]) -> float:
    """How deep inside ``box`` a read lies, in its heights; the frame's edges are no region's edge."""
    h, w = shape[:2]
    x, y = r.centre
    sides = [x - box[0] if box[0] > 0 else math.inf, box[2] - x if box[2] < w else math.inf]
    sides += [y - box[1] if box[1] > 0 else math.inf, box[3] - y if box[3] < h else math.inf]
    return min(min(sides), 1e6) / max(r.height, 1.0)


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _box_around(corners: np.ndarray, shape: tuple[int, ...], grow: float = 0.25) -> tuple[int, int, int, int]:
    """A card's outline's bounding box, grown by ``grow`` of its size, inside the frame."""
    (x0, y0), (x1, y1) = corners.min(axis=0), corners.max(axis=0)
    gx, gy = grow * (x1 - x0), grow * (y1 - y0)
    h, w = shape[:2]
    return (max(0, int(x0 - gx)), max(0, int(y0 - gy)), min(w, int(x1 + gx) + 1), min(h, int(y1 + gy) + 1))


def _inside(point: tuple[float, float], box: tuple[int, int, int, int]) -> bool:
    return box[0] <= point[0] < box[2] and box[1] <= point[1] < box[3]


def _same_pose(a: MatPose, b: MatPose, shape: tuple[int, ...]) -> bool:
    """Two poses that put the frame's corners within a pixel of each other on the mat's scale:
    the mat did not move (a new pose would make every card be read again for nothing)."""
    h, w = shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    scale = a.px_per_mm((w / 2, h / 2))
    return bool(np.abs(a.to_mat(corners) - b.to_mat(corners)).max() * scale < 1.0)


def _skin(image: np.ndarray) -> np.ndarray:
    """Skin-coloured pixels (the classic YCrCb box): a hand, still or not, hides what is under it."""
    ycrcb = cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb)
    return cv2.inRange(ycrcb, (40, 138, 80), (250, 175, 125)) > 0
