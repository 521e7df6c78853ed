"""The card reader's networks through onnxruntime and through OpenCV's DNN module, one thread each:
``python -m benchmarks.runtimes`` prints the detector's median milliseconds per input size, in
floats through both runtimes and in 8-bit integers through onnxruntime (the choice of runtime in
docs/vision.md), then the readers' (the shipped turner, reader and corner reader, in floats
through both runtimes and in 8-bit integers through onnxruntime, and any given with
``--reader``) for a batch of 16 crops, about what eight new cards make."""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision.index_readers import IndexReaders
from vision.indices import IndexDetector
from vision.networks import CORNER, MODEL, MODEL_INT8, READER, TURNER, int8_name, model_path

SIZES = ((256, 256), (736, 1280), (1088, 1920))


def timings(repeats: int = 5) -> list[tuple[str, tuple[int, int], float]]:
    cv2.setNumThreads(1)
    out = []
    for backend, model in (("onnxruntime", MODEL), ("opencv", MODEL), ("onnxruntime", MODEL_INT8)):
        detector = IndexDetector(model_path(model), backend=backend)
        name = backend if model == MODEL else f"{backend} int8"
        for h, w in SIZES:
            image = np.random.default_rng(0).integers(0, 255, (h, w, 3), dtype=np.uint8)
            out.append((name, (w, h), round(_median_ms(detector.maps, image, repeats), 1)))
    return out


def _median_ms(run: Callable[[np.ndarray], object], given: np.ndarray, repeats: int) -> float:
    run(given)  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run(given)
        times.append(1000 * (time.perf_counter() - start))
    return round(statistics.median(times), 2)


def reader_timings(paths: list[Path], crops: int = 16, repeats: int = 20) -> list[tuple[str, str, float]]:
    """Each reader's median milliseconds for ``crops`` crops of its window, per runtime (an 8-bit
    file through onnxruntime alone, as the table runs it)."""
    cv2.setNumThreads(1)
    out = []
    for path in paths:
        for backend in ("onnxruntime",) if path.name.endswith(".int8.onnx") else ("onnxruntime", "opencv"):
            readers = IndexReaders(path, backend, turn=False, read_corner=False)
            net, window = readers.reader, readers.crop
            blob = np.random.default_rng(0).random((crops, 3, window.height, window.width)).astype(np.float32)
            out.append((str(path), backend, _median_ms(net.run, blob, repeats)))
    return out


def _shown(path: str) -> str:
    """A path as the command line would give it (the package's own models by their name)."""
    here = Path(path).resolve()
    return str(here.relative_to(Path.cwd())) if here.is_relative_to(Path.cwd()) else here.name


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.runtimes", description=__doc__)
    parser.add_argument("--reader", action="append", type=Path, default=[], help="another reader (ONNX) to time")
    args = parser.parse_args()
    for backend, (w, h), ms in timings():
        print(f"{backend:17s} {w}x{h}: {ms} ms")
    shipped = [model_path(name) for name in (TURNER, READER, CORNER)]
    shipped += [model_path(int8_name(name)) for name in (TURNER, READER, CORNER)]
    for path, backend, ms in reader_timings([*shipped, *args.reader]):
        print(f"{backend:17s} 16 crops, {_shown(path)}: {ms} ms")
