"""Whether an index is printed in red ink: a check of the readers' red suits (pure).

The readers were taught on grey scenes as well as colour ones (a fifth of the real photographs
they learned from are grey), so they read a suit by its shape; a small black spade or club washed
out by a lamp's glare is a grey blob that they can take for a diamond. In a frame with colour the
index's ink says which it is. Its colour is measured against the card's paper (the crop's
brightest quarter), so a warm lamp or a camera's white balance does not make black ink red: a
pixel is red ink when it takes from the paper's light more blue and green than red. A diamond or a
heart shows many such pixels, even faint and small; black ink, grey or washed out, none.

The check only ever takes a read away, never names another card: an index read as a red card with
no red ink anywhere in its crop is no index. It assumes that diamonds and hearts are printed in
red; ``IndexDetector(check_ink=False)`` turns it off for a deck that prints them otherwise. A grey
frame (a grey photo, a camera without colour) says nothing about ink, and is not checked.
"""

from __future__ import annotations

import cv2
import numpy as np

# A pixel is red ink when it takes at least this share more of the paper's blue and green light
# than of its red...
RED_INK = 0.08
# ... at least this share of one of them (the paper's own grain and JPEG noise take less) ...
INKED = 0.15
# ... and at least half as much green as blue: gold and orange, as of a court picture's frame
# beside an index, take blue and little green.
GREEN_FOR_BLUE = 0.5
# An index crop with fewer red-ink pixels than this share of it shows no red. On the training
# photos and the rendered selection scenes (`python -m benchmarks.red_ink`), the red cards' reads
# showed at least 1.6 %; the black indices read as red, at most 0.2 %.
NO_RED = 0.006
# A frame whose blue and red channels differ by less than this on average (0-255) has no colour:
# the training photos' grey ones, made grey and saved as JPEG, differ by at most 1.5; their colour
# ones by at least 2.1 (`python -m benchmarks.red_ink`).
COLOURED = 2.0
PAPER = 75  # the percentile of a crop's brightness above which its pixels are taken for the paper


def colour_spread(image: np.ndarray) -> float:
    """How far apart a BGR image's blue and red channels lie on average (every eighth pixel each
    way is enough to tell): 0 for a grey image."""
    sample = image[::8, ::8]
    return float(np.abs(sample[..., 0].astype(np.int16) - sample[..., 2]).mean())


def has_colour(image: np.ndarray) -> bool:
    """Whether a BGR image shows colour at all."""
    return colour_spread(image) >= COLOURED


def without_colour(image: np.ndarray) -> np.ndarray:
    """A BGR image as a camera without colour gives it (still three channels)."""
    return cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


def red_ink_share(crop: np.ndarray) -> float:
    """The share of a BGR index crop's pixels that are red ink, measured against its paper."""
    pixels = crop.astype(np.float32) + 1.0
    blue, green, red = cv2.split(pixels)  # planes, not a pixel axis: reductions across it are slow
    brightness = blue + green + red
    k = int(brightness.size * PAPER / 100)
    paper = cv2.mean(pixels, (brightness >= np.partition(brightness.ravel(), k)[k]).astype(np.uint8))
    # The share of the paper's light each channel loses.
    lost_b, lost_g, lost_r = 1.0 - blue / paper[0], 1.0 - green / paper[1], 1.0 - red / paper[2]
    red_ink = (
        (np.minimum(lost_b, lost_g) - lost_r > RED_INK)
        & (np.maximum(np.maximum(lost_b, lost_g), lost_r) > INKED)
        & (lost_g >= GREEN_FOR_BLUE * lost_b)
    )
    return np.count_nonzero(red_ink) / brightness.size


def shows_red(crop: np.ndarray) -> bool:
    """Whether an index crop (of a frame with colour) holds red ink."""
    return red_ink_share(crop) >= NO_RED
