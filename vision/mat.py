"""The printed play mat: its layout in millimetres, its ArUco markers, and finding it in a frame.

The mat is landscape A2 or A3 with one ArUco marker (dictionary :data:`MARKER_DICTIONARY`, ids
0-3) in each corner, a labelled zone in front of each seat and a centre area. Everything here
is in mat millimetres, origin at the top-left corner of the sheet, x to the right, y down.
:func:`find_mat` recovers the homography from frame pixels to mat millimetres from whichever
markers are visible (two are enough: each gives four corners), so zones hold wherever the
camera sits and however it tilts.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import cv2
import numpy as np

log = logging.getLogger(__name__)

MARKER_DICTIONARY = cv2.aruco.DICT_4X4_50
MARKER_IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left
SHEETS_MM = {"a2": (594.0, 420.0), "a3": (420.0, 297.0)}
MARKER_SIDE = 0.09  # of the sheet's height
MARKER_MARGIN = 0.035  # of the sheet's height, from the sheet's edges to the marker
_DETECT_WIDTH = 960
# Each marker is looked for first within this many of its sides around where it was: a mat
# bumped further is found by a search of the whole frame (in parts, by the observer).
_NEAR_MARGIN = 0.5

# Zones as (u0, v0, u1, v1) fractions of the sheet; seats are numbered clockwise as seen from
# above, seat 0 nearest the bottom edge, so the layout reads the same on A2 and A3.
_CENTRE = (0.36, 0.36, 0.64, 0.64)
_SEAT_BOXES = {
    4: [(0.34, 0.67, 0.66, 0.98), (0.02, 0.34, 0.32, 0.66), (0.34, 0.02, 0.66, 0.33), (0.68, 0.34, 0.98, 0.66)],
    6: [
        (0.53, 0.67, 0.83, 0.98),
        (0.17, 0.67, 0.47, 0.98),
        (0.02, 0.34, 0.31, 0.66),
        (0.17, 0.02, 0.47, 0.33),
        (0.53, 0.02, 0.83, 0.33),
        (0.69, 0.34, 0.98, 0.66),
    ],
}


class MatError(ValueError):
    """A mat that cannot be made (a seat count or sheet size the mat does not support)."""


@dataclass(frozen=True, slots=True)
class Zone:
    """One area of the mat: a seat's zone (``seat`` 0-based) or the centre (``seat`` None)."""

    name: str
    seat: int | None
    box_mm: tuple[float, float, float, float]  # x0, y0, x1, y1

    def contains(self, x_mm: float, y_mm: float) -> bool:
        x0, y0, x1, y1 = self.box_mm
        return x0 <= x_mm <= x1 and y0 <= y_mm <= y1


@dataclass(frozen=True, slots=True)
class MatLayout:
    """Where everything is on one printed mat, in millimetres."""

    sheet: str
    width_mm: float
    height_mm: float
    seats: int
    zones: tuple[Zone, ...]

    @classmethod
    def create(cls, seats: int, sheet: str = "a2") -> MatLayout:
        if sheet not in SHEETS_MM:
            raise MatError(f"unknown mat size {sheet!r} (use {' or '.join(SHEETS_MM)})")
        if seats not in _SEAT_BOXES:
            raise MatError(f"a mat has 4 or 6 seats, not {seats}")
        w, h = SHEETS_MM[sheet]

        def mm(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
            return (box[0] * w, box[1] * h, box[2] * w, box[3] * h)

        zones = [Zone(f"seat {i + 1}", i, mm(b)) for i, b in enumerate(_SEAT_BOXES[seats])]
        zones.append(Zone("centre", None, mm(_CENTRE)))
        return cls(sheet, w, h, seats, tuple(zones))

    @property
    def marker_side_mm(self) -> float:
        return MARKER_SIDE * self.height_mm

    def marker_corners_mm(self) -> dict[int, np.ndarray]:
        """Each marker's four corners (clockwise from its top-left, as ArUco reports them)."""
        side, margin = self.marker_side_mm, MARKER_MARGIN * self.height_mm
        lefts = (margin, self.width_mm - margin - side, self.width_mm - margin - side, margin)
        tops = (margin, margin, self.height_mm - margin - side, self.height_mm - margin - side)
        out = {}
        for marker_id, x, y in zip(MARKER_IDS, lefts, tops, strict=True):
            out[marker_id] = np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], np.float64)
        return out

    def zone_at(self, x_mm: float, y_mm: float) -> Zone | None:
        """The zone holding a mat point, or None (between zones, or off the mat)."""
        return next((z for z in self.zones if z.contains(x_mm, y_mm)), None)

    def zones_at(self, points_mm: np.ndarray) -> list[Zone | None]:
        """:meth:`zone_at` for many mat points (N x 2) at once."""
        boxes = np.array([z.box_mm for z in self.zones], np.float64).reshape(-1, 4)
        x, y = np.asarray(points_mm, np.float64).reshape(-1, 2).T[:, :, None]
        inside = (boxes[:, 0] <= x) & (x <= boxes[:, 2]) & (boxes[:, 1] <= y) & (y <= boxes[:, 3])
        first = np.where(inside.any(axis=1), inside.argmax(axis=1), -1)
        return [self.zones[i] if i >= 0 else None for i in first.tolist()]


@dataclass(frozen=True, slots=True)
class MatPose:
    """Where the mat lies in one frame: the homography from frame pixels to mat millimetres."""

    frame_to_mat: np.ndarray
    markers_seen: int

    def to_mat(self, points_px: np.ndarray) -> np.ndarray:
        """Frame pixel points (N x 2) mapped to mat millimetres (N x 2)."""
        pts = np.asarray(points_px, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.frame_to_mat).reshape(-1, 2)

    def to_frame(self, points_mm: np.ndarray) -> np.ndarray:
        pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.frame_to_mat)).reshape(-1, 2)

    def px_per_mm(self, point_px: tuple[float, float]) -> float:
        """The frame's scale around one pixel: how many pixels one mat millimetre spans there."""
        centre = self.to_mat(np.array([point_px]))[0]
        ends = self.to_frame(centre + np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]]))
        return float((np.linalg.norm(ends[1] - ends[0]) + np.linalg.norm(ends[2] - ends[0])) / 20.0)


@cache
def _detector() -> cv2.aruco.ArucoDetector:
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICTIONARY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    # The mat's markers are big in the frame (a twentieth of its width or more): skipping small
    # candidates and the finest thresholding pass halves the cost.
    params.minMarkerPerimeterRate = 0.06
    params.adaptiveThreshWinSizeMin = 7
    params.adaptiveThreshWinSizeStep = 16
    return cv2.aruco.ArucoDetector(dictionary, params)


def find_mat(frame: np.ndarray, layout: MatLayout, near: MatPose | None = None, whole: bool = True) -> MatPose | None:
    """Find the mat's markers in a BGR or grey frame; None when fewer than two are visible. Given
    where the mat lay before (``near``), each marker is first looked for around where it was (half a
    marker's side around it): a mat bumped a little costs a third of a search of the whole frame.
    When fewer markers are found there than ``near`` was found from, but at least two and each
    where ``near`` puts it (a hand over a marker), the mat has not moved: ``near`` is returned.
    Without ``whole``, a search near the old place that fails returns None (the caller searches
    the whole frame in parts: :func:`find_markers_in_part`)."""
    known = layout.marker_corners_mm()
    scale = _detect_scale(frame)
    if near is not None:
        found = _markers_near(frame, scale, known, near)
        if len(found) >= max(2, near.markers_seen):
            return _pose(found, known)
        if len(found) >= 2 and _where_it_was(found, known, near):
            return near
        if not whole:
            return None
    h, w = frame.shape[:2]
    found = _detect(frame, scale, (0, 0, round(w * scale), round(h * scale)), known)
    if len(found) < 2:
        log.debug("mat not found: %d marker(s) visible", len(found))
        return None
    return _pose(found, known)


MARKER_PARTS = (3, 2)  # a search of the whole frame in parts: columns and rows of overlapping windows


def marker_parts(frame_shape: tuple[int, ...]) -> int:
    """How many parts :func:`find_markers_in_part` cuts a frame into."""
    return MARKER_PARTS[0] * MARKER_PARTS[1]


def find_markers_in_part(frame: np.ndarray, layout: MatLayout, part: int) -> dict[int, np.ndarray]:
    """The mat's markers found in one part of the frame (frame pixels, by id): the frame cut into
    ``MARKER_PARTS`` windows that overlap by a fifth of its height, more than a marker's side
    whenever the mat is in view, so that every marker lies whole in one of them. One part costs
    about a fifth of a search of the whole frame; :func:`pose_from` turns what the parts found
    into the mat's pose."""
    scale = _detect_scale(frame)
    h, w = round(frame.shape[0] * scale), round(frame.shape[1] * scale)
    cols, rows = MARKER_PARTS
    col, row = part % cols, part // cols
    overlap = h // 5
    x0, x1 = max(0, col * w // cols - overlap // 2), min(w, (col + 1) * w // cols + overlap // 2)
    y0, y1 = max(0, row * h // rows - overlap // 2), min(h, (row + 1) * h // rows + overlap // 2)
    return _detect(frame, scale, (x0, y0, x1, y1), layout.marker_corners_mm())


def pose_from(found: dict[int, np.ndarray], layout: MatLayout) -> MatPose | None:
    """The mat's pose from markers found (frame pixels, by id); None with fewer than two."""
    return _pose(found, layout.marker_corners_mm()) if len(found) >= 2 else None


def _detect_scale(frame: np.ndarray) -> float:
    # Markers are large: found at most 960 pixels wide, four times faster than at 1920.
    return min(1.0, _DETECT_WIDTH / frame.shape[1])


def grey_window(frame: np.ndarray, scale: float, window: tuple[int, int, int, int], interpolation: int) -> np.ndarray:
    """The window (x0, y0, x1, y1, pixels at ``scale``) of the frame in grey at that scale,
    made from the frame's pixels under it only: the same pixels as the window of the whole frame
    made grey and resized, since the window is cut where a scaled pixel begins on a frame
    pixel (the resize's taps then fall alike) and the frame's own edges are where they were."""
    x0, y0, x1, y1 = window
    if scale >= 1.0:
        crop = frame[y0:y1, x0:x1]
        return crop if crop.ndim == 2 else cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    ratio = Fraction(scale).limit_denominator(64)
    n, d = ratio.numerator, ratio.denominator
    h, w = frame.shape[:2]
    full_w, full_h = round(w * scale), round(h * scale)
    # Aligned to whole steps of n scaled pixels (d frame pixels), or to the frame's edge.
    ax0, ay0 = x0 - x0 % n, y0 - y0 % n
    ax1, ay1 = min(full_w, x1 + (-x1) % n), min(full_h, y1 + (-y1) % n)
    exact = float(ratio) == scale and full_w * d == w * n and full_h * d == h * n
    if not exact:  # an unusual frame width: the whole frame, as before
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        return cv2.resize(grey, None, fx=scale, fy=scale, interpolation=interpolation)[y0:y1, x0:x1]
    crop = frame[ay0 * d // n : ay1 * d // n, ax0 * d // n : ax1 * d // n]
    grey = crop if crop.ndim == 2 else cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(grey, (ax1 - ax0, ay1 - ay0), interpolation=interpolation)
    return small[y0 - ay0 : y1 - ay0, x0 - ax0 : x1 - ax0]


def _detect(
    frame: np.ndarray, scale: float, window: tuple[int, int, int, int], known: dict[int, np.ndarray]
) -> dict[int, np.ndarray]:
    """The mat's markers found in a window (detection pixels), in frame pixels, by id."""
    grey = grey_window(frame, scale, window, cv2.INTER_LINEAR)
    corners, ids, _ = _detector().detectMarkers(grey)
    if ids is None:
        return {}
    offset = np.array(window[:2], np.float32)
    return {
        int(i): (quad.reshape(4, 2) + offset) / scale
        for quad, i in zip(corners, ids.ravel(), strict=True)
        if int(i) in known
    }


def _markers_near(
    frame: np.ndarray, scale: float, known: dict[int, np.ndarray], near: MatPose
) -> dict[int, np.ndarray]:
    """The markers found each in a window around where ``near`` puts it (frame pixels)."""
    h, w = round(frame.shape[0] * scale), round(frame.shape[1] * scale)
    found = {}
    for marker_id, corners_mm in known.items():
        where = near.to_frame(corners_mm) * scale
        side = float(np.linalg.norm(where[1] - where[0]))
        margin = _NEAR_MARGIN * side
        x0, y0 = np.maximum(np.floor(where.min(axis=0) - margin), 0).astype(int)
        x1, y1 = np.ceil(where.max(axis=0) + margin).astype(int)
        x1, y1 = min(int(x1), w), min(int(y1), h)
        if x1 - x0 < side or y1 - y0 < side:
            continue
        mine = _detect(frame, scale, (int(x0), int(y0), x1, y1), {marker_id: corners_mm})
        found.update(mine)
    return found


def _where_it_was(found: dict[int, np.ndarray], known: dict[int, np.ndarray], near: MatPose) -> bool:
    """Every marker found lies where ``near`` puts it (within a couple of frame pixels)."""
    for marker_id, corners in found.items():
        expected = near.to_frame(known[marker_id])
        side = float(np.linalg.norm(expected[1] - expected[0]))
        if float(np.max(np.linalg.norm(corners - expected, axis=1))) > max(2.0, 0.03 * side):
            return False
    return True


def _pose(found: dict[int, np.ndarray], known: dict[int, np.ndarray]) -> MatPose | None:
    ids = sorted(found)
    homography, _ = cv2.findHomography(np.vstack([found[i] for i in ids]), np.vstack([known[i] for i in ids]), 0)
    if homography is None:
        return None
    return MatPose(homography, len(found))


def zone_of(pose: MatPose, layout: MatLayout, point_px: tuple[float, float]) -> Zone | None:
    """The zone under a frame pixel, through the mat's homography."""
    x, y = pose.to_mat(np.array([point_px]))[0]
    return layout.zone_at(float(x), float(y))
