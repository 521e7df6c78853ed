"""The learned index detector: every printed corner index in an image, found and read.

The network (trained by :mod:`vision.training`, shipped as ``vision/models/indices.onnx`` and run
as :mod:`vision.networks` says) maps an image to maps at a quarter of its resolution: where index
centres lie (a heat map), and at each centre the rank, the suit, the index's size and which way
is up. This module turns the maps into peaks (:class:`~vision.index_reads.Peak`), has the
readers look at each again (:mod:`vision.index_readers`), and returns
:class:`~vision.index_reads.IndexRead` s: each with its most likely card and the probabilities
the referee's prior may weigh.

:meth:`IndexDetector.detect` takes the scale to run at (the mat's scale gives it);
:meth:`IndexDetector.detect_pyramid` looks at a photograph whose card size is unknown at the
scales :mod:`vision.scales` chooses, and keeps one read per index.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.index_readers import ONE_HEIGHT, IndexReaders
from vision.index_reads import FAINT, PEAK, RANKS, SUITS, SURE, IndexRead, Look, Peak, as_read, softmax
from vision.networks import (
    CORNER,
    READER,
    TURNER,
    default_backend,
    default_model,
    model_path,
    network,
    runs_file,
    window_of,
)
from vision.scales import LOOKS, fit, scale_for, suppress, voted_reads

STRIDE = 4  # the heat map's cell, in the network's input pixels


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
    if turner is None and window_of(Path(reader)) == window_of(model_path(TURNER)):
        turner = shipped(TURNER)
    if corner is None and model_path(CORNER).is_file():
        corner = shipped(CORNER)
    return IndexDetector(model, reader=reader, turner=turner, corner=corner, **options)


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
        crop_heights: tuple[float, ...] = ONE_HEIGHT,
    ) -> None:
        backend = backend or default_backend()
        self.path = str(path or default_model(backend))
        self.net = network(self.path, backend)
        self.peak = peak
        # The readers (the reader's own file, else the one beside the detector's: reader.onnx, or
        # through onnxruntime reader.int8.onnx when there is one; the turner and the corner
        # reader beside it, unless given): a second, upright look at every index. None: the
        # detector's reads alone (read_upright=False, or no reader).
        reader = reader or runs_file(Path(self.path).with_name(READER), backend)
        usable = read_upright and Path(reader).is_file()
        self.readers = (
            IndexReaders(
                Path(reader),
                backend,
                turner=turner,
                turn=turn,
                corner=corner,
                read_corner=read_corner,
                least=least,
                fuse=fuse,
                check_ink=check_ink,
                fuse_grey_suit=fuse_grey_suit,
                crop_heights=crop_heights,
            )
            if usable
            else None
        )

    def maps(self, image: np.ndarray) -> np.ndarray:
        """The network's raw output for a BGR image (padded to a multiple of 16): (25, H/4, W/4)."""
        h, w = image.shape[:2]
        out = self.net.run(network_input(image))[0]
        return out[:, : (h + 3) // STRIDE, : (w + 3) // STRIDE]

    def detect(self, image: np.ndarray, scale: float = 1.0, index_height: float | None = None) -> list[IndexRead]:
        """The indices in a BGR image, run at ``scale`` (the image resized by it first); their
        geometry in the image's own pixels. ``index_height`` (image pixels), when the indices'
        size is known (the table learns its deck's), is the height the reader's crops agree on;
        else they agree on the sure reads' median (:func:`vision.index_readers.agreed_heights`)."""
        return self.detect_each([Look(image, scale, index_height)])[0]

    def detect_each(self, looks: list[Look]) -> list[list[IndexRead]]:
        """:meth:`detect` for each of several images (a frame's changed regions), their indices
        read by the reader in one batch: a call of the reader costs about as much for four crops
        as for thirty."""
        works = [_work_image(look) for look in looks]
        peaks = [self._read(self.maps(work)) if min(work.shape[:2]) >= 16 else [] for work in works]
        if self.readers is None:
            reads = [
                [as_read(p.centre, p.height, p.width, p.up_deg, p.heat, p.p_rank, p.p_suit) for p in ps] for ps in peaks
            ]
        else:
            # The reader only lowers a peak's heat (times its "an index lies here"): a peak
            # below ``least`` can never be an index, not even one corner of a pair, and is
            # neither read nor kept. Most peaks are pips and pictures' glyphs, and reading them
            # was half the reader's work.
            peaks = [[p for p in ps if p.heat >= self.readers.least] for ps in peaks]
            typical = [look.index_height * look.scale if look.index_height else None for look in looks]
            reads = self.readers.read(looks, works, peaks, typical)
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
        (:func:`vision.scales.voted_reads`)."""
        found: list[IndexRead] = []
        weights: list[float] = []

        run: list[float] = []

        def look(scale: float) -> None:
            if any(math.isclose(scale, s) for s in run):
                return
            run.append(scale)
            reads = self.detect(image, scale)
            found.extend(reads)
            weights.extend(r.score * fit(r.height * scale) for r in reads)

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
        return voted_reads(found, weights)

    def _read(self, out: np.ndarray) -> list[Peak]:
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
                Peak(
                    ((cx + 0.5) * STRIDE, (cy + 0.5) * STRIDE),
                    math.exp(min(log_h, 6.0)) * STRIDE,
                    math.exp(min(log_w, 6.0)) * STRIDE,
                    math.degrees(math.atan2(sin, cos)) % 360,
                    float(heat[y, x]),
                    softmax(cell[r0:s0]),
                    softmax(cell[s0:g0]),
                )
            )
        return reads


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


def _refined(heat: np.ndarray, x: int, y: int) -> tuple[float, float]:
    """The peak's centre to a fraction of a cell: the heat-weighted mean of its 3x3."""
    h, w = heat.shape
    ys, xs = slice(max(0, y - 1), min(h, y + 2)), slice(max(0, x - 1), min(w, x + 2))
    patch = heat[ys, xs]
    yy, xx = np.mgrid[ys, xs]
    total = float(patch.sum())
    return float((patch * xx).sum() / total), float((patch * yy).sum() / total)
