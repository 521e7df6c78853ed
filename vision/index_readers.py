"""The readers: a second and a third look at every index the detector found.

The detector sees an index at a quarter of its pixels. Each peak it found is cut out upright
(:func:`vision.index_crops.upright_crop`) and looked at again by small classifiers of crops:
the turner says which way is up and how far the crop is still turned, the reader reads its rank
and suit and says whether an index lies there at all, and the corner reader, from a wider
window, whether it lies in a card's corner. Their opinions multiply the detector's; a read of a
red card whose crop shows no red ink keeps only its chance of being no red card (:mod:`vision.ink`).
See docs/vision.md, *The readers: a second and a third look*.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from vision.index_crops import INDEX_ONLY, crops_blob, upright_crop
from vision.index_reads import (
    FAINT,
    JOKER_SUITS,
    RANKS,
    RED_SUITS,
    SUITS,
    SURE,
    IndexRead,
    Look,
    Peak,
    as_read,
    normalised,
    softmax,
)
from vision.ink import has_colour, shows_red
from vision.networks import CORNER, TURNER, ModelError, Runtime, network, runs_file, window_of
from vision.scales import TAUGHT_HEIGHTS

INK_ASKED_ABOVE = 0.02  # a read less likely than this to be a red card keeps its heat whatever its ink
# The least share of its heat the check leaves a read: never quite none, so that the heat before
# the check stays known (IndexRead.index_heat) when the read was all but certain of a red card.
LEAST_INK = 1e-6
# Reads this sure already (the detector's heat times the reader's) are not asked: asking them too
# gave the same figures on every set models are chosen on, at nearly four times the corner
# reader's cost (docs/vision.md, *The corner reader*).
CORNER_ASKED_BELOW = 0.8
HEIGHT_AGREEMENT = 1.25  # how far (a factor either way) one index's height may be from the others'
TWO_SURE_AGREEMENT = 1.05  # ... and, of two sure reads, how far short of the taller the shorter may be
TWO_SURE_APART = 1.6  # two sure reads further apart than this in height are not one size
READER_OUTPUTS = len(RANKS) + 1 + len(SUITS)  # rank (and no index), suit; a turner adds the crop's turn
RECUT_DEG = 10.0  # a crop the turner finds turned further than this from upright is cut again, set upright
# The heights (factors of the height its view agrees on, which is always one of them) each index's
# crop is cut at: the reader reads the one it is surest an index lies in. One: the agreed height alone.
ONE_HEIGHT = (1.0,)


class IndexReaders:
    """The reader in ``reader`` and, beside it (or as given), the turner and the corner reader."""

    def __init__(
        self,
        reader: Path,
        backend: str,
        turner: Path | None = None,
        turn: bool = True,
        corner: Path | None = None,
        read_corner: bool = True,
        least: float = FAINT,
        fuse: bool = True,
        check_ink: bool = True,
        fuse_grey_suit: bool = False,
        crop_heights: tuple[float, ...] = ONE_HEIGHT,
    ) -> None:
        reader = Path(reader)
        self.reader = network(str(reader), backend)
        self.crop = window_of(reader)  # the window the reader was trained on
        # The turner (its own file, else turner.onnx beside the reader, or its 8-bit file): it
        # sets each crop upright before the reader reads it. Without one, a reader with turn
        # outputs is its own turner.
        turner = turner or runs_file(reader.with_name(TURNER), backend)
        self.turn = turn  # False: the detector's up direction as it is (to measure what the turner gives)
        usable_turner = turn and Path(turner).is_file()
        self.turner = network(str(turner), backend) if usable_turner else None
        if usable_turner and window_of(Path(turner)) != self.crop:
            raise ModelError(f"the turner {turner} cuts another window than the reader {reader}")
        # The corner reader (its own file, else corner.onnx beside the reader, or its 8-bit
        # file): a third look, at the card around each index the reader found
        # (read_corner=False: without it).
        corner = corner or runs_file(reader.with_name(CORNER), backend)
        usable_corner = read_corner and Path(corner).is_file()
        self.corner = network(str(corner), backend) if usable_corner else None
        self.corner_crop = window_of(Path(corner)) if usable_corner else None
        # The least heat a read needs to count: a peak fainter is neither read nor kept
        # (IndexDetector.detect_each), and the corner reader and the ink are asked only of reads
        # that may count.
        self.least = least
        # The reader's rank and suit multiplied by the detector's own (the default), or the reader's alone.
        self.fuse = fuse
        # A read of a red card whose crop, in a frame with colour, holds no red ink is no index
        # (vision.ink; check_ink=False: not checked, for a deck that prints diamonds or hearts otherwise).
        self.check_ink = check_ink
        # In a frame without colour a read's suit is the reader's alone, not the reader's times the
        # detector's (fuse_grey_suit=True: times the detector's there too, to compare). The detector
        # sees an index at a quarter of the reader's detail and, taught mostly on colour, tells a
        # small diamond from a heart or a spade by its ink: without colour it is often sure and
        # wrong (a plain grey diamond read a heart at 0.93, where the reader said a diamond at
        # 0.89), and the product named the wrong suit (docs/vision.md, "A frame without colour").
        self.fuse_grey_suit = fuse_grey_suit
        # The detector's height for an index is off, by a design's own bias and by chance, and a
        # small club read from a crop cut too tall is less surely a club. With several
        # ``crop_heights`` the reader picks the height as the turner picks the way up: of the
        # crops cut at each factor of the agreed height, the one it is surest holds an index. The
        # table cuts at one (docs/vision.md, *Tried, not kept*: more cards named wrongly).
        self.crop_heights = crop_heights

    def read(
        self, looks: list[Look], works: list[np.ndarray], peaks: list[list[Peak]], typical: list[float | None]
    ) -> list[list[IndexRead]]:
        """Each index read again from an upright crop; the reader's and the detector's opinions
        multiplied. The turner looks first at two crops, as the detector saw the index and turned
        half a turn: it says which is upright and how far that one is still turned (the
        detector's up direction is often 20-50 degrees off on an index of 20-30 pixels, and the
        reader learned to read crops within a few degrees of upright). The reader then reads that
        crop alone, cut upright. Without a turner, the reader reads both crops and keeps the one
        less sure it is no index (a reader with turn outputs first sets upright a crop turned
        further than :data:`RECUT_DEG`). ``peaks[i]`` lie in ``works[i]`` (``looks[i]``'s image
        as the detector ran on it), and their crops are cut at heights they agree on
        (:func:`agreed_heights`, around ``typical[i]`` when the indices' size is known), from
        whichever of the two images shows the index in more detail (:func:`crop_source`)."""
        reads = [r for ps in peaks for r in ps]
        if not reads:
            return [[] for _ in peaks]
        where, cut, coloured = [], [], []
        for look, work, ps, t in zip(looks, works, peaks, typical, strict=True):
            colour = has_colour(look.image)
            for r in agreed_heights(ps, t):
                image, r = crop_source(look, work, r)
                where.append(image)
                cut.append(r)
                coloured.append(colour)
        ups = [r.up_deg for r in reads]
        first = self._look(self.turner or self.reader, where, cut, ups)
        if self.turner is not None:
            ups = [_upright_turn(first, k, up) for k, up in enumerate(ups)]
            logits = self._look(self.reader, where, cut, ups, both=False)
            logits, cut = self._at_surest_height(logits, where, cut, ups)
            return _grouped(self._all_fused(reads, logits, where, cut, ups, coloured), peaks)
        if self.turn and first.shape[1] > READER_OUTPUTS:
            ups = [_set_upright(first, k, up) for k, up in enumerate(ups)]
        logits = first  # the reader is its own turner: it reads again only the crops it turned
        again = [k for k, r in enumerate(reads) if ups[k] != r.up_deg]
        if again:
            relook = self._look(
                self.reader, [where[k] for k in again], [cut[k] for k in again], [ups[k] for k in again]
            )
            for i, k in enumerate(again):
                logits[2 * k : 2 * k + 2] = relook[2 * i : 2 * i + 2]
        turned = [_upright_of(logits, k) for k in range(len(reads))]
        rows = logits[[2 * k + t for k, t in enumerate(turned)]]
        ups = [(up + 180 * t) % 360 for up, t in zip(ups, turned, strict=True)]
        rows, cut = self._at_surest_height(rows, where, cut, ups)
        return _grouped(self._all_fused(reads, rows, where, cut, ups, coloured), peaks)

    def _at_surest_height(
        self, rows: np.ndarray, images: list[np.ndarray], cut: list[Peak], ups: list[float]
    ) -> tuple[np.ndarray, list[Peak]]:
        """Each read's logits (``rows``, its crop cut at its agreed height) or, where the reader is
        surer an index lies in one cut at another of :attr:`crop_heights`, that crop's; and each
        read's peak with the height its crop was cut at."""
        others = [f for f in self.crop_heights if f != 1.0]
        if not others or not cut:
            return rows, cut
        rows, chosen = rows.copy(), list(cut)
        best = [presence_of(row) for row in rows]
        for f in others:
            resized = [replace(r, height=r.height * f) for r in cut]
            seen = self._look(self.reader, images, resized, ups, both=False)
            for k, row in enumerate(seen):
                if presence_of(row) > best[k]:
                    rows[k], best[k], chosen[k] = row, presence_of(row), resized[k]
        return rows, chosen

    def _all_fused(
        self,
        reads: list[Peak],
        rows: np.ndarray,
        images: list[np.ndarray],
        cut: list[Peak],
        ups: list[float],
        coloured: list[bool],
    ) -> list[IndexRead]:
        """Each peak as the reader read it (``rows``, its upright crop's logits), the corner
        reader asked and its red ink looked at where they matter (:meth:`fused`)."""
        corners = self._in_corner(rows, images, cut, ups)
        inks = _ink_checks(images, cut, ups, [c and self.check_ink for c in coloured])
        return [self.fused(r, rows[k], ups[k], corners[k], inks[k], coloured[k]) for k, r in enumerate(reads)]

    def _in_corner(
        self, rows: np.ndarray, images: list[np.ndarray], reads: list[Peak], ups: list[float]
    ) -> list[float]:
        """The corner reader's chance that each read's crop (cut upright at ``ups``) holds an index,
        in the wider window. 1 for every read without a corner reader, for the reads already
        fainter than ``least`` with the reader's chance (the corner only lowers a read's heat, so
        it is not asked about reads that cannot count), and for those at least
        :data:`CORNER_ASKED_BELOW`."""
        out = [1.0] * len(reads)
        if self.corner is None or self.corner_crop is None:
            return out
        asked = [k for k, r in enumerate(reads) if self.least <= r.heat * presence_of(rows[k]) < CORNER_ASKED_BELOW]
        if not asked:
            return out
        crops = [upright_crop(images[k], reads[k].centre, reads[k].height, ups[k], self.corner_crop) for k in asked]
        seen = np.array(self.corner.run(crops_blob(crops)), dtype=np.float32)
        for i, k in enumerate(asked):
            out[k] = presence_of(seen[i])
        return out

    def fused(
        self,
        r: Peak,
        row: np.ndarray,
        up_deg: float,
        in_corner: float = 1.0,
        shows_red_ink: Callable[[], bool] | None = None,
        colour: bool = True,
    ) -> IndexRead:
        """Peak ``r`` as the reader read its upright crop (``row``: the reader's logits for it),
        with the detector's opinion, and the corner reader's chance that an index lies there.
        Where its crop shows no red ink (``shows_red_ink``: None in a frame without colour), its
        heat keeps only the chance that it is no red card (``ink``): the read is no card it could
        name wrongly, while its index still counts as one (:attr:`IndexRead.index_heat`). The ink
        is looked at only where that could matter: a read that may count and may be red. In a
        frame without ``colour`` the suit is the reader's alone (see ``__init__``) and the two
        jokers are read alike (:func:`jokers_alike`)."""
        ranks = softmax(row[: len(RANKS) + 1])
        p_index = (1.0 - float(ranks[-1])) * in_corner  # the ranks' softmax is needed below: not presence_of
        p_rank = normalised(ranks[:-1] * (r.p_rank if self.fuse else 1.0))
        suits = softmax(row[len(RANKS) + 1 : READER_OUTPUTS])
        weigh_detector_suit = self.fuse and (colour or self.fuse_grey_suit)
        p_suit = normalised(suits * (r.p_suit if weigh_detector_suit else 1.0))
        if not colour:
            p_suit = jokers_alike(p_suit)
        p_red = float(p_suit[list(RED_SUITS)].sum())
        ink = 1.0
        may_count = r.heat * p_index >= self.least
        if shows_red_ink is not None and p_red >= INK_ASKED_ABOVE and may_count and not shows_red_ink():
            ink = max(1.0 - p_red, LEAST_INK)
        return as_read(r.centre, r.height, r.width, up_deg, r.heat * p_index * ink, p_rank, p_suit, p_index, ink)

    def _look(
        self, net: Runtime, images: list[np.ndarray], reads: list[Peak], ups: list[float], both: bool = True
    ) -> np.ndarray:
        """A reader's logits for each read's crop (from its image) at ``up`` and, with ``both``,
        turned half a turn (2 rows a read; else 1)."""
        crops = []
        for image, r, up in zip(images, reads, ups, strict=True):
            crops.append(upright_crop(image, r.centre, r.height, up, self.crop))
            if both:
                crops.append(upright_crop(image, r.centre, r.height, up + 180, self.crop))
        return np.array(net.run(crops_blob(crops)), dtype=np.float32)


def crop_source(look: Look, work: np.ndarray, r: Peak) -> tuple[np.ndarray, Peak]:
    """The image the reader's crop of ``r`` (found in ``work``) is cut from, and ``r`` in its
    pixels: the look's own image where the detector ran on it shrunk, unless the index is taller
    there than the reader was taught (:data:`vision.scales.TAUGHT_HEIGHTS`; a crop's bilinear cut
    of a much taller index skips pixels), else ``work``. Shrinking for the detector's sake (it
    finds indices as well at :data:`vision.scales.BEST_HEIGHT` and costs the square of the scale)
    then costs the reader no detail: a club and a spade differ by a few pixels."""
    factor = 1 / look.scale
    if work is look.image or factor <= 1 or r.height * factor > TAUGHT_HEIGHTS[1]:
        return work, r  # (a scale within a thousandth of 1 leaves the image as it was: vision.indices)
    centre = (r.centre[0] * factor, r.centre[1] * factor)
    return look.image, replace(r, centre=centre, height=r.height * factor, width=r.width * factor)


def agreed_heights(reads: list[Peak], typical: float | None = None) -> list[Peak]:
    """The reads with each height brought within :data:`HEIGHT_AGREEMENT` of ``typical``, or of
    the median sure read's when three or more reads are sure: the cards in one view are of one
    deck, so their indices are of one size, and the median of several estimates is far steadier
    than any one (on a design whose index is a third of its card, single heights were 0.6-1.5
    times the true one; a crop cut from too short a height cuts off the suit: a club read as a
    spade).

    Two sure reads are too few for a median. Unless one is more than :data:`TWO_SURE_APART` times
    the other (then one is not an index of this deck's size: a court picture's large glyph), every
    read shorter than the taller by more than :data:`TWO_SURE_AGREEMENT` is brought up to that: of
    two estimates of one size, trust the taller. A crop cut short loses the suit's lower half (a
    heart read as a diamond), while one cut a little tall keeps the whole index, as the reader was
    taught (its synthetic crops 0.85-1.18 times the index's height)."""
    sure = [r.height for r in reads if r.heat >= SURE]
    if typical is None and len(sure) == 2 and max(sure) <= TWO_SURE_APART * min(sure):
        low = max(sure) / TWO_SURE_AGREEMENT
        return [replace(r, height=low) if r.height < low else r for r in reads]
    if typical is None and len(sure) < 3:
        return reads
    median = typical if typical is not None else float(np.median(sure))
    low, high = median / HEIGHT_AGREEMENT, median * HEIGHT_AGREEMENT
    return [replace(r, height=min(max(r.height, low), high)) for r in reads]


def jokers_alike(p_suit: np.ndarray) -> np.ndarray:
    """A read's suits with the chance of a joker shared evenly between the two: most designs
    print their big and little jokers' indices alike but for the colour (one red, one black), so
    in a frame without colour a reader's preference between them is a guess, and a guess named is
    a false accusation. Which joker it is, only the referee's prior can tell (the one that can
    still be there; :func:`vision.cards.join`)."""
    out = p_suit.copy()
    jokers = list(JOKER_SUITS)
    out[jokers] = out[jokers].mean()
    return out


def presence_of(row: np.ndarray) -> float:
    """A reader's chance, from its logits for one crop, that the crop holds an index."""
    return 1.0 - float(softmax(row[: len(RANKS) + 1])[-1])


def _set_upright(logits: np.ndarray, k: int, up: float) -> float:
    """Read ``k``'s up direction set upright by a reader with turn outputs: its upright crop's
    turn taken off, when the turn is more than :data:`RECUT_DEG`; else the detector's as it was
    (the reader reads both crops again and picks)."""
    turned, turn = _turner_says(logits, k)
    return (up + 180 * turned - turn) % 360 if turn else up


def _upright_turn(logits: np.ndarray, k: int, up: float) -> float:
    """Read ``k``'s up direction as the turner sets it: its upright crop's, that crop's turn taken
    off when it is more than :data:`RECUT_DEG` (the reader reads that crop alone)."""
    turned, turn = _turner_says(logits, k)
    return (up + 180 * turned - turn) % 360


def _turner_says(logits: np.ndarray, k: int) -> tuple[int, float]:
    """Which of read ``k``'s two crops is upright (1: the one turned half a turn), and how far
    it is turned from upright (degrees; 0 when within :data:`RECUT_DEG`)."""
    turned = _upright_of(logits, k)
    turn = _turn_of(logits[2 * k + turned])
    return turned, turn if abs(turn) > RECUT_DEG else 0.0


def _upright_of(logits: np.ndarray, k: int) -> int:
    """Which of read ``k``'s two crops is upright: the one less sure it is no index (1: turned)."""
    none = [float(softmax(logits[2 * k + i, : len(RANKS) + 1])[-1]) for i in (0, 1)]
    return int(none[1] < none[0])


def _turn_of(row: np.ndarray) -> float:
    """How far, in degrees, the reader says its crop is turned from upright (the direction the
    crop's angle is off by: subtracting it sets the crop upright)."""
    sin, cos = (float(v) for v in row[READER_OUTPUTS : READER_OUTPUTS + 2])
    return math.degrees(math.atan2(sin, cos))


def _grouped(reads: list[IndexRead], peaks: list[list[Peak]]) -> list[list[IndexRead]]:
    """``reads`` (all images' in a row) grouped back by the image their peaks lie in."""
    grouped, start = [], 0
    for ps in peaks:
        grouped.append(reads[start : start + len(ps)])
        start += len(ps)
    return grouped


def _ink_checks(
    images: list[np.ndarray], reads: list[Peak], ups: list[float], coloured: list[bool]
) -> list[Callable[[], bool] | None]:
    """For each read, whether its index crop (cut upright at ``ups`` from its image) shows red ink,
    to be asked only where it matters (most reads are faint peaks on pips, or black cards: a crop
    cut and measured for each would cost time for nothing); None where its frame has no colour to
    tell (``coloured``)."""

    def check(image: np.ndarray, r: Peak, up: float) -> Callable[[], bool]:
        return lambda: shows_red(upright_crop(image, r.centre, r.height, up, INDEX_ONLY))

    return [
        check(image, r, up) if colour else None
        for image, r, up, colour in zip(images, reads, ups, coloured, strict=True)
    ]
