"""A card's outline moved onto its edges in the frame itself.

The paper mask the detector works from is thresholded at work scale (at most 960 pixels wide):
where a blurred card edge meets a bright table, its threshold falls a pixel or several inside
the card (measured on rendered scenes: 0.5-1 px on felt, 1.5-3.7 px on a pale table or with a
deck's grey border). The index of a card lies close to its edge, so that much matters to the
reader. Each side is moved along its normal to where the brightness drops most steeply from the
card to the table, judged at full resolution from a dozen points along the side's middle.
"""

from __future__ import annotations

from dataclasses import dataclass

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


# A pile's candidate outline fitted at full resolution (:func:`fit_to_edges`).
_FIT_ALONG = np.linspace(0.1, 0.9, 12)  # where along a side its edge is looked for
_FIT_TURNS = np.deg2rad(np.arange(-2.0, 2.01, 1.0))  # turns of the whole outline tried
_FIT_REACH = 0.1  # of the short side: how far each side may move along its normal
_FIT_GROW = (-0.02, 0.06)  # of a side's length: how much the card may shrink or grow across it
_FIT_CLIP = 24.0  # grey levels per pixel: a stronger step counts no more (one crisp edge is enough)


@dataclass(frozen=True, slots=True)
class Gradients:
    """The frame's brightness gradients (Sobel, grey levels per pixel) over a window whose top
    left is ``origin`` (frame pixels): worked out once for the candidates of one pile, which
    all lie in it, rather than once per candidate."""

    origin: tuple[int, int]
    gx: np.ndarray
    gy: np.ndarray

    def window(self, x0: int, y0: int, x1: int, y1: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The gradients over a part of the window (None when it is not all inside)."""
        ox, oy = self.origin
        h, w = self.gx.shape
        if x0 < ox or y0 < oy or x1 > ox + w or y1 > oy + h:
            return None
        return self.gx[y0 - oy : y1 - oy, x0 - ox : x1 - ox], self.gy[y0 - oy : y1 - oy, x0 - ox : x1 - ox]


def gradients(frame: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> Gradients:
    """:class:`Gradients` over a window of the frame (clipped to it)."""
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    patch = frame[y0:y1, x0:x1]
    grey = (cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3, scale=1 / 8)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3, scale=1 / 8)
    return Gradients((x0, y0), gx, gy)


def fit_reach(corners: np.ndarray) -> float:
    """How far (frame pixels) :func:`fit_to_edges` may move the sides of ``corners``."""
    short = float(min(np.linalg.norm(corners[1] - corners[0]), np.linalg.norm(corners[2] - corners[1])))
    return float(np.ceil(_FIT_REACH * short))


def fit_to_edges(frame: np.ndarray, corners: np.ndarray, around: Gradients | None = None) -> np.ndarray:
    """``corners`` (4 x 2, frame pixels, a card-shaped outline split out of a pile) turned a
    little and its sides moved onto the image edges that fit best, judged at full resolution.
    The outline was grown at work scale from the pile's outline, whose threshold falls inside
    the card, and a card lying on another shows only a faint line for its side: a few pixels
    off, its index is not where the reader looks. Each side is scored by the step in brightness
    across it (any sign: a card on a card may be brighter or darker than the one under it) along
    its length, so a side hidden under another card scores alike everywhere and the visible
    sides decide; opposite sides move together, the card's width changing only a little.
    ``around``: the gradients of a window holding this one (a pile's), if the caller has them."""
    reach = fit_reach(corners)
    offsets = np.arange(-reach, reach + 1)
    h, w = frame.shape[:2]
    x0, y0 = np.maximum(np.floor(corners.min(axis=0) - reach - 4).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(corners.max(axis=0) + reach + 4).astype(int), (w, h))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return corners
    given = around.window(int(x0), int(y0), int(x1), int(y1)) if around is not None else None
    if given is None:
        own = gradients(frame, int(x0), int(y0), int(x1), int(y1))
        gx, gy = own.gx, own.gy
    else:
        gx, gy = given
    local = corners - (x0, y0)
    centre = local.mean(axis=0)
    turned = np.array([turned_about(local, centre, t) for t in _FIT_TURNS])  # T x 4 x 2
    scores, fits = _fits(gx, gy, turned, offsets)
    return fits[int(np.argmax(scores))] + (x0, y0)


def turned_about(quad: np.ndarray, centre: np.ndarray, angle: float) -> np.ndarray:
    """Points turned by ``angle`` (radians) about ``centre``."""
    c, s = np.cos(angle), np.sin(angle)
    return (quad - centre) @ np.array([[c, s], [-s, c]]) + centre


def _fits(
    gx: np.ndarray, gy: np.ndarray, quads: np.ndarray, offsets: np.ndarray
) -> tuple[np.ndarray, list[np.ndarray]]:
    """For each of ``quads`` (T x 4 x 2, the outline turned T ways), its best score with its
    sides moved along their normals, and that outline."""
    ends = np.roll(quads, -1, axis=1)
    sides = ends - quads  # T x 4 x 2
    lengths = np.linalg.norm(sides, axis=2)
    units = sides / lengths[..., None]
    normals = np.stack([units[..., 1], -units[..., 0]], axis=2)
    outward = np.sign(np.sum(normals * ((quads + ends) / 2 - quads.mean(axis=1, keepdims=True)), axis=2))
    normals *= outward[..., None]
    points = quads[:, :, None, :] + _FIT_ALONG[None, None, :, None] * sides[:, :, None, :]  # T x 4 x P x 2
    grid = points[:, :, :, None, :] + offsets[:, None] * normals[:, :, None, None, :]  # T x 4 x P x O x 2
    mx = grid[..., 0].astype(np.float32).reshape(-1, 1)
    my = grid[..., 1].astype(np.float32).reshape(-1, 1)
    sx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT).reshape(grid.shape[:4])
    sy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT).reshape(grid.shape[:4])
    step = np.abs(sx * normals[:, :, None, None, 0] + sy * normals[:, :, None, None, 1])
    score = np.minimum(step, _FIT_CLIP).mean(axis=2) / _FIT_CLIP  # T x 4 x O: each side at each offset
    grow = offsets[:, None] + offsets[None, :]  # opposite sides' outward moves: how much the card grows
    totals = np.zeros(len(quads))
    moves = np.zeros((len(quads), 4))
    for a, b in ((0, 2), (1, 3)):
        pair = score[:, a, :, None] + score[:, b, None, :]  # T x O x O
        across = lengths[:, b - 1, None, None]
        pair = np.where((grow >= _FIT_GROW[0] * across) & (grow <= _FIT_GROW[1] * across), pair, -np.inf)
        flat = pair.reshape(len(quads), -1).argmax(axis=1)
        i, j = np.unravel_index(flat, pair.shape[1:])
        totals += pair.reshape(len(quads), -1)[np.arange(len(quads)), flat]
        moves[:, a], moves[:, b] = offsets[i], offsets[j]
    fits = []
    for k in range(len(quads)):
        met = corners_where_sides_meet([(quads[k, s] + moves[k, s] * normals[k, s], units[k, s]) for s in range(4)])
        fits.append(quads[k] if met is None else met)
    return totals, fits
