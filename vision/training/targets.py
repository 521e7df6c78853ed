"""What the network is taught at each output cell (CenterNet-style, stride 4): a heat map that
peaks at each visible index's centre, and, at that centre, the rank, the suit, the index's size
and its up direction. Partly hidden indices are left out of the heat loss, not taught as absent."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.cards import Card
from vision.index_reads import RANKS, SUITS  # the class order the table reads the network's output in

STRIDE = 4
MAX_INDICES = 96


def rank_class(card: Card) -> int:
    return RANKS.index("X") if card.is_joker else RANKS.index(str(card)[0])


def suit_class(card: Card) -> int:
    return SUITS.index(str(card)) if card.is_joker else SUITS.index(str(card)[1])


@dataclass(slots=True)
class Targets:
    heat: np.ndarray  # (1, H, W)
    heat_weight: np.ndarray  # (1, H, W): 0 where the loss ignores the cell
    cells: np.ndarray  # (K,) flat cell of each index centre
    rank: np.ndarray  # (K,)
    suit: np.ndarray  # (K,)
    geometry: np.ndarray  # (K, 4): log height, log width (in cells), sin, cos of the up angle
    has_geometry: np.ndarray  # (K,)
    valid: np.ndarray  # (K,)


@dataclass(frozen=True, slots=True)
class Mark:
    """One index to teach: centre (input pixels), size, card; ``target`` or ``ignore``; its
    height, width and up angle when known."""

    centre: tuple[float, float]
    size: float
    card: Card
    target: bool
    height: float | None = None
    width: float | None = None
    angle_deg: float | None = None


def _gaussian(heat: np.ndarray, cx: float, cy: float, sigma: float) -> None:
    h, w = heat.shape
    r = int(3 * sigma) + 1
    x0, x1 = max(0, int(cx) - r), min(w, int(cx) + r + 2)
    y0, y1 = max(0, int(cy) - r), min(h, int(cy) + r + 2)
    if x0 >= x1 or y0 >= y1:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1]
    g = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma**2))
    heat[y0:y1, x0:x1] = np.maximum(heat[y0:y1, x0:x1], g)


def build(marks: list[Mark], size: int) -> Targets:
    side = size // STRIDE
    heat = np.zeros((side, side), np.float32)
    weight = np.ones((side, side), np.float32)
    k = MAX_INDICES
    t = Targets(
        heat[None],
        weight[None],
        np.zeros(k, np.int64),
        np.zeros(k, np.int64),
        np.zeros(k, np.int64),
        np.zeros((k, 4), np.float32),
        np.zeros(k, np.float32),
        np.zeros(k, np.float32),
    )
    n = 0
    for m in marks:
        cx, cy = m.centre[0] / STRIDE - 0.5, m.centre[1] / STRIDE - 0.5
        ix, iy = round(cx), round(cy)
        inside = 0 <= ix < side and 0 <= iy < side
        if not m.target:
            r = max(1, round(0.4 * m.size / STRIDE))
            weight[max(0, iy - r) : iy + r + 1, max(0, ix - r) : ix + r + 1] = 0
            continue
        if not inside or n >= k:
            continue
        _gaussian(heat, cx, cy, max(0.6, m.size / STRIDE / 6))
        heat[iy, ix] = 1.0
        t.cells[n] = iy * side + ix
        t.rank[n], t.suit[n] = rank_class(m.card), suit_class(m.card)
        if m.height is not None and m.width is not None and m.angle_deg is not None:
            a = math.radians(m.angle_deg)
            t.geometry[n] = (math.log(m.height / STRIDE), math.log(m.width / STRIDE), math.sin(a), math.cos(a))
            t.has_geometry[n] = 1
        t.valid[n] = 1
        n += 1
    return t
