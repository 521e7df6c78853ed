"""The shared real photographs (``shared/datasets/real-photos``): loading, the split, and
training crops.

The split is by photo and by time: each source's photos (``IMG_*`` phone, ``WIN_*`` webcam) are
put in the order they were taken and cut into runs of :data:`RUN` consecutive photos, which go to
the training and the validation half in turn. Photos taken seconds apart often show the same
cards, so whole runs, not single photos, change sides: few near-copies straddle the halves.
Figures are reported only on the validation half.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.cards import Card

RUN = 8
DATASET_ENV = "CROUPIER_REAL_PHOTOS"


class PhotoSetError(RuntimeError):
    """The photo set is missing or a label file is malformed."""


@dataclass(frozen=True, slots=True)
class Photo:
    name: str
    source: str  # "phone" or "webcam"
    path: Path
    boxes: tuple[tuple[Card, tuple[float, float, float, float]], ...]

    def image(self) -> np.ndarray:
        image = cv2.imread(str(self.path), cv2.IMREAD_COLOR)
        if image is None:
            raise PhotoSetError(f"{self.path}: not an image")
        return image


def default_root() -> Path:
    """The set beside the repository (``../shared/datasets/real-photos``), or $CROUPIER_REAL_PHOTOS."""
    if DATASET_ENV in os.environ:
        return Path(os.environ[DATASET_ENV])
    return Path(__file__).resolve().parents[2] / "shared" / "datasets" / "real-photos"


def _taken(name: str) -> str:
    digits = re.sub(r"\D", "", name)
    return digits[:14]


def load(root: Path | None = None) -> list[Photo]:
    root = root or default_root()
    labels = root / "labels"
    if not labels.is_dir():
        raise PhotoSetError(f"no photo set at {root} (set {DATASET_ENV})")
    photos = []
    for path in sorted(labels.glob("*.json")):
        try:
            data = json.loads(path.read_text())
            boxes = tuple((Card.from_str(i["card"]), tuple(float(v) for v in i["box"])) for i in data["indices"])
        except (ValueError, KeyError, TypeError) as e:
            raise PhotoSetError(f"{path.name}: {e}") from e
        source = "webcam" if path.stem.startswith("WIN_") else "phone"
        photos.append(Photo(path.stem, source, root / "images" / f"{path.stem}.jpg", boxes))  # type: ignore[arg-type]
    return photos


def split(photos: list[Photo]) -> tuple[list[Photo], list[Photo]]:
    """(training half, validation half), by runs of consecutive photos of each source."""
    train, validation = [], []
    for source in ("phone", "webcam"):
        ordered = sorted((p for p in photos if p.source == source), key=lambda p: (_taken(p.name), p.name))
        for k, photo in enumerate(ordered):
            (train if (k // RUN) % 2 == 0 else validation).append(photo)
    return train, validation


def training_crop(
    rng: np.random.Generator, photo: Photo, image: np.ndarray, size: int
) -> tuple[np.ndarray, list[tuple[tuple[float, float], float, Card, bool]]]:
    """A square crop of a training photo, scaled so its indices are a size the detector learns,
    turned by a random angle: the image, and each index's (centre, size, card, whole) where
    *whole* says the index lies wholly inside the crop."""
    heights = [max(b[2] - b[0], b[3] - b[1]) for _, b in photo.boxes] or [40.0]
    target = math.exp(rng.uniform(math.log(13), math.log(52)))
    scale = target / (0.85 * float(np.median(heights)))
    angle = rng.uniform(0, 360) if rng.random() < 0.7 else rng.normal(0, 10)
    h, w = image.shape[:2]
    if photo.boxes and rng.random() < 0.85:
        _, b = photo.boxes[int(rng.integers(len(photo.boxes)))]
        focus = np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]) + rng.normal(0, 0.25 * size / scale, 2)
    else:
        focus = np.array([rng.uniform(0, w), rng.uniform(0, h)])
    m = cv2.getRotationMatrix2D((float(focus[0]), float(focus[1])), angle, scale)
    m[:, 2] += np.array([size / 2, size / 2]) - focus
    # Beyond the photo's edge: a plain fill. A reflection would repeat cards whose indices no label names.
    fill = tuple(int(v) for v in rng.integers(0, 256, 3))
    flags = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    crop = cv2.warpAffine(image, m, (size, size), flags=flags, borderMode=cv2.BORDER_CONSTANT, borderValue=fill)
    out = []
    for card, (x0, y0, x1, y1) in photo.boxes:
        corners = np.array([[x0, y0, 1], [x1, y0, 1], [x1, y1, 1], [x0, y1, 1]]) @ m.T
        centre = corners.mean(axis=0)
        whole = bool((corners >= 0).all() and (corners < size).all())
        extent = scale * min(x1 - x0, y1 - y0)
        out.append(((float(centre[0]), float(centre[1])), float(extent), card, whole))
    return crop, out
