"""Scale: the sizes the detector looks at an image at, and one read per index of all it found.

The network is taught indices 11-56 pixels tall (:data:`TAUGHT_HEIGHTS`) and reads them best at
:data:`BEST_HEIGHT`. On the mat the card's size in pixels is known, and :func:`scale_for` brings
its indices there; a photograph's is not, and :func:`pyramid_scales` chooses scales an octave
apart that cover every size a card in it can have. An index seen at two scales, or as two peaks
of one heat map, is one index: :func:`suppress` keeps the surest read of each, and
:func:`voted` lets the reads at every scale outvote one scale's misread (docs/vision.md, *Scale*).
"""

from __future__ import annotations

import math

from engine.cards import Card
from vision.index_reads import SURE, IndexRead

TAUGHT_HEIGHTS = (11.0, 56.0)  # index heights, in the network's input pixels, it was taught
# The height to scale an index to when its size is known (the mat). At 24 px, the reader's crops
# cut from the region as the camera saw it (vision.index_readers.crop_source), more cards were
# read right than at 30 px, on the training photos, rendered scenes and the tricks, from two
# thirds of the detector's pixels (docs/vision.md, "Scale"; the figures are in commit 8ba4ddb's
# message).
BEST_HEIGHT = 24.0
# After its pyramid, a photo of unknown scale is looked at with its indices these times
# BEST_HEIGHT (19, 24, 30 and 37.5 px): the detector's heat on one real index varies from scale to
# scale by more than its threshold's margin, and looks a quarter apart around the best height
# give an index found faint at one more chances. Photos only: the table's camera reads each
# region at one scale, in time.
LOOKS = (0.8, 1.0, 1.25, 1.5625)
ONE_INDEX = 0.5  # reads closer than this share of an index's height are one index (suppress)
# ... and so are two reads a quarter turn from each other this close: their boxes overlap, which two
# indices in view cannot (a fan's are turned alike); one is an index read sideways, its centre off
# the index's own (a JS read as a TC, a quarter turn off, 0.59 of the smaller read's height away).
ONE_INDEX_ACROSS = 0.75


def pyramid_scales(shape: tuple[int, ...], smallest_px: float = 12.0) -> list[float]:
    """Scales at which to look for indices of any size in an image of unknown scale: from the one
    that shows a ``smallest_px`` index at the taught size's low end, down by halves until an
    index a third of the image tall would fit the taught range. No further: at a scale that
    shrinks whole cards and the mat's markers to an index's size, they read as indices (a
    marker, a hundred-odd pixels across in a 1080p frame, as a QH)."""
    low, high = TAUGHT_HEIGHTS
    scale = min(2.0, (low + 3) / smallest_px)
    scales = []
    tallest = min(shape[:2]) / 3
    while True:
        scales.append(scale)
        if tallest * scale <= high or min(shape[:2]) * scale < 64:
            break
        scale /= 2
    return scales


def scale_for(index_height_px: float) -> float:
    """The scale that brings an index of this height (image pixels) to the network's best."""
    return BEST_HEIGHT / max(1.0, index_height_px)


def fit(work_height: float) -> float:
    """How well an index this tall (network pixels) suits the network, 1 at its best height: an
    index read at two scales is trusted where it was seen nearer that size (its up direction and
    glyphs are read best there)."""
    return math.exp(-abs(math.log(max(1.0, work_height) / BEST_HEIGHT)))


def suppress(reads: list[IndexRead], weights: list[float] | None = None, apart: float = ONE_INDEX) -> list[IndexRead]:
    """One read per index: of reads closer than ``apart`` of the smaller one's height, the surer
    (or the one of greater ``weight``, when given), a read of :data:`SURE` heat before any other."""
    order = weights if weights is not None else [r.score for r in reads]
    kept: list[IndexRead] = []
    # A read sure an index lies there goes before one that is not, whatever their weights.
    for _, r in sorted(zip(order, reads, strict=True), key=lambda wr: (wr[1].heat < SURE, -wr[0])):
        if not any(_one_index(r, k, apart) for k in kept):
            kept.append(r)
    return kept


def voted_reads(found: list[IndexRead], weights: list[float]) -> list[IndexRead]:
    """One read per index of ``found`` (reads at several scales, each weighed by ``weights``):
    the surest (:func:`suppress`), unless the others of its index name another card
    (:func:`voted`)."""
    kept = suppress(found, weights)
    return [voted(k, seen) for k, seen in zip(kept, _seen_as(kept, found, weights), strict=True)]


def _seen_as(
    kept: list[IndexRead], found: list[IndexRead], weights: list[float]
) -> list[list[tuple[IndexRead, float]]]:
    """For each kept read, the reads of its index (itself among them) with their weights: every
    read goes to the nearest kept read it lies within :func:`suppress`'s reach of."""
    out: list[list[tuple[IndexRead, float]]] = [[] for _ in kept]
    for r, w in zip(found, weights, strict=True):
        near = [(math.dist(r.centre, k.centre), i) for i, k in enumerate(kept) if _one_index(r, k)]
        if near:
            out[min(near)[1]].append((r, w))
    return out


def voted(kept: IndexRead, seen: list[tuple[IndexRead, float]]) -> IndexRead:
    """The read of ``kept``'s index that names the card its reads at every scale name most,
    weighted: a scale at which the index is seen too tall for the network finds its rank alone as
    an index, and reads its crop, the suit cut off, surely and wrongly; the other scales outvote
    it, and their best read of the card they name stands instead."""
    votes: dict[Card, float] = {}
    for r, w in seen:
        for card, p in r.candidates:
            votes[card] = votes.get(card, 0.0) + p * w
    if not votes:
        return kept
    winner = max(votes, key=lambda c: votes[c])
    if winner == kept.card:
        return kept
    naming = [(w, r) for r, w in seen if r.card == winner]
    return max(naming, key=lambda wr: wr[0])[1] if naming else kept


def _one_index(a: IndexRead, b: IndexRead, apart: float = ONE_INDEX) -> bool:
    """Whether two reads lie closer than ``apart`` of the height they are measured by (or than
    :data:`ONE_INDEX_ACROSS`, when they are turned a quarter turn from each other): one index."""
    reach = max(apart, ONE_INDEX_ACROSS) if _across(a, b) else apart
    return math.dist(a.centre, b.centre) <= reach * _overlap_height(a, b)


def _across(a: IndexRead, b: IndexRead) -> bool:
    """Whether two reads are turned nearer a quarter turn from each other than alike (or half a
    turn apart: the detector's up direction may be half a turn off)."""
    turn = abs(a.up_deg - b.up_deg) % 180
    return 45 < turn < 135


def _overlap_height(a: IndexRead, b: IndexRead) -> float:
    """The height two reads are measured apart by: the smaller's, unless one is half as tall again
    as the other; then the taller's, as it covers the smaller (one index, its size misread at one
    scale: two indices side by side in a fan are of a size)."""
    low, high = sorted((a.height, b.height))
    return high if high > 1.5 * low else low
