"""The card reader's networks: their files in the package, and the runtime that runs them.

Four networks read cards: the index detector (:mod:`vision.indices`) and the three readers of
its crops (:mod:`vision.index_readers`). Training (:mod:`vision.training`) writes each as an
ONNX file in 32-bit floats, and :mod:`vision.training.quantize` makes an 8-bit file beside it.
The table runs them through onnxruntime (twice as fast as OpenCV's DNN module here, and built
for 64-bit Raspberry Pi OS) in 8-bit integers, or in floats through OpenCV's DNN module where
onnxruntime is not installed: either way the table needs no learning framework.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from vision.index_crops import CropSpec, CropSpecError, spec_of

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


class ModelError(RuntimeError):
    """A network's file is missing, or the runtime cannot load it."""


def model_path(name: str = MODEL) -> Path:
    """A shipped network's file, in the package's ``vision/models``."""
    return Path(str(resources.files("vision") / "models" / name))


def int8_name(name: str) -> str:
    """A network's file in 8-bit integers: ``reader.onnx`` -> ``reader.int8.onnx``."""
    return name.removesuffix(".onnx") + ".int8.onnx"


def drop_stale_int8(floats: Path) -> Path | None:
    """Remove the 8-bit file beside a network just written in floats to ``floats``, and say which
    it was: made from the network the file held before, it would go on being run in its place
    (:func:`runs_file`), unnoticed. Until ``python -m vision.training.quantize`` writes it again,
    the new network is run in floats."""
    stale = floats.with_name(int8_name(floats.name))
    if not stale.is_file():
        return None
    stale.unlink()
    return stale


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


def default_backend() -> str:
    """onnxruntime where it is installed, else OpenCV's DNN module."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return "opencv"
    return "onnxruntime"


class Runtime:
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


@cache
def network(path: str, backend: str) -> Runtime:
    """The network in ``path`` as ``backend`` runs it, loaded once: every detector of a process
    that names one file shares its session."""
    return Runtime(path, backend)


def window_of(model: Path) -> CropSpec:
    """The window a reader's file was trained to read (:mod:`vision.index_crops`)."""
    try:
        return spec_of(model)
    except CropSpecError as e:
        raise ModelError(str(e)) from e
