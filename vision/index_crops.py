"""An index cut out of an image upright, at the size the index reader reads (pure).

The detector gives each index's centre, height and up direction; the crop is a window around the
centre, measured in index heights (:class:`CropSpec`), turned so the index stands upright and
resampled to the reader's input size. The same function cuts the training crops and the table's,
so the reader sees at the table what it learned from.

Three windows exist. :data:`INDEX_ONLY` holds the index alone. :data:`WITH_CONTEXT` also holds the
card beside and below it, towards the card's middle, where the nearest pip or the court
picture's glyph lies: on a small card the index's suit is a blob of a few pixels (the project's
club and spade differ by a pixel or two at 720p), while the pip beside it is three times larger.
:data:`WITH_CORNER` reaches further on every side, most above and to either side, where a
card's top edge and side edge lie around an index printed in its corner: the corner reader
(:data:`vision.networks.CORNER`) tells an index from a pip or a mark of the table by where it lies.
A reader says which window it was trained on in a file beside its model (:func:`spec_of`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np


@dataclass(frozen=True, slots=True)
class CropSpec:
    """The reader's window: its size in pixels, and how far it reaches from the index's centre
    in index heights (left, right, up, down, with the index upright)."""

    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float

    @property
    def px_per_height(self) -> float:
        return self.height / (self.top + self.bottom)

    def to_json(self) -> dict[str, float]:
        return asdict(self)


INDEX_ONLY = CropSpec(32, 40, 0.5, 0.5, 0.625, 0.625)
WITH_CONTEXT = CropSpec(64, 48, 0.8, 1.8, 0.75, 1.2)  # 2.6 x 1.95 index heights, 24.6 px each way
WITH_CORNER = CropSpec(56, 56, 0.875, 0.875, 1.0, 0.75)  # 1.75 x 1.75 index heights, 32 px each
SPECS = {"index": INDEX_ONLY, "context": WITH_CONTEXT, "corner": WITH_CORNER}


class CropSpecError(ValueError):
    """A reader's window file that cannot be used."""


def spec_file(model: Path) -> Path:
    """The window file of a reader: ``reader.json`` for ``reader.onnx`` and for its 8-bit
    ``reader.int8.onnx`` alike (one network, one window)."""
    return model.with_name(model.name.removesuffix(".onnx").removesuffix(".int8") + ".json")


def spec_of(model: Path) -> CropSpec:
    """The window a reader model was trained on: from the JSON file beside it (``reader.json``
    for ``reader.onnx``), :data:`INDEX_ONLY` when there is none."""
    path = spec_file(model)
    if not path.is_file():
        return INDEX_ONLY
    try:
        return CropSpec(**json.loads(path.read_text())["crop"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise CropSpecError(f"{path}: not a reader's crop window ({e})") from e


def write_spec(model: Path, spec: CropSpec) -> None:
    spec_file(model).write_text(json.dumps({"crop": spec.to_json()}, indent=1) + "\n")


def upright_crop(
    image: np.ndarray, centre: tuple[float, float], height: float, up_deg: float, spec: CropSpec = INDEX_ONLY
) -> np.ndarray:
    """The index at ``centre``, ``height`` pixels tall, its top towards ``up_deg`` (0 = up the
    image, clockwise), upright in a ``spec.width`` x ``spec.height`` BGR crop."""
    scale = spec.px_per_height / max(height, 1.0)
    m = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), up_deg, scale)
    at = np.array([spec.left, spec.top]) * spec.px_per_height  # where the index's centre lands
    m[:, 2] += at - np.array(centre)
    flags = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, m, (spec.width, spec.height), flags=flags, borderMode=cv2.BORDER_REPLICATE)


def crops_blob(crops: list[np.ndarray]) -> np.ndarray:
    """Crops as the reader's input: (N, 3, height, width) float32 in [0, 1]."""
    return np.stack([c.transpose(2, 0, 1) for c in crops]).astype(np.float32) / 255
