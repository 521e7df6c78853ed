"""The learned index detector: every printed corner index in an image, read.

The network (trained by :mod:`vision.training`, shipped as ``vision/models/indices.onnx``) maps
an image to maps at a quarter of its resolution: where index centres lie (a heat map), and at
each centre the rank, the suit, the index's size and which way is up. It runs through
onnxruntime (twice as fast as OpenCV's DNN module here, and built for 64-bit Raspberry Pi OS) in
8-bit integers (``indices.int8.onnx``, made from it by :mod:`vision.training.quantize`, as the
readers' ``.int8.onnx`` files are from theirs), or in floats through OpenCV's DNN module where
onnxruntime is not installed: either way the table needs no learning framework. This module
turns the maps into :class:`IndexRead` s: peaks of the heat map, each with its most likely card
and the probabilities the referee's prior may weigh.

The network is taught indices 11-56 pixels tall. :meth:`IndexDetector.detect` takes the scale to
run at (the mat's scale gives it); :func:`pyramid_scales` chooses scales for a photograph whose
card size is unknown, and :meth:`IndexDetector.detect_pyramid` merges what they find.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engine.cards import Card
from vision.index_crops import INDEX_ONLY, CropSpec, CropSpecError, crops_blob, spec_of, upright_crop
from vision.ink import has_colour, shows_red

log = logging.getLogger(__name__)

STRIDE = 4
RANKS = "23456789TJQKAX"  # the network's rank classes in order; X: a joker (training imports these)
SUITS = ("C", "D", "H", "S", "BJ", "LJ")  # a joker's "suit" is which joker it is
RED_SUITS = (1, 2)  # diamonds and hearts, in SUITS
JOKER_SUITS = (4, 5)  # the big and the little joker, in SUITS
INK_ASKED_ABOVE = 0.02  # a read less likely than this to be a red card keeps its heat whatever its ink
# The least share of its heat the check leaves a read: never quite none, so that the heat before
# the check stays known (IndexRead.index_heat) when the read was all but certain of a red card.
LEAST_INK = 1e-6
TAUGHT_HEIGHTS = (11.0, 56.0)  # index heights, in the network's input pixels, it was taught
# The height to scale an index to when its size is known (the mat). At 24 px, the reader's crops
# cut from the region as the camera saw it (_crop_source), more cards were read right than at 30
# px, on the training photos, rendered scenes and the tricks, from two thirds of the detector's
# pixels (docs/vision.md, "Scale"; the figures are in commit 8ba4ddb's message).
BEST_HEIGHT = 24.0
# After its pyramid, a photo of unknown scale is looked at with its indices these times
# BEST_HEIGHT (19, 24, 30 and 37.5 px): the detector's heat on one real index varies from scale to
# scale by more than its threshold's margin, and looks a quarter apart around the best height
# give an index found faint at one more chances. Photos only: the table's camera reads each
# region at one scale, in time.
LOOKS = (0.8, 1.0, 1.25, 1.5625)
SURE = 0.5  # a read this sure that an index lies there is an index (the cards' PRESENT)
FAINT = 0.35  # ... and one this sure may be a corner of a card whose other corner is read too (vision.cards)
PEAK = 0.25  # heat-map peaks below this are no index
ONE_INDEX = 0.5  # reads closer than this share of an index's height are one index (suppress)
# ... and so are two reads a quarter turn from each other this close: their boxes overlap, which two
# indices in view cannot (a fan's are turned alike); one is an index read sideways, its centre off
# the index's own (a JS read as a TC, a quarter turn off, 0.59 of the smaller read's height away).
ONE_INDEX_ACROSS = 0.75
# The share of an index's box that must lie in the image for it to be read: the network was taught
# an index as one from this share in view (vision.training.synth); less, and a cut-off corner is
# read as a whole one (an 8 cut at its waist is a 0, a 6 or nothing).
IN_VIEW = 0.8
MODEL = "indices.onnx"  # the detector as training writes it, in 32-bit floats
# ... and in 8-bit integers (vision.training.quantize): what the table runs through onnxruntime,
# 1.7 times as fast on one core and reading as well (docs/vision.md, "The 8-bit networks"). The
# readers below have their 8-bit files too, named the same way (int8_name).
MODEL_INT8 = "indices.int8.onnx"
READER = "reader.onnx"  # the index reader: upright crops (vision.index_crops) -> rank, suit, or no index
TURNER = "turner.onnx"  # a reader that also says how far a crop is turned from upright
# A reader of a wider window (vision.index_crops.WITH_CORNER): the index with the card's edges
# around it, where an index printed in a card's corner lies and a pip, a court picture's glyph or
# a speck of the table does not. Its chance that an index lies there is a third factor of a
# read's heat, after the detector's and the reader's.
CORNER = "corner.onnx"
# Reads this sure already (the detector's heat times the reader's) are not asked: asking them too
# gave the same figures on every set models are chosen on, at nearly four times the corner
# reader's cost (docs/vision.md, *The corner reader*).
CORNER_ASKED_BELOW = 0.8


class ModelError(RuntimeError):
    """The detector's model file is missing or OpenCV cannot load it."""


@dataclass(frozen=True, slots=True)
class IndexRead:
    """One corner index found in an image (image pixels)."""

    centre: tuple[float, float]
    height: float  # along the index's up direction
    width: float
    up_deg: float  # which way the index's top points: 0 = up the image, clockwise
    card: Card | None  # the most likely card (None: the rank and suit disagree)
    score: float  # heat x p(rank) x p(suit): how sure the read is, 0-1
    heat: float  # how sure an index lies here at all
    # The likeliest cards with their probabilities (rank x suit), best first, for the prior.
    candidates: tuple[tuple[Card, float], ...] = ()
    # The reader's share of ``heat``: its chance that the upright crop holds an index (1 when no
    # reader looked). The detector's own heat is ``heat / (presence * ink)``.
    presence: float = 1.0
    # The share of ``heat`` the check of red ink left (vision.ink): the chance that the read is no
    # red card, where its crop shows no red ink in a frame with colour; else 1.
    ink: float = 1.0

    @property
    def index_heat(self) -> float:
        """How sure an index lies here, whatever card it is: ``heat`` before the check of red ink."""
        return self.heat / self.ink if self.ink > 0 else 0.0

    @property
    def up(self) -> tuple[float, float]:
        a = math.radians(self.up_deg)
        return (math.sin(a), -math.cos(a))

    def scaled(self, factor: float, offset: tuple[float, float] = (0.0, 0.0)) -> IndexRead:
        centre = (self.centre[0] * factor + offset[0], self.centre[1] * factor + offset[1])
        return replace(self, centre=centre, height=self.height * factor, width=self.width * factor)


def model_path(name: str = MODEL) -> Path:
    return Path(str(resources.files("vision") / "models" / name))


def int8_name(name: str) -> str:
    """A network's file in 8-bit integers: ``reader.onnx`` -> ``reader.int8.onnx``."""
    return name.removesuffix(".onnx") + ".int8.onnx"


def default_model(backend: str) -> Path:
    """The shipped detector a runtime runs (:func:`runs_file`)."""
    return runs_file(model_path(MODEL), backend)


def runs_file(floats: Path, backend: str) -> Path:
    """The file a runtime runs for the network whose file in floats is ``floats``: through
    onnxruntime its 8-bit file beside it, when there is one; through OpenCV's DNN module (or
    without an 8-bit file) the one in floats (opset 11, which every OpenCV since 4.x loads; the
    8-bit files need opset 13)."""
    int8 = floats.with_name(int8_name(floats.name))
    return int8 if backend == "onnxruntime" and int8.is_file() else floats


def with_shipped(
    model: Path | None = None,
    reader: Path | None = None,
    turner: Path | None = None,
    corner: Path | None = None,
    float_readers: bool = False,
    **options: Any,
) -> IndexDetector:
    """A detector for measuring other models by: the detector, the reader, the turner and the
    corner reader each the file given, else the shipped one (the file its runtime runs:
    :func:`runs_file`; ``float_readers``: the shipped readers' files in floats, to compare with
    their 8-bit ones). (:class:`IndexDetector` looks for the reader, the turner and the corner
    reader beside the files it is given, and a run folder holds one new model: a reader measured
    from its run folder was read without the others.) A reader of another window than the
    shipped turner's is measured as it would be shipped, as its own turner: the shipped turner
    cannot set its crops upright. ``read_corner=False`` in ``options`` measures them without the
    corner reader."""
    backend = options.get("backend") or default_backend()

    def shipped(name: str) -> Path:
        return model_path(name) if float_readers else runs_file(model_path(name), backend)

    reader = reader or shipped(READER)
    if turner is None and _window_of(Path(reader)) == _window_of(model_path(TURNER)):
        turner = shipped(TURNER)
    if corner is None and model_path(CORNER).is_file():
        corner = shipped(CORNER)
    return IndexDetector(model, reader=reader, turner=turner, corner=corner, **options)


class _Runtime:
    """The network behind one call: onnxruntime's session, or OpenCV's DNN net."""

    def __init__(self, path: str, backend: str) -> None:
        if not Path(path).is_file():
            raise ModelError(f"the card reader's model {path} is missing (reinstall croupier)")
        self.path = path
        self.backend = backend
        if backend == "onnxruntime":
            import onnxruntime

            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = 1  # the table's other work has the other cores
            options.inter_op_num_threads = 1
            try:
                self.session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
            except Exception as e:  # onnxruntime raises its own exception types
                raise ModelError(f"onnxruntime cannot load the card reader's model {path}: {e}") from e
        else:
            try:
                self.net = cv2.dnn.readNetFromONNX(path)
            except cv2.error as e:
                raise ModelError(f"OpenCV cannot load the card reader's model {path}: {e}") from e

    def run(self, blob: np.ndarray) -> np.ndarray:
        if self.backend == "onnxruntime":
            return self.session.run(None, {self.session.get_inputs()[0].name: blob})[0]
        self.net.setInput(blob)
        return self.net.forward()


def default_backend() -> str:
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return "opencv"
    return "onnxruntime"


@cache
def _net(path: str, backend: str) -> _Runtime:
    return _Runtime(path, backend)


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def _card(rank: int, suit: int) -> Card | None:
    if (RANKS[rank] == "X") != (suit >= 4):
        return None
    return Card.from_str(SUITS[suit] if suit >= 4 else RANKS[rank] + SUITS[suit])


def _candidates(p_rank: np.ndarray, p_suit: np.ndarray, keep: int = 4) -> tuple[tuple[Card, float], ...]:
    joint = p_rank[:, None] * p_suit[None, :]
    order = np.argsort(joint, axis=None)[::-1]
    out = []
    for flat in order:
        r, s = divmod(int(flat), len(SUITS))
        card = _card(r, s)
        if card is not None:
            out.append((card, float(joint[r, s])))
        if len(out) == keep:
            break
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _Peak:
    """A heat-map peak as the detector sees it (work pixels), before it is read."""

    centre: tuple[float, float]
    height: float
    width: float
    up_deg: float
    heat: float
    p_rank: np.ndarray
    p_suit: np.ndarray


class IndexDetector:
    """Runs the network on images and reads its maps."""

    def __init__(
        self,
        path: Path | None = None,
        peak: float = PEAK,
        backend: str | None = None,
        reader: Path | None = None,
        read_upright: bool = True,
        fuse: bool = True,
        turner: Path | None = None,
        turn: bool = True,
        least: float = FAINT,
        corner: Path | None = None,
        read_corner: bool = True,
        check_ink: bool = True,
        fuse_grey_suit: bool = False,
    ) -> None:
        backend = backend or default_backend()
        self.path = str(path or default_model(backend))
        self.net = _net(self.path, backend)
        self.peak = peak
        self.least = least  # with a reader: the least heat a peak needs to be read (see detect)
        # The reader's rank and suit multiplied by the detector's own (the default), or the reader's alone.
        self.fuse = fuse
        # The index reader (its own file, else the one beside the detector's: reader.onnx, or
        # through onnxruntime reader.int8.onnx when there is one): a second, upright look at
        # every index.
        reader = reader or runs_file(Path(self.path).with_name(READER), backend)
        usable = read_upright and reader is not None and Path(reader).is_file()
        self.reader = _net(str(reader), backend) if usable else None
        self.crop = _window_of(Path(reader)) if usable else None  # the window the reader was trained on
        # The turner (its own file, else turner.onnx beside the reader, or its 8-bit file): it
        # sets each crop upright before the reader reads it. Without one, a reader with turn
        # outputs is its own turner.
        turner = turner or (runs_file(Path(reader).with_name(TURNER), backend) if usable else None)
        self.turn = turn  # False: the detector's up direction as it is (to measure what the turner gives)
        usable_turner = usable and turn and turner is not None and Path(turner).is_file()
        self.turner = _net(str(turner), backend) if usable_turner else None
        if usable_turner and _window_of(Path(turner)) != self.crop:
            raise ModelError(f"the turner {turner} cuts another window than the reader {reader}")
        # The corner reader (its own file, else corner.onnx beside the reader, or its 8-bit
        # file): a third look, at the card around each index the reader found
        # (read_corner=False: without it).
        corner = corner or (runs_file(Path(reader).with_name(CORNER), backend) if usable else None)
        usable_corner = usable and read_corner and corner is not None and Path(corner).is_file()
        self.corner = _net(str(corner), backend) if usable_corner else None
        self.corner_crop = _window_of(Path(corner)) if usable_corner else None
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

    def maps(self, image: np.ndarray) -> np.ndarray:
        """The network's raw output for a BGR image (padded to a multiple of 16): (25, H/4, W/4)."""
        h, w = image.shape[:2]
        out = self.net.run(network_input(image))[0]
        return out[:, : (h + 3) // STRIDE, : (w + 3) // STRIDE]

    def detect(self, image: np.ndarray, scale: float = 1.0, index_height: float | None = None) -> list[IndexRead]:
        """The indices in a BGR image, run at ``scale`` (the image resized by it first); their
        geometry in the image's own pixels. ``index_height`` (image pixels), when the indices'
        size is known (the table learns its deck's), is the height the reader's crops agree on;
        else they agree on the sure reads' median (:func:`agreed_heights`)."""
        return self.detect_each([Look(image, scale, index_height)])[0]

    def detect_each(self, looks: list[Look]) -> list[list[IndexRead]]:
        """:meth:`detect` for each of several images (a frame's changed regions), their indices
        read by the reader in one batch: a call of the reader costs about as much for four crops
        as for thirty."""
        works = [_work_image(look) for look in looks]
        peaks = [self._read(self.maps(work)) if min(work.shape[:2]) >= 16 else [] for work in works]
        if self.reader is None:
            reads = [
                [_as_read(p.centre, p.height, p.width, p.up_deg, p.heat, p.p_rank, p.p_suit) for p in ps]
                for ps in peaks
            ]
        else:
            # The reader only lowers a peak's heat (times its "an index lies here"): a peak
            # below ``least`` can never be an index, not even one corner of a pair, and is
            # neither read nor kept. Most peaks are pips and pictures' glyphs, and reading them
            # was half the reader's work.
            peaks = [[p for p in ps if p.heat >= self.least] for ps in peaks]
            typical = [look.index_height * look.scale if look.index_height else None for look in looks]
            reads = self._read_upright(looks, works, peaks, typical)
        # Two peaks of the heat map a cell or two apart are one index seen twice, not two (in a
        # tight fan, two cards' indices lie further apart than this).
        return [
            [r.scaled(1 / look.scale) for r in suppress(rs, apart=0.25)] for rs, look in zip(reads, looks, strict=True)
        ]

    def detect_pyramid(
        self, image: np.ndarray, scales: list[float], looks: tuple[float, ...] | None = LOOKS
    ) -> list[IndexRead]:
        """The indices found at any of ``scales``, the same index found at two kept once. Then
        the image is looked at again at the scales that bring the indices found (their median
        height) to ``looks`` times the network's best (a scale run already is not run again):
        the pyramid's steps are an octave apart, and an index between them is read near the
        taught range's end. ``looks`` None: at the best alone, and not when a scale within a
        quarter of it was run already (enrolment, which must not see more than it needs, and
        the 8-bit detector's calibration, :mod:`vision.training.quantize`). Of one index's
        reads, the surest stands unless the others, weighted the same way, name another card
        (:func:`_voted`)."""
        found: list[IndexRead] = []
        weights: list[float] = []

        run: list[float] = []

        def look(scale: float) -> None:
            if any(math.isclose(scale, s) for s in run):
                return
            run.append(scale)
            reads = self.detect(image, scale)
            found.extend(reads)
            weights.extend(r.score * _fit(r.height * scale) for r in reads)

        for scale in scales:
            look(scale)
        sure = [r.height for r in found if r.index_heat >= SURE]  # an index's size is not its ink's colour
        if sure:
            best = scale_for(float(np.median(sure)))
            if looks is not None:
                for factor in looks:
                    look(best * factor)
            elif all(abs(math.log(best / s)) > math.log(1.25) for s in scales):
                look(best)
        kept = suppress(found, weights)
        return [_voted(k, seen) for k, seen in zip(kept, _seen_as(kept, found, weights), strict=True)]

    def _read(self, out: np.ndarray) -> list[_Peak]:
        heat = 1 / (1 + np.exp(-out[0]))
        peaks = (heat >= self.peak) & (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8)))
        reads = []
        r0, s0 = 1, 1 + len(RANKS)
        g0 = s0 + len(SUITS)
        for y, x in zip(*np.nonzero(peaks), strict=True):
            cell = out[:, y, x]
            log_h, log_w, sin, cos = (float(v) for v in cell[g0 : g0 + 4])
            cx, cy = _refined(heat, int(x), int(y))
            reads.append(
                _Peak(
                    ((cx + 0.5) * STRIDE, (cy + 0.5) * STRIDE),
                    math.exp(min(log_h, 6.0)) * STRIDE,
                    math.exp(min(log_w, 6.0)) * STRIDE,
                    math.degrees(math.atan2(sin, cos)) % 360,
                    float(heat[y, x]),
                    _softmax(cell[r0:s0]),
                    _softmax(cell[s0:g0]),
                )
            )
        return reads

    def _read_upright(
        self, looks: list[Look], works: list[np.ndarray], peaks: list[list[_Peak]], typical: list[float | None]
    ) -> list[list[IndexRead]]:
        """Each index read again from an upright crop; the reader's and the detector's opinions
        multiplied. The turner looks first at two crops, as the detector saw the index and turned
        half a turn: it says which is upright and how far that one is still turned (the
        detector's up direction is often 20-50 degrees off on an index of 20-30 pixels, and the
        reader learned to read crops within a few degrees of upright). The reader then reads that
        crop alone, cut upright. Without a turner, the reader reads both crops and keeps the one
        less sure it is no index (a reader with turn outputs first sets upright a crop turned
        further than :data:`RECUT_DEG`). ``peaks[i]`` lie in ``works[i]`` (``looks[i]``'s image
        as the detector ran on it), and their crops are cut at heights they agree on, from
        whichever of the two images shows the index in more detail (:func:`_crop_source`)."""
        assert self.reader is not None
        reads = [r for ps in peaks for r in ps]
        if not reads:
            return [[] for _ in peaks]
        where, cut, coloured = [], [], []
        for look, work, ps, t in zip(looks, works, peaks, typical, strict=True):
            colour = has_colour(look.image)
            for r in agreed_heights(ps, t):
                image, r = _crop_source(look, work, r)
                where.append(image)
                cut.append(r)
                coloured.append(colour)
        ups = [r.up_deg for r in reads]
        first = self._look(self.turner or self.reader, where, cut, ups)
        if self.turner is not None:
            ups = [_upright_turn(first, k, up) for k, up in enumerate(ups)]
            logits = self._look(self.reader, where, cut, ups, both=False)
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
        return _grouped(self._all_fused(reads, rows, where, cut, ups, coloured), peaks)

    def _all_fused(
        self,
        reads: list[_Peak],
        rows: np.ndarray,
        images: list[np.ndarray],
        cut: list[_Peak],
        ups: list[float],
        coloured: list[bool],
    ) -> list[IndexRead]:
        """Each peak as the reader read it (``rows``, its upright crop's logits), the corner
        reader asked and its red ink looked at where they matter (:meth:`_fused`)."""
        corners = self._in_corner(rows, images, cut, ups)
        inks = _ink_checks(images, cut, ups, [c and self.check_ink for c in coloured])
        return [self._fused(r, rows[k], ups[k], corners[k], inks[k], coloured[k]) for k, r in enumerate(reads)]

    def _in_corner(
        self, rows: np.ndarray, images: list[np.ndarray], reads: list[_Peak], ups: list[float]
    ) -> list[float]:
        """The corner reader's chance that each read's crop (cut upright at ``ups``) holds an index,
        in the wider window. 1 for every read without a corner reader, for the reads already
        fainter than ``least`` with the reader's chance (the corner only lowers a read's heat, so
        it is not asked about reads that cannot count), and for those at least
        :data:`CORNER_ASKED_BELOW`."""
        out = [1.0] * len(reads)
        if self.corner is None or self.corner_crop is None:
            return out
        asked = [k for k, r in enumerate(reads) if self.least <= r.heat * _presence_of(rows[k]) < CORNER_ASKED_BELOW]
        if not asked:
            return out
        crops = [upright_crop(images[k], reads[k].centre, reads[k].height, ups[k], self.corner_crop) for k in asked]
        seen = np.array(self.corner.run(crops_blob(crops)), dtype=np.float32)
        for i, k in enumerate(asked):
            out[k] = _presence_of(seen[i])
        return out

    def _fused(
        self,
        r: _Peak,
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
        jokers are read alike (:func:`_jokers_alike`)."""
        ranks = _softmax(row[: len(RANKS) + 1])
        p_index = (1.0 - float(ranks[-1])) * in_corner  # the ranks' softmax is needed below: not _presence_of
        p_rank = _normalised(ranks[:-1] * (r.p_rank if self.fuse else 1.0))
        suits = _softmax(row[len(RANKS) + 1 : READER_OUTPUTS])
        weigh_detector_suit = self.fuse and (colour or self.fuse_grey_suit)
        p_suit = _normalised(suits * (r.p_suit if weigh_detector_suit else 1.0))
        if not colour:
            p_suit = _jokers_alike(p_suit)
        p_red = float(p_suit[list(RED_SUITS)].sum())
        ink = 1.0
        may_count = r.heat * p_index >= self.least
        if shows_red_ink is not None and p_red >= INK_ASKED_ABOVE and may_count and not shows_red_ink():
            ink = max(1.0 - p_red, LEAST_INK)
        return _as_read(r.centre, r.height, r.width, up_deg, r.heat * p_index * ink, p_rank, p_suit, p_index, ink)

    def _look(
        self, net: _Runtime, images: list[np.ndarray], reads: list[_Peak], ups: list[float], both: bool = True
    ) -> np.ndarray:
        """A reader's logits for each read's crop (from its image) at ``up`` and, with ``both``,
        turned half a turn (2 rows a read; else 1)."""
        assert self.crop is not None
        crops = []
        for image, r, up in zip(images, reads, ups, strict=True):
            crops.append(upright_crop(image, r.centre, r.height, up, self.crop))
            if both:
                crops.append(upright_crop(image, r.centre, r.height, up + 180, self.crop))
        return np.array(net.run(crops_blob(crops)), dtype=np.float32)


@dataclass(frozen=True, slots=True)
class Look:
    """One image for the detector: run at ``scale``; ``index_height`` (image pixels) the indices'
    size when known (:meth:`IndexDetector.detect`)."""

    image: np.ndarray
    scale: float = 1.0
    index_height: float | None = None


def network_input(image: np.ndarray) -> np.ndarray:
    """A BGR image as the detector's input: padded to a multiple of 16 (the network's coarsest
    stride) by repeating its edge, 1 x 3 x H x W floats in 0-1."""
    h, w = image.shape[:2]
    ph, pw = -h % 16, -w % 16
    if ph or pw:
        image = cv2.copyMakeBorder(image, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    return cv2.dnn.blobFromImage(image, 1 / 255.0)


def _work_image(look: Look) -> np.ndarray:
    """The image the network runs on: ``look``'s, checked, resized by its scale."""
    image = look.image
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError("an index detector reads 8-bit BGR images")
    if abs(look.scale - 1) <= 1e-3:
        return image
    interp = cv2.INTER_AREA if look.scale < 1 else cv2.INTER_LINEAR
    return cv2.resize(image, None, fx=look.scale, fy=look.scale, interpolation=interp)


def _crop_source(look: Look, work: np.ndarray, r: _Peak) -> tuple[np.ndarray, _Peak]:
    """The image the reader's crop of ``r`` (found in ``work``) is cut from, and ``r`` in its
    pixels: the look's own image where the detector ran on it shrunk, unless the index is taller
    there than the reader was taught (:data:`TAUGHT_HEIGHTS`; a crop's bilinear cut of a much
    taller index skips pixels), else ``work``. Shrinking for the detector's sake (it finds
    indices as well at :data:`BEST_HEIGHT` and costs the square of the scale) then costs the
    reader no detail: a club and a spade differ by a few pixels."""
    factor = 1 / look.scale
    if work is look.image or factor <= 1 or r.height * factor > TAUGHT_HEIGHTS[1]:
        return work, r  # (a scale within a thousandth of 1 leaves the image as it was: _work_image)
    centre = (r.centre[0] * factor, r.centre[1] * factor)
    return look.image, replace(r, centre=centre, height=r.height * factor, width=r.width * factor)


def agreed_heights(reads: list[_Peak], typical: float | None = None) -> list[_Peak]:
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


HEIGHT_AGREEMENT = 1.25  # how far (a factor either way) one index's height may be from the others'
TWO_SURE_AGREEMENT = 1.05  # ... and, of two sure reads, how far short of the taller the shorter may be
TWO_SURE_APART = 1.6  # two sure reads further apart than this in height are not one size
READER_OUTPUTS = len(RANKS) + 1 + len(SUITS)  # rank (and no index), suit; a turner adds the crop's turn
RECUT_DEG = 10.0  # a crop the turner finds turned further than this from upright is cut again, set upright


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


def _grouped(reads: list[IndexRead], peaks: list[list[_Peak]]) -> list[list[IndexRead]]:
    """``reads`` (all images' in a row) grouped back by the image their peaks lie in."""
    grouped, start = [], 0
    for ps in peaks:
        grouped.append(reads[start : start + len(ps)])
        start += len(ps)
    return grouped


def _upright_of(logits: np.ndarray, k: int) -> int:
    """Which of read ``k``'s two crops is upright: the one less sure it is no index (1: turned)."""
    none = [float(_softmax(logits[2 * k + i, : len(RANKS) + 1])[-1]) for i in (0, 1)]
    return int(none[1] < none[0])


def _turn_of(row: np.ndarray) -> float:
    """How far, in degrees, the reader says its crop is turned from upright (the direction the
    crop's angle is off by: subtracting it sets the crop upright)."""
    sin, cos = (float(v) for v in row[READER_OUTPUTS : READER_OUTPUTS + 2])
    return math.degrees(math.atan2(sin, cos))


def _ink_checks(
    images: list[np.ndarray], reads: list[_Peak], ups: list[float], coloured: list[bool]
) -> list[Callable[[], bool] | None]:
    """For each read, whether its index crop (cut upright at ``ups`` from its image) shows red ink,
    to be asked only where it matters (most reads are faint peaks on pips, or black cards: a crop
    cut and measured for each would cost time for nothing); None where its frame has no colour to
    tell (``coloured``)."""

    def check(image: np.ndarray, r: _Peak, up: float) -> Callable[[], bool]:
        return lambda: shows_red(upright_crop(image, r.centre, r.height, up, INDEX_ONLY))

    return [
        check(image, r, up) if colour else None
        for image, r, up, colour in zip(images, reads, ups, coloured, strict=True)
    ]


def _jokers_alike(p_suit: np.ndarray) -> np.ndarray:
    """A read's suits with the chance of a joker shared evenly between the two: most designs
    print their big and little jokers' indices alike but for the colour (one red, one black), so
    in a frame without colour a reader's preference between them is a guess, and a guess named is
    a false accusation. Which joker it is, only the referee's prior can tell (the one that can
    still be there; :func:`vision.cards.join`)."""
    out = p_suit.copy()
    jokers = list(JOKER_SUITS)
    out[jokers] = out[jokers].mean()
    return out


def _window_of(model: Path) -> CropSpec:
    try:
        return spec_of(model)
    except CropSpecError as e:
        raise ModelError(str(e)) from e


def _presence_of(row: np.ndarray) -> float:
    """A reader's chance, from its logits for one crop, that the crop holds an index."""
    return 1.0 - float(_softmax(row[: len(RANKS) + 1])[-1])


def _normalised(p: np.ndarray) -> np.ndarray:
    total = float(p.sum())
    return p / total if total > 0 else np.full_like(p, 1 / len(p))


def _as_read(
    centre: tuple[float, float],
    height: float,
    width: float,
    up_deg: float,
    heat: float,
    p_rank: np.ndarray,
    p_suit: np.ndarray,
    presence: float = 1.0,
    ink: float = 1.0,
) -> IndexRead:
    r, s = int(p_rank.argmax()), int(p_suit.argmax())
    return IndexRead(
        centre,
        height,
        width,
        up_deg,
        _card(r, s),
        float(heat * p_rank[r] * p_suit[s]),
        float(heat),
        _candidates(p_rank, p_suit),
        float(presence),
        float(ink),
    )


def _refined(heat: np.ndarray, x: int, y: int) -> tuple[float, float]:
    """The peak's centre to a fraction of a cell: the heat-weighted mean of its 3x3."""
    h, w = heat.shape
    ys, xs = slice(max(0, y - 1), min(h, y + 2)), slice(max(0, x - 1), min(w, x + 2))
    patch = heat[ys, xs]
    yy, xx = np.mgrid[ys, xs]
    total = float(patch.sum())
    return float((patch * xx).sum() / total), float((patch * yy).sum() / total)


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


def _voted(kept: IndexRead, seen: list[tuple[IndexRead, float]]) -> IndexRead:
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


def share_in_view(read: IndexRead, shape: tuple[int, ...]) -> float:
    """The share of ``read``'s box (its height along its up direction, its width across) that lies
    inside an image of ``shape``, from a 9 x 9 grid of points over the box."""
    h, w = shape[:2]
    reach = math.hypot(read.height, read.width) / 2  # no point of the box lies further from its centre
    x, y = read.centre
    if reach <= x and x + reach < w and reach <= y and y + reach < h:
        return 1.0  # most reads: the grid is for the few near an edge
    steps = np.linspace(-0.5, 0.5, 9)
    up, right = np.array(read.up), np.array((-read.up[1], read.up[0]))
    along, across = np.meshgrid(steps * read.height, steps * read.width)
    xs = read.centre[0] + along.ravel() * up[0] + across.ravel() * right[0]
    ys = read.centre[1] + along.ravel() * up[1] + across.ravel() * right[1]
    return float(np.mean((xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)))


def in_view(reads: list[IndexRead], shape: tuple[int, ...], least: float = IN_VIEW) -> list[IndexRead]:
    """The reads whose index lies at least ``least`` inside an image of ``shape``: an index cut off
    by the image's edge is no index, as the network was taught (a card there is read from its
    other corner, if that is in view)."""
    return [r for r in reads if share_in_view(r, shape) >= least]


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


def _fit(work_height: float) -> float:
    """How well an index this tall (network pixels) suits the network, 1 at its best height: an
    index read at two scales is trusted where it was seen nearer that size (its up direction and
    glyphs are read best there)."""
    return math.exp(-abs(math.log(max(1.0, work_height) / BEST_HEIGHT)))


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
