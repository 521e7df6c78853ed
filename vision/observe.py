"""One frame on the mat, observed: the cards read, where they lie in mat millimetres and zones,
and which zones are busy (something moving over them, or a hand), so the tracker can ignore them.

This is the step between the pure per-image recognition (:mod:`vision.scan`) and the temporal
voting (:mod:`vision.tracker`): it finds the mat, gives the detector the card size the mat's
scale implies, and compares each frame with the previous one, seen from above at low resolution.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from engine.cards import Card
from vision.classify import IndexTemplates
from vision.mat import MatLayout, MatPose, find_mat
from vision.scan import recognise

log = logging.getLogger(__name__)

CARD_MM = (63.5, 88.9)
_TOP_PX_PER_MM = 0.5  # the top-down view for motion and hands: coarse is enough, and cheap
_MOVING = 28  # grey-level change between frames that counts as motion
_MOVING_SHARE = 0.04  # of a zone's area moving: the zone is busy
_SKIN_SHARE = 0.15  # of a zone's area skin-coloured: a hand (red ink blurred on paper is pink, a little)


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

    def __init__(self, layout: MatLayout, templates: IndexTemplates, pose_every: int = 5) -> None:
        self.layout = layout
        self.templates = templates
        # The mat lies still on the table: its markers are looked for every few frames (they
        # cost a quarter of a frame), and in every frame until they have been found.
        self.pose_every = pose_every
        self._pose: MatPose | None = None
        self._previous: np.ndarray | None = None
        self._count = 0

    def observe(self, frame: np.ndarray) -> FrameObservation:
        index = self._count
        self._count += 1
        due = self._pose is None or index % self.pose_every == 0
        pose = (find_mat(frame, self.layout) if due else None) or self._pose
        if pose is None:
            log.debug("frame %d: no mat in view", index)
            return FrameObservation(index, (), frozenset(), False)
        self._pose = pose
        centre = (frame.shape[1] / 2, frame.shape[0] / 2)
        scale = pose.px_per_mm(centre)
        found = recognise(frame, self.templates, (CARD_MM[0] * scale, CARD_MM[1] * scale))
        cards = []
        for rec in found:
            x, y = pose.to_mat(np.array([rec.center]))[0]
            zone = self.layout.zone_at(float(x), float(y))
            cards.append(Observed(rec.card, rec.confidence, (float(x), float(y)), zone.name if zone else None))
        return FrameObservation(index, tuple(cards), self._busy_zones(frame, pose), True)

    def _busy_zones(self, frame: np.ndarray, pose: MatPose) -> frozenset[str]:
        size = (round(self.layout.width_mm * _TOP_PX_PER_MM), round(self.layout.height_mm * _TOP_PX_PER_MM))
        to_top = np.diag([_TOP_PX_PER_MM, _TOP_PX_PER_MM, 1.0]) @ pose.frame_to_mat
        top = cv2.warpPerspective(frame, to_top, size, flags=cv2.INTER_AREA)
        grey = cv2.GaussianBlur(cv2.cvtColor(top, cv2.COLOR_BGR2GRAY), (5, 5), 0)
        skin = _skin(top)
        moving = cv2.absdiff(grey, self._previous) > _MOVING if self._previous is not None else np.zeros_like(skin)
        self._previous = grey
        busy = set()
        for zone in self.layout.zones:
            x0, y0, x1, y1 = (round(v * _TOP_PX_PER_MM) for v in zone.box_mm)
            if moving[y0:y1, x0:x1].mean() > _MOVING_SHARE or skin[y0:y1, x0:x1].mean() > _SKIN_SHARE:
                busy.add(zone.name)
        return frozenset(busy)


def _skin(image: np.ndarray) -> np.ndarray:
    """Skin-coloured pixels (the classic YCrCb box): a hand, still or not, hides what is under it."""
    ycrcb = cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb)
    return cv2.inRange(ycrcb, (40, 138, 80), (250, 175, 125)) > 0
