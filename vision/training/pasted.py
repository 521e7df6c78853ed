"""Real indices pasted onto the scene generator's faces: a training photo's printed index, cut
from its box, takes the place of both indices of a design's face or a face drawn in a font, so the
detector sees real ink, blur and grain in the scenes' many arrangements, tables and lights, not
only in the photos' own.

Only boxes shaped like an index standing up or upside down are taken (taller than wide by
:data:`UPRIGHT`): the box of a turned index holds the paper around it, and a joker's box holds a
word. Which way up a pasted index stands is not known, so its up direction is not taught."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engine.cards import Card
from vision import photo_set as photos
from vision.training.faces import Face

PASTED = "pasted"  # the design name of a face with real indices
UPRIGHT = (1.25, 2.6)  # a box's height over its width, for an index standing up or upside down
MARGIN = 1.25  # the patch cut around the box, of its size: the margin is feathered into the face's paper
ERASED = 1.15  # the face's own index is painted over with its paper this far around its box first
Box = tuple[float, float, float, float]
PAPER = 75  # percentile of a patch's brightness taken as its paper (its ink is the darker rest)


@dataclass(frozen=True, slots=True)
class RealIndex:
    photo: photos.Photo
    card: Card
    box: Box


def upright_indices(photo_list: list[photos.Photo]) -> list[RealIndex]:
    """The photos' labelled indices whose boxes an upright index fills, jokers left out."""
    out = []
    for photo in photo_list:
        for card, box in photo.boxes:
            w, h = box[2] - box[0], box[3] - box[1]
            if not card.is_joker and w > 0 and UPRIGHT[0] <= h / w <= UPRIGHT[1]:
                out.append(RealIndex(photo, card, box))
    return out


class RealIndices:
    """Training photos' indices to paste onto faces (:func:`pasted`)."""

    def __init__(self, photo_list: list[photos.Photo], images: dict[str, np.ndarray] | None = None) -> None:
        self.indices = upright_indices(photo_list)
        # The photos read so far, by name: given the training's own, each photo is read and held once.
        self._images = images if images is not None else {}

    def __len__(self) -> int:
        return len(self.indices)

    def patch(self, rng: np.random.Generator) -> tuple[Card, np.ndarray, Box]:
        """A random index's patch (its box grown by :data:`MARGIN`, cut from its photo) and the
        box within the patch."""
        index = self.indices[int(rng.integers(len(self.indices)))]
        if index.photo.name not in self._images:
            self._images[index.photo.name] = index.photo.image()
        return (index.card, *_cut(self._images[index.photo.name], index.box))


def _cut(image: np.ndarray, box: Box) -> tuple[np.ndarray, Box]:
    x0, y0, x1, y1 = box
    cx, cy, hw, hh = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) * MARGIN / 2, (y1 - y0) * MARGIN / 2
    h, w = image.shape[:2]
    px0, py0 = max(0, int(cx - hw)), max(0, int(cy - hh))
    px1, py1 = min(w, int(np.ceil(cx + hw))), min(h, int(np.ceil(cy + hh)))
    return image[py0:py1, px0:px1], (x0 - px0, y0 - py0, x1 - px0, y1 - py0)


def pasted(face: Face, card: Card, patch: np.ndarray, box: Box) -> Face:
    """``face`` with ``patch``'s index (``box`` within it) in place of its top-left index, and half
    a turn of it in place of its bottom-right one: a face of ``card``. The patch is scaled so its
    index is as tall as the face's, its paper brought to the face's paper, its edge feathered."""
    image = face.image.astype(np.float32)
    fx0, fy0, fx1, fy1 = face.index_box
    scale = (fy1 - fy0) / max(1.0, box[3] - box[1])
    ph, pw = patch.shape[:2]
    size = (max(2, round(pw * scale)), max(2, round(ph * scale)))
    scaled = cv2.resize(patch, size, interpolation=cv2.INTER_LINEAR).astype(np.float32)
    paper = np.percentile(scaled.reshape(-1, 3), PAPER, axis=0)
    face_paper = np.percentile(image.reshape(-1, 3), PAPER, axis=0)
    scaled *= np.clip(face_paper / np.maximum(paper, 1.0), 0.5, 2.0)
    _erase(image, face.index_box, face_paper)
    _erase(image, _turned_box(face.index_box, image.shape), face_paper)
    alpha = _feathered(size[1], size[0])
    # the patch's top-left corner, where its box's centre falls on the face's index's centre
    at = ((fx0 + fx1) / 2 - (box[0] + box[2]) / 2 * scale, (fy0 + fy1) / 2 - (box[1] + box[3]) / 2 * scale)
    _blend(image, scaled, alpha, at)
    turned = image.shape[1] - at[0] - size[0], image.shape[0] - at[1] - size[1]
    _blend(image, scaled[::-1, ::-1], alpha[::-1, ::-1], turned)
    out = np.clip(image, 0, 255).astype(np.uint8)
    return Face(card, out, face.index_box, PASTED)


def _turned_box(box: Box, shape: tuple[int, ...]) -> Box:
    h, w = shape[:2]
    return (w - box[2], h - box[3], w - box[0], h - box[1])


def _erase(image: np.ndarray, box: Box, paper: np.ndarray) -> None:
    x0, y0, x1, y1 = box
    gx, gy = (x1 - x0) * (ERASED - 1) / 2, (y1 - y0) * (ERASED - 1) / 2
    h, w = image.shape[:2]
    ix0, iy0 = max(0, int(x0 - gx)), max(0, int(y0 - gy))
    ix1, iy1 = min(w, int(np.ceil(x1 + gx))), min(h, int(np.ceil(y1 + gy)))
    image[iy0:iy1, ix0:ix1] = paper


def _feathered(h: int, w: int) -> np.ndarray:
    """A patch's weight: whole over its box, falling to nothing across the margin around it."""
    edge = (1 - 1 / MARGIN) / 2  # the margin's share of the patch, each side
    ramp_y = np.clip(np.minimum(np.arange(h) + 0.5, h - np.arange(h) - 0.5) / max(1.0, edge * h), 0, 1)
    ramp_x = np.clip(np.minimum(np.arange(w) + 0.5, w - np.arange(w) - 0.5) / max(1.0, edge * w), 0, 1)
    return (ramp_y[:, None] * ramp_x[None, :])[..., None].astype(np.float32)


def _blend(image: np.ndarray, patch: np.ndarray, alpha: np.ndarray, at: tuple[float, float]) -> None:
    """Blend ``patch`` into ``image`` with its top-left at ``at``, clipped to the image."""
    x, y = round(at[0]), round(at[1])
    h, w = image.shape[:2]
    ph, pw = patch.shape[:2]
    ix0, iy0, ix1, iy1 = max(0, x), max(0, y), min(w, x + pw), min(h, y + ph)
    if ix0 >= ix1 or iy0 >= iy1:
        return
    p = patch[iy0 - y : iy1 - y, ix0 - x : ix1 - x]
    a = alpha[iy0 - y : iy1 - y, ix0 - x : ix1 - x]
    image[iy0:iy1, ix0:ix1] = image[iy0:iy1, ix0:ix1] * (1 - a) + p * a
