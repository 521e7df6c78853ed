"""An index cut out of an image upright, at the size the index reader reads (pure).

The detector gives each index's centre, height and up direction; the crop is the window of
:data:`CROP_SPAN` index heights around the centre, turned so the index stands upright, resampled
to :data:`CROP_W` x :data:`CROP_H` pixels. The same function cuts the training crops and the
table's, so the reader sees at the table what it learned from.
"""

from __future__ import annotations

import cv2
import numpy as np

CROP_W, CROP_H = 32, 40
CROP_SPAN = (1.0, 1.25)  # the window's width and height, in index heights


def upright_crop(image: np.ndarray, centre: tuple[float, float], height: float, up_deg: float) -> np.ndarray:
    """The index at ``centre``, ``height`` pixels tall, its top towards ``up_deg`` (0 = up the
    image, clockwise), upright in a ``CROP_W`` x ``CROP_H`` BGR crop."""
    scale = CROP_H / (CROP_SPAN[1] * max(height, 1.0))
    m = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), up_deg, scale)
    m[:, 2] += np.array([CROP_W / 2, CROP_H / 2]) - np.array(centre)
    flags = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, m, (CROP_W, CROP_H), flags=flags, borderMode=cv2.BORDER_REPLICATE)


def crops_blob(crops: list[np.ndarray]) -> np.ndarray:
    """Crops as the reader's input: (N, 3, CROP_H, CROP_W) float32 in [0, 1]."""
    return np.stack([c.transpose(2, 0, 1) for c in crops]).astype(np.float32) / 255
