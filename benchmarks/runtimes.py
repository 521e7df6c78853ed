"""The card reader's network through onnxruntime and through OpenCV's DNN module, one thread each:
``python -m benchmarks.runtimes`` prints the median milliseconds per input size (the choice of
runtime in docs/vision.md)."""

from __future__ import annotations

import statistics
import time

import cv2
import numpy as np

from vision.indices import IndexDetector, model_path

SIZES = ((256, 256), (736, 1280), (1088, 1920))


def timings(repeats: int = 5) -> list[tuple[str, tuple[int, int], float]]:
    cv2.setNumThreads(1)
    out = []
    for backend in ("onnxruntime", "opencv"):
        detector = IndexDetector(model_path(), backend=backend)
        for h, w in SIZES:
            image = np.random.default_rng(0).integers(0, 255, (h, w, 3), dtype=np.uint8)
            detector.maps(image)  # warm-up
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                detector.maps(image)
                times.append(1000 * (time.perf_counter() - start))
            out.append((backend, (w, h), round(statistics.median(times), 1)))
    return out


if __name__ == "__main__":
    for backend, (w, h), ms in timings():
        print(f"{backend:12s} {w}x{h}: {ms} ms")
