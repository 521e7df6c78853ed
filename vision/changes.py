"""Which parts of a frame changed since the cards were last read there (pure).

Frames are compared at an eighth of their size in grey (a *glance*: 64 pixels averaged into one,
which averages the camera's noise away). A glance pixel that differs from the settled glance by
more than :data:`STILL` grey levels changed; changed pixels close to each other are one region,
grown by a margin (a card's index may lie just outside what changed: a card slid in from under
another). The settled glance is what the reads reflect: a region read is settled; a region not
read (a hand over it) stays changed until it is.
"""

from __future__ import annotations

import cv2
import numpy as np

GLANCE = 8  # frame pixels per glance pixel
STILL = 10  # grey levels: the largest change of a glance pixel that is still camera noise


def glance(frame: np.ndarray) -> np.ndarray:
    """The frame at 1/8 scale in grey, by three halvings (``INTER_AREA`` by exactly two is fast)."""
    small = frame
    for _ in range(3):
        small = cv2.resize(small, (small.shape[1] // 2, small.shape[0] // 2), interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small


def unchanged(now: np.ndarray, before: np.ndarray | None) -> bool:
    return before is not None and before.shape == now.shape and int(cv2.absdiff(now, before).max()) <= STILL


def changed_regions(
    now: np.ndarray, settled: np.ndarray | None, margin_px: float, frame_shape: tuple[int, ...]
) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1, frame pixels) around what changed, each grown by ``margin_px``;
    the whole frame when there is nothing settled to compare with."""
    h, w = frame_shape[:2]
    if settled is None or settled.shape != now.shape:
        return [(0, 0, w, h)]
    moved = (cv2.absdiff(now, settled) > STILL).astype(np.uint8)
    if not moved.any():
        return []
    # A card's change may come in pieces (its face's white is the pale table's grey): a glance
    # pixel's gap is closed before the pieces are counted.
    moved = cv2.morphologyEx(moved, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    _n, _, stats, _ = cv2.connectedComponentsWithStats(moved)
    m = round(margin_px)
    boxes = []
    for x, y, bw, bh, _area in stats[1:]:
        x0, y0, x1, y1 = x * GLANCE, y * GLANCE, (x + bw) * GLANCE, (y + bh) * GLANCE
        boxes.append((max(0, x0 - m), max(0, y0 - m), min(w, x1 + m), min(h, y1 + m)))
    return merge_where_cheaper(boxes)


def merge_where_cheaper(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Boxes joined where one box around two holds no more pixels than the two: the detector's
    work grows with the pixels it reads, and cards put down around the mat would otherwise be
    read as one box over the whole mat. Boxes that overlap and are not joined are both read (an
    index in both is read twice; the reader keeps the read deeper inside its box)."""
    boxes = list(boxes)
    merged = True
    while merged:
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                union = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                if _area(union) <= _area(a) + _area(b):
                    boxes[i] = union
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return boxes


def _area(box: tuple[int, int, int, int]) -> int:
    return max(0, box[2] - box[0]) * max(0, box[3] - box[1])


def settle(settled: np.ndarray | None, now: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """The settled glance with a region just read taken from the frame's glance."""
    if settled is None or settled.shape != now.shape:
        settled = now.copy()
    x0, y0, x1, y1 = (v // GLANCE for v in box)
    settled[y0 : y1 + 1, x0 : x1 + 1] = now[y0 : y1 + 1, x0 : x1 + 1]
    return settled
