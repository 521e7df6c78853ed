"""One image in, the cards in it out: the index detector, then the indices joined into cards.

For a photograph (``croupier vision scan``) the cards' size is unknown, so the detector looks at
a few scales (:func:`vision.scales.pyramid_scales`); on the mat the card's size in pixels is
known and one scale does. ``allowed``, the cards that may be there, is the referee's prior.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from engine.cards import Card
from vision.cards import Recognition, join
from vision.index_reads import IndexRead, in_view
from vision.indices import IndexDetector
from vision.scales import LOOKS, pyramid_scales, scale_for

# An index's height over its card's, until the table has learned its deck's: the middle, on a log
# scale, of the designs measured (0.19-0.38; docs/vision.md). The smallest of them is what a
# camera must make readable.
INDEX_SHARE = 0.27
SMALL_INDEX_SHARE = 0.19


@cache
def default_detector() -> IndexDetector:
    """The shipped model, loaded once per process."""
    return IndexDetector()


def scan(
    image: np.ndarray,
    card_size_px: tuple[float, float] | None = None,
    detector: IndexDetector | None = None,
    allowed: set[Card] | None = None,
    any_pair: bool = False,
    looks: tuple[float, ...] | None = LOOKS,
) -> list[Recognition]:
    """Every card whose corner index shows in a BGR image; cards not sure enough to name are
    reported with ``card`` None. An index cut off by the image's edge is none (:func:`in_view`).
    ``any_pair`` pairs two indices by where they lie alone, even when they read as different
    cards (an unknown deck being enrolled). ``looks``: see
    :meth:`IndexDetector.detect_pyramid`."""
    detector = detector or default_detector()
    if card_size_px is not None:
        reads = in_view(detector.detect(image, scale_for(INDEX_SHARE * card_size_px[1])), image.shape)
    else:
        reads = photo_reads(detector, image, looks)
    return join(reads, card_size_px, allowed, any_pair)


def photo_reads(detector: IndexDetector, image: np.ndarray, looks: tuple[float, ...] | None = LOOKS) -> list[IndexRead]:
    """The index reads of a photo whose cards' size is unknown: the detector over a few scales,
    an index cut off by the photo's edge dropped."""
    return in_view(detector.detect_pyramid(image, pyramid_scales(image.shape), looks), image.shape)
