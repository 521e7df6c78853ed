"""Finding card quadrilaterals in a frame, and warping each card upright to a canonical size.

Card faces are paper: bright and unsaturated, brighter than the table around them even on a pale
table. The segmentation therefore divides the brightness by an estimate of the *table's* local
brightness (a median over a window four cards wide, taken at 1/16 scale, so that uneven light
cancels and the cards, a minority of each window, do not raise it), and keeps unsaturated pixels
clearly brighter than the table. Never a single global threshold.

Each blob of card pixels is then either one card (it fills its minimum-area rectangle and has a
card's proportions) or several touching or overlapping cards. Those are split by growing a card
of the known size from every right-angled convex corner of the blob's outline and keeping the
hypotheses that lie on card pixels; the classifier then reads each one, and a hypothesis that
is not a real card has no readable index. The card size comes from the caller (through the mat's
scale) or from the single cards seen in the same frame.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

import cv2
import numpy as np

from vision.outline import corners_where_sides_meet, fit_reach, fit_to_edges, gradients, refine_to_edges

CARD_ASPECT = 63.5 / 88.9  # width over height of a poker-size card
CANONICAL_W = 200
CANONICAL_H = 280
# The warp keeps a margin around the card: an outline a pixel too tight must not cut the index off.
CANONICAL_PAD = 10
WORK_WIDTH = 960  # segmentation runs at most this wide: cards stay 40+ px, the mask costs 1/4
_BRIGHTER = 1.12  # card paper over the local table brightness
_MAX_SATURATION = 70
_MIN_FILL = 0.88
_MIN_SUPPORT = 0.6
_SAME_QUAD = 1.5  # work pixels: candidates closer than this at every corner are one
_CANDIDATES_PER_CARD = 6  # candidates kept per card's worth of a pile's area
_SLIDE_PEAKS = 2  # positions kept along each straight run of a pile's outline
_RUNS_PER_CARD = 4  # straight runs of a pile's outline tried per card's worth of its area
_SHOWN = 0.6  # the share of a card under another that a fanned pile shows (scenes: 55-65 %)
# A card-sized, card-shaped blob this full of card pixels, with paper along this share of each
# side, is one card whose ink cuts into its paper (a red pip or index touching its edge).
_NOTCHED_FILL, _NOTCHED_SIDE = 0.8, 0.75
# ... once the mouths of its bays narrower than this (work pixels) are closed: see _sealed.
_SEAL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9))


@dataclass(frozen=True, slots=True)
class CardQuad:
    """A card's outline in frame pixels: corners clockwise, starting at an end of a short side."""

    corners: np.ndarray  # 4 x 2 float
    single: bool  # found as a blob of its own, not split out of touching cards
    # Candidates split out of one pile share its number (-1: a single card). They are ranked best
    # first and may overlap: they are hypotheses, confirmed only by an index read in their corner.
    pile: int = -1

    @property
    def centre(self) -> tuple[float, float]:
        x, y = self.corners.mean(axis=0)
        return (float(x), float(y))

    @property
    def size(self) -> tuple[float, float]:
        """(short side, long side) in pixels, averaged over opposite sides."""
        c = self.corners
        a = (np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[3] - c[2])) / 2
        b = (np.linalg.norm(c[2] - c[1]) + np.linalg.norm(c[0] - c[3])) / 2
        return (float(min(a, b)), float(max(a, b)))


def _shrink(scale: float) -> int:
    """INTER_AREA is exact but ten times slower for a fractional factor (1280 -> 960) than for an
    integer one (1920 -> 960); the mask and edges do not need it there."""
    return cv2.INTER_AREA if abs(1 / scale - round(1 / scale)) < 1e-6 else cv2.INTER_LINEAR


def card_pixels(frame: np.ndarray, half: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """The mask (uint8, 0/255) of paper-like pixels at work scale, and that scale (work/frame).
    ``half``: the frame halved by ``INTER_AREA`` (the observer's glance begins so), if the caller
    has it: when the work scale is a half, it is the frame at work scale already."""
    scale = min(1.0, WORK_WIDTH / frame.shape[1])
    if half is not None and scale == 0.5 and half.shape[:2] == (frame.shape[0] // 2, frame.shape[1] // 2):
        small = half
    else:
        small = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=_shrink(scale)) if scale < 1 else frame
    _, saturation, value = cv2.split(cv2.cvtColor(small, cv2.COLOR_BGR2HSV))
    tiny = cv2.resize(value, None, fx=1 / 16, fy=1 / 16, interpolation=cv2.INTER_AREA)
    window = max(3, (tiny.shape[1] // 4) | 1)  # about four cards wide at the usual scales: a trick is a minority
    # First pass, at a quarter of work scale (it only has to say where the table is): paper over
    # the median brightness. A card seen close up fills the median's window and would hide its
    # own middle, so the table's brightness is then taken again from table pixels only.
    quarter = (value.shape[1] // 4, value.shape[0] // 4)
    rough = _paper(
        cv2.resize(saturation, quarter, interpolation=cv2.INTER_AREA),
        cv2.resize(value, quarter, interpolation=cv2.INTER_AREA),
        cv2.medianBlur(tiny, window),
        clean=False,
    )
    outlines, _ = cv2.findContours(rough, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    solid = cv2.drawContours(np.zeros_like(rough), outlines, -1, 255, -1)
    small_solid = cv2.resize(solid, (tiny.shape[1], tiny.shape[0]), interpolation=cv2.INTER_AREA)
    table_only = (small_solid < 64).astype(np.float32)
    spread = (2 * window + 1, 2 * window + 1)
    weight = cv2.blur(table_only, spread)
    estimate = cv2.blur(tiny.astype(np.float32) * table_only, spread) / np.maximum(weight, 1e-3)
    table = np.where(weight > 0.05, estimate, cv2.medianBlur(tiny, window)).astype(np.uint8)
    return _paper(saturation, value, table), scale


def _paper(saturation: np.ndarray, value: np.ndarray, table_tiny: np.ndarray, clean: bool = True) -> np.ndarray:
    """Unsaturated pixels clearly brighter than the table around them, cleaned up."""
    # value > limit for a real limit is value > floor(limit) for whole grey levels: all in uint8.
    limit_tiny = np.clip(np.floor(_BRIGHTER * table_tiny.astype(np.float32) + 8), 0, 255).astype(np.uint8)
    limit = cv2.resize(limit_tiny, (value.shape[1], value.shape[0]), interpolation=cv2.INTER_LINEAR)
    mask = cv2.compare(value, limit, cv2.CMP_GT) & cv2.compare(saturation, _MAX_SATURATION, cv2.CMP_LT)
    if not clean:
        return mask
    # Close the card's own ink (indices, pips) into the card; open away specks and thin lines.
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9)))
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))


@dataclass(frozen=True, slots=True)
class _Edges:
    """Image edges at work scale: thickened (to cut a pile along), and where a rectangle's side
    counts as running along an edge (within 2.5 pixels of one; uint8 0/1, what the edge support
    looks up)."""

    thick: np.ndarray
    near: np.ndarray


def _edges(frame: np.ndarray, scale: float, regions: list[np.ndarray]) -> _Edges:
    """Edges around the given outlines only (work scale): piles are a small part of a frame."""
    h, w = round(frame.shape[0] * scale), round(frame.shape[1] * scale)
    thick = np.zeros((h, w), np.uint8)
    near = np.zeros((h, w), np.uint8)
    for outline in regions:
        x, y, rw, rh = cv2.boundingRect(outline)
        x0, y0, x1, y1 = max(0, x - 6), max(0, y - 6), min(w, x + rw + 6), min(h, y + rh + 6)
        canny = cv2.Canny(grey_window(frame, scale, (x0, y0, x1, y1), _shrink(scale)), 30, 90)
        near[y0:y1, x0:x1] = cv2.distanceTransform(255 - canny, cv2.DIST_L2, 3) <= 2.5
        thick[y0:y1, x0:x1] = cv2.dilate(canny, np.ones((3, 3), np.uint8))
    return _Edges(thick, near)


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


def _clockwise(corners: np.ndarray) -> np.ndarray:
    """Corners ordered clockwise on screen (y down), starting at an end of a short side."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    centre = c.mean(axis=0)
    c = c[np.argsort(np.arctan2(c[:, 1] - centre[1], c[:, 0] - centre[0]))]
    if np.linalg.norm(c[1] - c[0]) > np.linalg.norm(c[2] - c[1]):
        c = np.roll(c, -1, axis=0)
    return c


def _fill(mask: np.ndarray, quad: np.ndarray) -> float:
    """The share of a quadrilateral (work-scale pixels) that is card pixels; off-frame parts count as not."""
    area = cv2.contourArea(quad.astype(np.float32))
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int), 0)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    region = mask[y0:y1, x0:x1]
    if region.size == 0 or area <= 0:
        return 0.0
    inside = np.zeros(region.shape, np.uint8)
    cv2.fillConvexPoly(inside, np.round(quad - (x0, y0)).astype(np.int32), 1)
    return float(np.count_nonzero(region[inside > 0])) / max(area, float(inside.sum()))


def _single_card(contour: np.ndarray, mask: np.ndarray, notched: bool = False) -> np.ndarray | None:
    """The corners of a blob that is one whole card, or None. ``notched``: the card's paper may
    be cut into by its ink (saturated red is not paper: a big heart joined to the edge through an
    index's heart), so less of its outline is filled, as long as every side runs along paper (the
    caller then checks that it is card-sized)."""
    (_, _), (rw, rh), _ = rect = cv2.minAreaRect(contour)
    if min(rw, rh) < 8 or not 0.6 <= min(rw, rh) / max(rw, rh) <= 0.82:
        return None
    hull = cv2.convexHull(contour)
    approx = cv2.approxPolyDP(hull, 0.03 * cv2.arcLength(hull, True), True)
    quad = approx.reshape(-1, 2).astype(np.float64) if len(approx) == 4 else cv2.boxPoints(rect)
    if notched:
        sealed, corner = _sealed(contour)
        if _fill(sealed, quad - corner) < _NOTCHED_FILL:
            return None
    elif _fill(mask, quad) < 0.93:
        return None
    if notched and not _sides_on_paper(mask, _clockwise(quad)):
        return None
    quad = _sharp_corners(_clockwise(quad), contour.reshape(-1, 2).astype(np.float64))
    return quad if _rectangular(quad) else None


def _sealed(contour: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A blob's pixels (uint8 0/255) with the mouths of its bays closed (``_SEAL``) and the holes
    that makes filled, in a window around it, and the window's top-left corner (work pixels): a
    court card's picture is not paper, and where it comes near the card's edge, the mask's
    opening cuts the thin strip of paper between them (kde's KS at 720p: a card's outline around
    a bay of picture, half of it paper)."""
    x, y, w, h = cv2.boundingRect(contour)
    margin = _SEAL.shape[0]
    corner = np.array([x - margin, y - margin])
    sealed = np.zeros((h + 2 * margin, w + 2 * margin), np.uint8)
    cv2.drawContours(sealed, [contour], -1, 255, -1, offset=(margin - x, margin - y))
    sealed = cv2.morphologyEx(sealed, cv2.MORPH_CLOSE, _SEAL)
    outer, _ = cv2.findContours(sealed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return cv2.drawContours(sealed, outer, -1, 255, -1), corner


def _sides_on_paper(mask: np.ndarray, quad: np.ndarray, inset: float = 3.0, samples: int = 24) -> bool:
    """Whether each side of a quadrilateral (work pixels, clockwise), looked at ``inset`` pixels
    inside it away from its rounded corners, is mostly card pixels: a card notched by its ink
    still has paper along most of every side; an L of two cards, or a wedge, does not."""
    centre = quad.mean(axis=0)
    ends = np.roll(quad, -1, axis=0)
    t = _SIDE_STEPS[samples]
    h, w = mask.shape
    for a, b in zip(quad, ends, strict=True):
        points = a + t * (b - a)
        inward = centre - (a + b) / 2
        points = points + inset * inward / max(float(np.linalg.norm(inward)), 1e-9)
        x, y = np.round(points).astype(np.intp).T
        inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        if np.count_nonzero(mask[y[inside], x[inside]]) < _NOTCHED_SIDE * samples:
            return False
    return True


def _rectangular(quad: np.ndarray) -> bool:
    """Opposite sides alike and corners near right angles, as a card seen from above is (the
    camera's tilt is small): a bright wedge cut by the frame's edge fills its outline too."""
    sides = np.roll(quad, -1, axis=0) - quad
    lengths = np.linalg.norm(sides, axis=1)
    if lengths.min() <= 0 or max(lengths[0] / lengths[2], lengths[2] / lengths[0]) > 1.25:
        return False
    if max(lengths[1] / lengths[3], lengths[3] / lengths[1]) > 1.25:
        return False
    units = sides / lengths[:, None]
    cosines = np.abs(np.sum(units * np.roll(units, 1, axis=0), axis=1))
    return bool(cosines.max() < np.sin(np.deg2rad(20)))


def _sharp_corners(quad: np.ndarray, outline: np.ndarray, partial: bool = False) -> np.ndarray:
    """Corners where the card's straight sides meet, not on its rounded corners: a line is fitted
    to the outline points along the middle of each side, and neighbouring lines intersected.
    With ``partial``, a side with no outline along it (inside a pile) keeps its own line, so that
    a pile's candidate is snapped to whichever of its sides lie on the pile's border."""
    # The outline near the quadrilateral only (a pile's outline runs around several cards), and
    # all four sides at once: this runs for every candidate.
    low, high = quad.min(axis=0) - 4, quad.max(axis=0) + 4
    outline = outline[np.all((outline >= low) & (outline <= high), axis=1)]
    sides = np.roll(quad, -1, axis=0) - quad  # 4 x 2
    lengths = np.linalg.norm(sides, axis=1)
    rel = outline[None, :, :] - quad[:, None, :]  # 4 x N x 2
    t = np.einsum("snk,sk->sn", rel, sides) / lengths[:, None] ** 2
    dist = np.abs(sides[:, None, 0] * rel[..., 1] - sides[:, None, 1] * rel[..., 0]) / lengths[:, None]
    near_side = (t > 0.15) & (t < 0.85) & (dist < np.maximum(2.0, 0.04 * lengths)[:, None])
    lines = []
    for i in range(4):
        near = outline[near_side[i]]
        if len(near) < (max(8, 0.3 * lengths[i]) if partial else 2):
            if not partial:
                return quad
            lines.append((quad[i], sides[i] / lengths[i]))
            continue
        vx, vy, x0, y0 = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    met = corners_where_sides_meet(lines)
    return quad if met is None else met


def _corner_hypotheses(contour: np.ndarray, size: tuple[float, float]) -> list[np.ndarray]:
    """Cards of ``size`` (short, long; work pixels) grown from each right-angled convex corner."""
    short, long_ = size
    poly = cv2.approxPolyDP(contour, max(2.0, 0.04 * short), True).reshape(-1, 2).astype(np.float64)
    n = len(poly)
    area_sign = np.sign(cv2.contourArea(poly.astype(np.float32), oriented=True)) or 1.0
    out = []
    for i in range(n):
        v, a, b = poly[i], poly[i - 1], poly[(i + 1) % n]
        ea, eb = a - v, b - v
        la, lb = np.linalg.norm(ea), np.linalg.norm(eb)
        if la < 0.2 * short or lb < 0.2 * short:
            continue
        ua, ub = ea / la, eb / lb
        if abs(float(ua @ ub)) > 0.34:  # not within ~20 degrees of a right angle
            continue
        if np.sign(ea[0] * eb[1] - ea[1] * eb[0]) == area_sign:  # a reflex (inward) corner
            continue
        for along_a, along_b in ((short, long_), (long_, short)):
            if la <= 1.2 * along_a and lb <= 1.2 * along_b:
                out.append(np.array([v, v + ua * along_a, v + ua * along_a + ub * along_b, v + ub * along_b]))
    return out


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = cv2.contourArea(a.astype(np.float32)) + cv2.contourArea(b.astype(np.float32)) - inter
    return float(inter / union) if union > 0 else 0.0


def _piece_hypotheses(contour: np.ndarray, mask: np.ndarray, edges: _Edges, size: tuple[float, float]):
    """Cards grown from the pieces a pile falls into when cut along its inner edges. A card lying
    on others and under others shows a strip as long as the card: the card is that strip widened
    to a card's width, on one side or the other."""
    x, y, w, h = cv2.boundingRect(contour)
    region = np.zeros((h, w), np.uint8)
    cv2.drawContours(region, [contour], -1, 255, -1, offset=(-x, -y))
    cut = region & mask[y : y + h, x : x + w] & ~edges.thick[y : y + h, x : x + w]
    pieces, _ = cv2.findContours(cut, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    short, long_ = size
    out = []
    for piece in pieces:
        if cv2.contourArea(piece) < 0.12 * short * long_:
            continue
        (cx, cy), (a, b), angle = cv2.minAreaRect(piece)
        t = np.deg2rad(angle)
        u, v = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
        for card_u, card_v in ((short, long_), (long_, short)):
            if a > 1.15 * card_u or b > 1.15 * card_v or max(a / card_u, b / card_v) < 0.8:
                continue
            for su in {-1.0, 1.0} if a < 0.9 * card_u else {0.0}:
                for sv in {-1.0, 1.0} if b < 0.9 * card_v else {0.0}:
                    c = np.array([cx + x, cy + y]) + u * su * (card_u - a) / 2 + v * sv * (card_v - b) / 2
                    hu, hv = u * card_u / 2, v * card_v / 2
                    out.append(np.array([c - hu - hv, c + hu - hv, c + hu + hv, c - hu + hv]))
    return out


def _side_hypotheses(contour: np.ndarray, edges: _Edges, size: tuple[float, float]) -> list[np.ndarray]:
    """Cards laid along each straight run of the pile's outline. In a fanned trick the middle
    cards have no free corner on the outline, but their top and bottom sides are part of it: a
    card of the known size lies along such a run, on the inner side, and is slid along it to
    where its other sides meet image edges (the faint line of a white card on a white card)."""
    return [quad for run in _side_runs(contour, size) for quad in _slides(contour, edges, size, run)]


def _side_runs(contour: np.ndarray, size: tuple[float, float]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The straight runs of a pile's outline a card is slid along, longest first."""
    short, long_ = size
    poly = cv2.approxPolyDP(contour, max(2.0, 0.03 * short), True).reshape(-1, 2).astype(np.float64)
    runs = [(poly[i], poly[(i + 1) % len(poly)]) for i in range(len(poly))]
    runs = [(a, b) for a, b in runs if np.linalg.norm(b - a) >= 0.25 * short]
    # The longest runs first, a few per card's worth of the pile: a ragged blob (an arm across
    # the cards) has many short runs, and each costs a slide.
    cards = max(1, round(cv2.contourArea(contour) / (short * long_)))
    return sorted(runs, key=lambda r: -float(np.linalg.norm(r[1] - r[0])))[: _RUNS_PER_CARD * cards]


def _run_axes(contour: np.ndarray, run: tuple[np.ndarray, np.ndarray]) -> tuple[float, np.ndarray, np.ndarray]:
    """A run of a pile's outline: its length, its direction, and the normal towards the blob's
    inside."""
    a, b = run
    length = float(np.linalg.norm(b - a))
    u = (b - a) / length
    n = np.array([-u[1], u[0]])
    probe = (a + b) / 2 + 3 * n
    if cv2.pointPolygonTest(contour, (float(probe[0]), float(probe[1])), False) < 0:
        n = -n  # towards the blob's inside
    return length, u, n


def _slides(
    contour: np.ndarray, edges: _Edges, size: tuple[float, float], run: tuple[np.ndarray, np.ndarray]
) -> list[np.ndarray]:
    """The best places of a card slid along one run of the pile's outline."""
    short, long_ = size
    a, _ = run
    out = []
    length, u, n = _run_axes(contour, run)
    for along, across in ((short, long_), (long_, short)):
        if length > 1.15 * along:
            continue
        slack = along - length
        offsets = np.arange(-slack - 0.1 * along, 0.1 * along + 1.0, 1.0)
        starts = a[None, :] + offsets[:, None] * u[None, :]
        quads = np.stack([starts, starts + along * u, starts + along * u + across * n, starts + across * n], 1)
        support = _edge_support_many(edges, quads)
        out += [quads[k] for k in _peaks(support, _SLIDE_PEAKS, apart=round(0.08 * along))]
    return out


def _peaks(values: np.ndarray, count: int, apart: int) -> list[int]:
    """Up to ``count`` indices of the highest values, each at least ``apart`` from the others: the
    best slide may be a neighbour's edge, the second best the card's own."""
    chosen: list[int] = []
    for k in np.argsort(-values, kind="stable"):
        if len(chosen) >= count:
            break
        if all(abs(int(k) - c) >= apart for c in chosen):
            chosen.append(int(k))
    return chosen


def _edge_support_many(edges: _Edges, quads: np.ndarray, samples: int = 24) -> np.ndarray:
    """The share of each quadrilateral's sides (k x 4 x 2; rounded corners left out) within 2.5
    pixels of an image edge."""
    ends = np.roll(quads, -1, axis=1)
    t = _SIDE_STEPS[samples]
    # k x 4 x samples x 2: the same sums, term for term, as one side at a time
    points = quads[:, :, None, :] + t * (ends - quads)[:, :, None, :]
    xy = np.round(points.reshape(len(quads), -1, 2)).astype(np.intp)
    h, w = edges.near.shape
    x, y = xy[..., 0], xy[..., 1]
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    flat = np.where(inside, y * w + x, 0)
    return np.count_nonzero(edges.near.ravel()[flat] & inside, axis=1) / xy.shape[1]


# An index seen near a run of a pile's outline (a card's top or bottom side): the glyphs' sizes
# (largest extent, of the long side), how deep under the run the rank's near end may lie (the run
# is the mask's, a pixel or two inside the card), how far below the rank its suit lies (of the
# rank's size), and where the card's side is put beside the rank (of the short side).
_INDEX_GLYPH = (0.03, 0.2)
_INDEX_DEPTH = (-0.02, 0.12)
_INDEX_SUIT_BELOW = (0.5, 1.8)
_INDEX_INSET = 0.05
_INDEX_INK = 0.7  # darker than this share of the pile's paper is ink
_INDEX_NEW = 0.1  # of the short side: a card grown from an index this close to a candidate adds none
_SUIT_AT_MOST = 1.6  # of its rank's size: a larger glyph below a rank is no suit of it


def _index_hypotheses(
    contour: np.ndarray, frame: np.ndarray, scale: float, size: tuple[float, float], runs: list
) -> list[np.ndarray]:
    """Cards grown from an index (a rank with its suit below it) seen just inside a run of the
    pile's outline. In a fan the middle card's top and bottom sides are runs of the pile's outline
    and its index is in plain view, but its side over the card under it is a faint line and its
    other side is hidden: the slides along the runs find no edges to stop at. The index says
    where the card's corner is: the card hangs from the run beside the rank, inward."""
    short, long_ = size
    x, y, w, h = cv2.boundingRect(contour)
    x0, y0 = max(0, x - 2), max(0, y - 2)
    x1 = min(round(frame.shape[1] * scale), x + w + 2)
    y1 = min(round(frame.shape[0] * scale), y + h + 2)
    grey = grey_window(frame, scale, (x0, y0, x1, y1), _shrink(scale))
    region = np.zeros(grey.shape, np.uint8)
    cv2.drawContours(region, [contour], -1, 255, -1, offset=(-x0, -y0))
    region = cv2.erode(region, np.ones((3, 3), np.uint8))
    if not region.any():
        return []
    paper = float(np.median(grey[region > 0]))
    ink = ((grey < _INDEX_INK * paper) & (region > 0)).astype(np.uint8)
    _, _, stats, centres = cv2.connectedComponentsWithStats(ink, connectivity=8)
    extent = np.maximum(stats[1:, 2], stats[1:, 3]).astype(np.float64)
    glyph = (extent >= _INDEX_GLYPH[0] * long_) & (extent <= _INDEX_GLYPH[1] * long_) & (stats[1:, 4] >= 4)
    points, sizes = centres[1:][glyph] + (x0, y0), extent[glyph]
    out: list[np.ndarray] = []
    if len(points) < 2:
        return out
    for run in runs:
        a = run[0]
        length, u, down = _run_axes(contour, run)
        right = np.array([down[1], -down[0]])  # the card's right, seen with ``down`` down
        rel = points - a
        along, deep, across = rel @ u, rel @ down, rel @ right
        near = (deep - sizes / 2 >= _INDEX_DEPTH[0] * long_) & (deep - sizes / 2 <= _INDEX_DEPTH[1] * long_)
        # A run shorter than a card's side is the part of it in view: the index may lie beyond
        # either end, where the card under it reaches higher (the fan's left card).
        slack = max(0.0, short - length)
        near &= (along >= -0.3 * short - slack) & (along <= length + 0.3 * short + slack)
        for i in np.flatnonzero(near):
            below = deep - deep[i]
            suits = (below >= _INDEX_SUIT_BELOW[0] * sizes[i]) & (below <= _INDEX_SUIT_BELOW[1] * sizes[i])
            suits &= np.abs(across - across[i]) <= 0.6 * np.maximum(sizes, sizes[i])
            suits &= sizes <= _SUIT_AT_MOST * sizes[i]
            j = int(np.flatnonzero(suits)[np.argmin(below[suits])]) if suits.any() else None
            if j is not None:
                left = min(across[i] - sizes[i] / 2, across[j] - sizes[j] / 2) - _INDEX_INSET * short
            elif _suit_run_into_a_stroke(ink, points[i] - (x0, y0), sizes[i], down):
                left = across[i] - sizes[i] / 2 - _INDEX_INSET * short
            else:
                continue
            out.append(_hung(a + right * left, right, down, size))
            if j is None:
                continue  # no suit's centre: no axis of its own to turn the card along
            turned = _turned_by_index(points[i], points[j], sizes[i], sizes[j], deep[i], down, size)
            if turned is not None:
                out.append(turned)
    return out + _hung_from_indices(points, sizes, size)


def _hung_from_indices(points: np.ndarray, sizes: np.ndarray, size: tuple[float, float]) -> list[np.ndarray]:
    """Cards hung from every rank-and-suit pair among a pile's glyphs (centres and sizes, work
    pixels), wherever they lie, along the pair's own axis (rank above suit), as
    :func:`_turned_by_index` hangs one: a fan's middle card whose top side lies across the card
    under it, not on the pile's outline, shows its index inside the pile, away from every run.
    The card's top is put as far above the rank as its side is beside it. Two pips one above the
    other make a pair too, and a card hung from them is most often off the pile's paper or near
    a candidate already (dropped by the caller), or read as no card."""
    short = size[0]
    apart = points[None, :, :] - points[:, None, :]  # [rank, suit]: from the rank to the suit
    distance = np.linalg.norm(apart, axis=2)
    below = (distance >= _INDEX_SUIT_BELOW[0] * sizes[:, None]) & (distance <= _INDEX_SUIT_BELOW[1] * sizes[:, None])
    below &= sizes[None, :] <= _SUIT_AT_MOST * sizes[:, None]
    rank, suit = np.nonzero(below)
    if not len(rank):
        return []
    down = apart[rank, suit] / distance[rank, suit][:, None]
    right = np.stack([down[:, 1], -down[:, 0]], axis=1)
    beside = np.maximum(sizes[rank], sizes[suit])[:, None] / 2 + _INDEX_INSET * short
    above = sizes[rank][:, None] / 2 + _INDEX_INSET * short
    return list(_hung(points[rank] - right * beside - down * above, right, down, size))


def _hung(corner: np.ndarray, right: np.ndarray, down: np.ndarray, size: tuple[float, float]) -> np.ndarray:
    """A card of ``size`` (short, long) hung from its top-left ``corner``, its top side along
    ``right`` and its left side along ``down`` (unit vectors): 4 x 2, clockwise from the corner.
    Given n corners and directions (n x 2 each), n cards (n x 4 x 2)."""
    short, long_ = size
    across, along = right * short, down * long_
    return np.stack([corner, corner + across, corner + across + along, corner + along], axis=-2)


# Where a rank's suit lies (its centre this far below the rank's, of the rank's size, in a square
# the rank's size), at least this share of it ink: see _suit_run_into_a_stroke.
_SUIT_BELOW_RANK, _SUIT_INK = 1.1, 0.25


def _suit_run_into_a_stroke(ink: np.ndarray, rank: np.ndarray, size: float, down: np.ndarray) -> bool:
    """Whether ink lies where a rank's suit does, though no glyph of its own was found there: the
    suit ran into a longer stroke (kde:standard's courts set their suit near the card's side,
    and a card lying over another casts a dark line along that side: the suit and the line are
    one blob, as long as a card). ``ink`` is the pile's window (0/1), ``rank`` the rank's centre
    in it, ``down`` the card's way down."""
    centre = rank + down * size * _SUIT_BELOW_RANK
    low = np.maximum(np.floor(centre - size / 2), 0).astype(int)
    high = np.floor(centre + size / 2 + 1).astype(int)
    window = ink[low[1] : high[1], low[0] : high[0]]
    return window.size > 0 and float(window.mean()) >= _SUIT_INK


_INDEX_TURN = (2.0, 25.0)  # degrees: an index's axis this far off its run grows a turned card too


def _turned_by_index(
    rank: np.ndarray,
    suit: np.ndarray,
    rank_size: float,
    suit_size: float,
    depth: float,
    down: np.ndarray,
    size: tuple[float, float],
) -> np.ndarray | None:
    """A card hung from its index rather than from the run: a fan's middle card laid crooked
    against its neighbours shows its index near the run, but the card hung from the run is
    turned like the run, 5-45 px off at its far end (2-15 degrees). The index's own axis (rank
    above suit) is the card's: when it is ``_INDEX_TURN`` degrees off the run, the card is grown
    along it too, about the rank, as deep below the run as the rank lies. None otherwise."""
    short = size[0]
    axis = suit - rank
    length = float(np.linalg.norm(axis))
    if length == 0:
        return None
    down_ = axis / length
    angle = np.degrees(np.arccos(np.clip(float(down_ @ down), -1.0, 1.0)))
    if not _INDEX_TURN[0] <= angle <= _INDEX_TURN[1]:
        return None
    right_ = np.array([down_[1], -down_[0]])
    # Rank and suit lie on the axis itself: the card's side is beside the wider of the two.
    left = -max(rank_size, suit_size) / 2 - _INDEX_INSET * short
    return _hung(rank + right_ * left - down_ * depth, right_, down_, size)


class _Steps(dict):
    """The sample positions along a side, per sample count, made once."""

    def __missing__(self, samples: int) -> np.ndarray:
        steps = np.linspace(0.12, 0.88, samples)[:, None]
        self[samples] = steps
        return steps


_SIDE_STEPS = _Steps()


def _split_blob(
    contour: np.ndarray, mask: np.ndarray, edges: _Edges, size: tuple[float, float], frame: np.ndarray, scale: float
) -> list[np.ndarray]:
    """Candidate cards in a blob of touching or overlapping cards, best first. A card grown from a
    corner, a strip or a side must lie on card pixels *and* have most of its outline on image
    edges (the blob's border, or the faint line of a card lying on another): inside a white pile,
    a wrong rectangle has few edges. Several candidates per card are kept (near-duplicates
    dropped): which one is the card is settled by reading them (:func:`vision.scan.recognise`),
    since only a well-placed outline shows an index upright in its corner."""
    steps = split_steps(contour, mask, size, edges, frame, scale)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


SPLIT_RUNS_PER_STEP = 3  # runs of a pile's outline slid along in one step of its split (~1-2 ms)
SPLIT_SNAPS_PER_STEP = 4  # candidates snapped to the pile's outline in one step (~1.2 ms)
SPLIT_FITS_PER_STEP = 2  # candidates fitted to the frame's edges in one step (~0.7-1.2 ms each)
# What each kind of step costs, in reads (a single card's outline warped and read, ~2.7 ms at
# 1080p: the unit of vision.scan's work budget); medians at 1080p on the development machine.
SPLIT_FIRST_STEP = 0.25  # the pile's edges (0.6 ms)
_HYPOTHESES_STEP = 0.25  # the cards grown from its corners and pieces, its outline's runs (0.6 ms)
_SLIDES_STEP = 0.5  # SPLIT_RUNS_PER_STEP runs slid along (1.5 ms, up to 3)
_FILL_STEP = 0.5  # the share of card pixels under every hypothesis (1.5 ms)
_SUPPORT_STEP = 0.85  # their edge support, ranking and thinning out (2.3 ms, up to 4)
_SNAPS_STEP = 0.4  # SPLIT_SNAPS_PER_STEP candidates snapped (1.2 ms)
_FITS_STEP = 0.75  # SPLIT_FITS_PER_STEP candidates fitted (2.1 ms) ...
_GRADIENTS = 0.25  # ... and, in the first such step, the frame's gradients around the pile
_INDEX_STEP = 0.45  # the indices seen along its runs, and the cards grown from them (1.2 ms)


def split_steps(
    contour: np.ndarray,
    mask: np.ndarray,
    size: tuple[float, float],
    edges: _Edges | None = None,
    frame: np.ndarray | None = None,
    scale: float = 1.0,
) -> Generator[float, None, list[np.ndarray]]:
    """:func:`_split_blob` in steps of a few milliseconds each (it yields between them, and
    returns the candidates): the edges around the pile (when not given: from ``frame`` at work
    ``scale``), the cards grown from its corners and pieces, then ``SPLIT_RUNS_PER_STEP`` of its
    outline's runs at a time, the share of card pixels under each card, their edge support and
    ranking, then ``SPLIT_SNAPS_PER_STEP`` candidates snapped at a time, and, given the ``frame``,
    ``SPLIT_FITS_PER_STEP`` of them fitted to its edges at full resolution at a time (each
    snapped candidate is followed by its fit). Each step is 0.5-2.5 ms at 1080p, and each
    ``yield`` tells what the step after it costs, in reads (the first step costs
    ``SPLIT_FIRST_STEP``): a caller with a budget of reads stops before a step it cannot pay
    for. The same candidates as in one go, given the same edges: a caller short of time goes on
    with them in a later frame."""
    if edges is None:
        assert frame is not None
        edges = _edges(frame, scale, [contour])
        yield _HYPOTHESES_STEP
    corners = _corner_hypotheses(contour, size)
    hypotheses = corners + _piece_hypotheses(contour, mask, edges, size)
    runs = _side_runs(contour, size)
    for start in range(0, len(runs), SPLIT_RUNS_PER_STEP):
        yield _SLIDES_STEP
        for run in runs[start : start + SPLIT_RUNS_PER_STEP]:
            hypotheses += _slides(contour, edges, size, run)
    indexed: list[np.ndarray] = []
    if frame is not None:  # cards grown from an index seen inside the runs: on card pixels, whatever their edges
        yield _INDEX_STEP
        indexed = [q for q in _index_hypotheses(contour, frame, scale, size, runs) if _fill(mask, q) >= _MIN_FILL]
    yield _FILL_STEP
    filled = [(fill, k, quad) for k, quad in enumerate(hypotheses) if (fill := _fill(mask, quad)) >= _MIN_FILL]
    yield _SUPPORT_STEP
    scored = []
    if filled:  # the edge support of all those on card pixels at once
        supports = _edge_support_many(edges, np.array([quad for _, _, quad in filled]))
        scored = [(s * f, k, q) for s, (f, k, q) in zip(supports, filled, strict=True) if s >= _MIN_SUPPORT]
    # A pile of n cards needs a few candidates per card; the rest only cost reads. But a card
    # grown from a right-angled corner of the pile's outline is kept whatever its rank: the
    # corner is a card's (a pile has few), while its far sides may cross other cards' bodies,
    # where few edges run (anglo's pictures: a card 3 px off ranked 19th-25th of 18 kept).
    cap = _CANDIDATES_PER_CARD * _fanned_cards(cv2.contourArea(contour) / (size[0] * size[1]))
    best_first = sorted(scored, key=lambda s: -s[0])
    ranked = _distinct((quad for _, _, quad in best_first), cap)
    grown = [quad for _, k, quad in best_first if k < len(corners)]
    ranked = _distinct(ranked + grown, len(ranked) + len(grown))
    # A card grown from an index where a candidate lies already (the top card's, one grown from a
    # corner) only costs reads: kept only where none lies within a tenth of the short side.
    indexed = [quad for quad in indexed if not _close_to_any(quad, ranked, _INDEX_NEW * size[0])]
    ranked = _distinct(ranked + indexed, len(ranked) + len(indexed))
    # Only the survivors are snapped (it is the costly step), then told apart again.
    outline = contour.reshape(-1, 2).astype(np.float64)
    snapped: list[np.ndarray] = []
    for start in range(0, len(ranked), SPLIT_SNAPS_PER_STEP):
        yield _SNAPS_STEP
        chunk = ranked[start : start + SPLIT_SNAPS_PER_STEP]
        snapped += [_sharp_corners(quad, outline, partial=True) for quad in chunk]
    if frame is None:
        return _distinct(snapped, len(ranked))
    # Each candidate is followed by its fit to the frame's own edges: the fit places most outlines
    # closer (the snapped side lies on the mask's outline, inside the card), but not all (a side
    # hidden under another card lets a court card's frame line pull it), so both are read.
    both: list[np.ndarray] = []
    around = None
    for start in range(0, len(snapped), SPLIT_FITS_PER_STEP):
        yield _FITS_STEP + (_GRADIENTS if around is None else 0.0)
        if around is None and snapped:  # the frame's gradients over the whole pile, once
            quads = np.array(snapped) / scale
            margin = max(fit_reach(q) for q in quads) + 5
            (x0, y0), (x1, y1) = quads.reshape(-1, 2).min(axis=0) - margin, quads.reshape(-1, 2).max(axis=0) + margin
            around = gradients(frame, int(np.floor(x0)), int(np.floor(y0)), int(np.ceil(x1)), int(np.ceil(y1)))
        for quad in snapped[start : start + SPLIT_FITS_PER_STEP]:
            both += [quad, fit_to_edges(frame, quad / scale, around) * scale]
    return _distinct(both, 2 * len(ranked))


def _close_to_any(quad: np.ndarray, others: list[np.ndarray], reach: float) -> bool:
    """Whether one of ``others`` has every corner within ``reach`` of ``quad``'s (either order)."""
    if not others:
        return False
    quad = _clockwise(quad)
    kept = _clockwise_many(np.array(others, np.float64).reshape(-1, 4, 2))
    return _nearest(quad, np.roll(quad, 2, axis=0), kept) <= reach


def _fanned_cards(area: float) -> int:
    """How many cards a pile of ``area`` (in cards' worth) holds when fanned: each card under
    another shows only ``_SHOWN`` of itself, so a fan of three is about 2.2 cards' worth (rounding
    the area alone counted it as two, and the candidates for its middle card were cut off)."""
    return max(1, round(1 + (area - 1) / _SHOWN))


def _distinct(quads: Iterable[np.ndarray], cap: int) -> list[np.ndarray]:
    """The first ``cap`` quadrilaterals in order, each dropped if one kept before it has every
    corner within ``_SAME_QUAD`` of its own (in either order of the corners)."""
    given = list(quads)
    if not given or cap <= 0:
        return []
    # All put in clockwise order at once (a split weighs hundreds): the loop only compares.
    ordered = _clockwise_many(np.array(given, np.float64).reshape(-1, 4, 2))
    turned = np.roll(ordered, 2, axis=1)
    kept = np.empty((min(cap, len(ordered)), 4, 2))
    n = 0
    for quad, reversed_ in zip(ordered, turned, strict=True):
        if n >= cap:
            break
        if n and _nearest(quad, reversed_, kept[:n]) <= _SAME_QUAD:
            continue
        kept[n] = quad
        n += 1
    return list(kept[:n].copy())


def _nearest(quad: np.ndarray, reversed_: np.ndarray, others: np.ndarray) -> float:
    """How near the nearest of ``others`` (clockwise, n x 4 x 2) lies to a clockwise ``quad``: the
    farthest apart of their corners, in either order (``reversed_``: the quad from its other end)."""
    same = np.max(np.linalg.norm(others - quad, axis=2), axis=1)
    back = np.max(np.linalg.norm(others - reversed_, axis=2), axis=1)
    return float(min(same.min(), back.min()))


def _clockwise_many(corners: np.ndarray) -> np.ndarray:
    """:func:`_clockwise` of each of n quadrilaterals (n x 4 x 2)."""
    centre = corners.mean(axis=1, keepdims=True)
    order = np.argsort(np.arctan2(corners[..., 1] - centre[..., 1], corners[..., 0] - centre[..., 0]), axis=1)
    c = np.take_along_axis(corners, order[..., None], axis=1)
    first = np.linalg.norm(c[:, 1] - c[:, 0], axis=1)
    second = np.linalg.norm(c[:, 2] - c[:, 1], axis=1)
    c[first > second] = np.roll(c[first > second], -1, axis=1)
    return c


@dataclass(frozen=True, slots=True)
class Blob:
    """One blob of card pixels and the card outlines found in it (or given for it: ``reused``)."""

    box: tuple[int, int, int, int]  # x0, y0, x1, y1 in frame pixels
    area: float  # in work pixels
    outline: np.ndarray  # N x 2 float32, frame pixels
    work_box: tuple[int, int, int, int]  # x, y, width, height in work pixels
    shape: np.ndarray  # the card pixels (holes filled) inside work_box, uint8 0/255
    quads: tuple[CardQuad, ...] = ()
    reused: bool = False


def find_cards(frame: np.ndarray, card_size_px: tuple[float, float] | None = None) -> list[CardQuad]:
    """Card outlines in a BGR frame. ``card_size_px`` (short, long side in frame pixels), when
    known from the mat, lets touching cards be split even when no card lies on its own."""
    return [quad for blob in find_blobs(frame, card_size_px) for quad in blob.quads]


@dataclass(frozen=True, slots=True)
class Paper:
    """A frame's card pixels: the mask at work scale (holes filled, unless larger than a card),
    that scale (work over frame pixels), the blobs' outlines at work scale and the blobs (no card
    outlines yet). A frame that is the previous one within camera noise may be given its
    predecessor's."""

    mask: np.ndarray
    scale: float
    contours: list[np.ndarray]
    blobs: list[Blob]
    # Whether each blob (by index) is one whole card, and its corners (see _single_card; with
    # ``notched`` too): asked again in every frame a pile's split goes on in, and the same answer.
    shapes: dict[tuple[int, bool], np.ndarray | None] = field(default_factory=dict, repr=False)

    def single_card(self, i: int, notched: bool = False) -> np.ndarray | None:
        key = (i, notched)
        if key not in self.shapes:
            self.shapes[key] = _single_card(self.contours[i], self.mask, notched)
        return self.shapes[key]


def paper(frame: np.ndarray, half: np.ndarray | None = None, card_size_px: tuple[float, float] | None = None) -> Paper:
    """The blobs of card pixels in a BGR frame (the costly part is the mask, ~5 ms at 1080p);
    ``half`` as :func:`card_pixels` takes it. A blob's holes are card too (a court card's picture,
    a big pip), but given the card size, not a hole larger than a card: that is table seen
    through a ring of paper (a pale table around the mat), and the cards lying in it are blobs
    of their own."""
    mask, scale = card_pixels(frame, half)
    # Every outline point, not just the ends of straight runs: the side fitting needs them.
    found, hierarchy = cv2.findContours(mask, cv2.RETR_TREE, cv2.CHAIN_APPROX_NONE)
    largest_hole = np.inf if card_size_px is None else card_size_px[0] * card_size_px[1] * scale * scale
    outer = _blob_contours(found, hierarchy, largest_hole, 0.0008 * mask.size)
    mask = np.zeros_like(mask)
    # Larger first: a blob lying in another's open hole is drawn after it, over the hole.
    for i, holes in sorted(outer, key=lambda o: -cv2.contourArea(found[o[0]])):
        cv2.drawContours(mask, [found[i]], -1, 255, -1)
        cv2.drawContours(mask, holes, -1, 0, -1)
    h, w = frame.shape[:2]
    blobs = []
    for i, holes in outer:
        contour = found[i]
        x, y, bw, bh = cv2.boundingRect(contour)
        box = (
            int(x / scale),
            int(y / scale),
            min(w, int(np.ceil((x + bw) / scale))),
            min(h, int(np.ceil((y + bh) / scale))),
        )
        outline = contour.reshape(-1, 2).astype(np.float32) / scale
        shape = np.zeros((bh, bw), np.uint8)  # its own pixels, not those of the blobs in its holes
        cv2.drawContours(shape, [contour], -1, 255, -1, offset=(-x, -y))
        cv2.drawContours(shape, holes, -1, 0, -1, offset=(-x, -y))
        area = cv2.contourArea(contour) - sum(cv2.contourArea(hole) for hole in holes)
        blobs.append(Blob(box, float(area), outline, (x, y, bw, bh), shape))
    return Paper(mask, scale, [found[i] for i, _ in outer], blobs)


def _blob_contours(
    found: Sequence[np.ndarray], hierarchy: np.ndarray | None, largest_hole: float, min_area: float
) -> list[tuple[int, list[np.ndarray]]]:
    """The blobs among contours found with ``RETR_TREE``: each outer contour at least ``min_area``
    large (by its index), with its holes larger than ``largest_hole`` (left open). An outer
    contour in a hole left open is a blob too; one in a hole that is filled is part of its blob."""
    links = hierarchy[0] if hierarchy is not None else np.zeros((0, 4), np.int32)

    def inside(i: int) -> list[int]:  # the contours right inside contour i (its holes, or a hole's blobs)
        j, within = links[i][2], []
        while j >= 0:
            within.append(int(j))
            j = links[j][0]
        return within

    outer = []
    todo = [i for i in range(len(found)) if links[i][3] < 0]
    while todo:
        i = todo.pop()
        holes = [j for j in inside(i) if cv2.contourArea(found[j]) > largest_hole]
        todo += [k for j in holes for k in inside(j)]
        if cv2.contourArea(found[i]) >= min_area:
            outer.append((i, [found[j] for j in holes]))
    return sorted(outer, key=lambda o: o[0])


def find_blobs(
    frame: np.ndarray,
    card_size_px: tuple[float, float] | None = None,
    known: Callable[[Blob], tuple[CardQuad, ...] | None] | None = None,
    triage: Callable[[list[Blob], float], set[int]] | None = None,
    pixels: Paper | None = None,
    split: Callable[[Blob, Callable[[], Generator[float, None, list[np.ndarray]]]], list[np.ndarray] | None]
    | None = None,
) -> list[Blob]:
    """The blobs of card pixels in a frame, each with the card outlines found in it. Given the
    card size, each blob is worked on alone (its outlines depend only on its own pixels and the
    image edges around it), so a blob ``known`` gives outlines for (the caller saw it, alike,
    in an earlier frame) is not worked on again: it keeps those (``reused``). ``triage`` is then
    shown the blobs still to be worked on (and the work scale, work over frame pixels) and names
    those (by their place in that list) to leave for a later frame: they get no outline now.
    ``pixels``: the frame's :func:`paper`, if the caller has it already. ``split``, given a pile
    and a way to start its :func:`split_steps` (edges of its own), runs them as far as it will:
    the candidates, or None (the split goes on in a later frame; the blob gets no outline now)."""
    pixels = pixels or paper(frame, card_size_px=card_size_px)
    mask, scale, contours, blobs = pixels.mask, pixels.scale, pixels.contours, list(pixels.blobs)
    if card_size_px is None:
        known = None  # the size comes from the single cards of the whole frame
    quads: dict[int, list[CardQuad]] = {}
    for i, blob in enumerate(blobs):
        given = known(blob) if known is not None else None
        if given is not None:
            blobs[i] = replace(blob, quads=given, reused=True)
        else:
            quads[i] = []
    if triage is not None and known is not None and quads:
        todo = list(quads)
        for k in triage([blobs[i] for i in todo], scale):
            del quads[todo[k]]
    singles, clusters = [], []
    # A blob with less paper than half a card is neither a card (one of card size fills most of
    # it) nor a pile (below): the markers' frames, a card's corner at the frame's edge.
    least = 0.5 * card_size_px[0] * card_size_px[1] * scale * scale if card_size_px is not None else 0.0
    for i in quads:
        if blobs[i].area < least:
            continue
        quad = pixels.single_card(i)
        if quad is None:
            clusters.append(i)
        else:
            singles.append((CardQuad(_clockwise(quad / scale), True), i))
    size = _card_size(card_size_px, [q for q, _ in singles])
    if size is not None:
        # A card-shaped blob of the wrong size is a tidy pile of cards (or not a card at all).
        clusters += [i for q, i in singles if not _card_sized(q, size)]
        singles = [(q, i) for q, i in singles if _card_sized(q, size)]
        # A blob not full enough to be a card may be one whose ink cuts into its paper: it is
        # taken for one when its hull is a card of the size, with paper along every side.
        for i in list(clusters):
            corners = pixels.single_card(i, notched=True)
            notched = None if corners is None else CardQuad(_clockwise(corners / scale), True)
            if notched is not None and _card_sized(notched, size):
                clusters.remove(i)
                singles.append((notched, i))
    for quad, i in singles:
        # The size above is the paper mask's (piles are split at it, their outlines being the
        # mask's too); a single card's own outline is moved onto its edges for the reader.
        quads[i].append(replace(quad, corners=refine_to_edges(frame, quad.corners)))
    if size is not None:
        work_size = (size[0] * scale, size[1] * scale)
        # A pile holds at least one card's worth of paper; smaller blobs (the markers' white
        # frames, a corner of a card at the frame's edge) have no card to split out.
        clusters = [i for i in clusters if blobs[i].area >= 0.8 * work_size[0] * work_size[1]]
        if clusters and split is None:
            edges = _edges(frame, scale, [contours[i] for i in clusters])  # only piles need them
            for i in clusters:
                found = _split_blob(contours[i], mask, edges, work_size, frame, scale)
                quads[i] += [CardQuad(_clockwise(q / scale), False, i) for q in found]
        for i in clusters if split is not None else []:

            def start(contour=contours[i]) -> Generator[float, None, list[np.ndarray]]:
                return split_steps(contour, mask, work_size, frame=frame, scale=scale)

            got = split(blobs[i], start)
            quads[i] += [CardQuad(_clockwise(q / scale), False, i) for q in got or []]
    for i, found in quads.items():
        blobs[i] = replace(blobs[i], quads=tuple(found))
    return blobs


def _card_sized(quad: CardQuad, size: tuple[float, float]) -> bool:
    return abs(quad.size[0] / size[0] - 1) <= 0.15 and abs(quad.size[1] / size[1] - 1) <= 0.15


def _card_size(given: tuple[float, float] | None, singles: list[CardQuad]) -> tuple[float, float] | None:
    """Card (short, long) size in frame pixels: given, or the median of the single cards seen."""
    if given is not None:
        return given
    if not singles:
        return None
    # The size most singles agree with, on both sides (two cards nearly aligned make a blob of a
    # card's shape whose long side is within a fifth of a card's, its short side is not); on a
    # tie the smaller, since a tidy pile is larger than a card.
    sizes = np.array([q.size for q in singles])
    agree = np.all(np.abs(sizes[None, :, :] / sizes[:, None, :] - 1) <= 0.2, axis=2)
    support = [(int(np.sum(agree[i])), -sizes[i, 1]) for i in range(len(singles))]
    return singles[max(range(len(singles)), key=lambda i: support[i])].size


def warp_card(frame: np.ndarray, quad: CardQuad) -> np.ndarray:
    """The card upright (portrait), ``CANONICAL_W x CANONICAL_H`` inside a ``CANONICAL_PAD`` margin.
    Which end is up is not known, and need not be: a card's two indices are point-symmetric, so
    both read upright after a portrait warp."""
    p, w, h = CANONICAL_PAD, CANONICAL_W, CANONICAL_H
    target = np.array([[p, p], [p + w, p], [p + w, p + h], [p, p + h]], np.float32)
    homography = cv2.getPerspectiveTransform(quad.corners.astype(np.float32), target)
    size = (w + 2 * p, h + 2 * p)
    return cv2.warpPerspective(frame, homography, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def pad_canonical(card: np.ndarray) -> np.ndarray:
    """A ``CANONICAL_W x CANONICAL_H`` card image given the margin :func:`warp_card` leaves."""
    p = CANONICAL_PAD
    return cv2.copyMakeBorder(card, p, p, p, p, cv2.BORDER_REPLICATE)
