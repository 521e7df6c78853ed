"""A card's outline moved onto its edges in the frame itself.

The paper mask the detector works from is thresholded at work scale (at most 960 pixels wide):
where a blurred card edge meets a bright table, its threshold falls a pixel or several inside
the card (measured on rendered scenes: 0.5-1 px on felt, 1.5-3.7 px on a pale table or with a
deck's grey border). The index of a card lies close to its edge, so that much matters to the
reader. Each side is moved along its normal to where the brightness drops most steeply from the
card to the table, judged at full resolution from a dozen points along the side's middle.
"""

from __future__ import annotations

import cv2
import numpy as np

_ALONG = np.linspace(0.2, 0.8, 12)  # where along a side its edge is looked for
_OFFSETS = np.arange(-3.0, 7.01, 0.5)  # frame pixels along the outward normal that are searched
_STEEP = 6.0  # grey levels per half pixel: a weaker drop is no edge
_AGREE = 1.0  # pixels: the edge points must lie this close to their median ...
_MOST = 0.6  # ... this share of them, or the side stays where it was
_MARGIN = 8  # pixels around the outline that are turned grey


def refine_to_edges(frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """``corners`` (4 x 2, frame pixels, in order around the card) with each side moved onto the
    card's edge, where the frame shows one clearly; a side without a clear edge stays."""
    h, w = frame.shape[:2]
    x0 = max(0, int(corners[:, 0].min()) - _MARGIN)
    y0 = max(0, int(corners[:, 1].min()) - _MARGIN)
    x1 = min(w, int(np.ceil(corners[:, 0].max())) + _MARGIN + 1)
    y1 = min(h, int(np.ceil(corners[:, 1].max())) + _MARGIN + 1)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return corners
    patch = frame[y0:y1, x0:x1]
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch
    local = corners - (x0, y0)
    centre = local.mean(axis=0)
    lines = []
    for i in range(4):
        a, b = local[i], local[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        if length < 1:
            return corners
        u = (b - a) / length
        n = np.array([-u[1], u[0]])
        if float(n @ ((a + b) / 2 - centre)) < 0:
            n = -n  # outward
        lines.append((a + _edge_shift(grey, a, b, n) * n, u))
    met = corners_where_sides_meet(lines)
    if met is None:
        return corners
    refined = met + np.array([x0, y0], np.float64)
    # A side moves a few pixels at most: anything more is not this card's edge.
    if np.max(np.linalg.norm(refined - corners, axis=1)) > 2 * _OFFSETS[-1]:
        return corners
    return refined


def corners_where_sides_meet(lines: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray | None:
    """The four corners where each side's line (a point and a direction) meets the one before
    it; None when two neighbouring sides run parallel."""
    out = []
    for i in range(4):
        (p, u), (q, v) = lines[i - 1], lines[i]
        # p + s u = q + r v, solved by Cramer's rule (a 2x2 system: np.linalg costs more to call)
        det = float(v[0]) * float(u[1]) - float(u[0]) * float(v[1])
        if abs(det) < 1e-6:
            return None
        d = q - p
        s = (float(v[0]) * float(d[1]) - float(d[0]) * float(v[1])) / det
        out.append(p + np.result_type(u, v).type(s) * u)
    return np.array(out)


def _edge_shift(grey: np.ndarray, a: np.ndarray, b: np.ndarray, n: np.ndarray) -> float:
    """How far along ``n`` (outward) the side a-b must move to lie on the steepest drop in
    brightness, agreed by most of its points; 0 when they do not agree."""
    points = a + _ALONG[:, None] * (b - a)  # 12 x 2
    grid = points[:, None, :] + _OFFSETS[None, :, None] * n  # 12 x K x 2
    values = cv2.remap(
        grey,
        grid[..., 0].astype(np.float32),
        grid[..., 1].astype(np.float32),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    ).astype(np.float32)
    drop = values[:, :-1] - values[:, 1:]  # going outward, from the card to the table
    steepest = np.argmax(drop, axis=1)
    strong = drop[np.arange(len(drop)), steepest] >= _STEEP
    if np.count_nonzero(strong) < _MOST * len(drop):
        return 0.0
    shifts = (_OFFSETS[steepest] + _OFFSETS[steepest + 1])[strong] / 2
    median = float(np.median(shifts))
    if np.count_nonzero(np.abs(shifts - median) <= _AGREE) < _MOST * len(drop):
        return 0.0
    return median
