"""Tables to lay synthetic cards on: real photographs from Debian's wallpaper and paper-texture
packages, and textures drawn here (felt, wood, cloth, stone, plain pale and dark tops)."""

from __future__ import annotations

import logging
from functools import cache
from pathlib import Path

import cv2
import numpy as np

log = logging.getLogger(__name__)

# Debian packages gnome-backgrounds, mate-backgrounds and mypaint-data-extras (see the model card).
PHOTO_DIRS = (Path("/usr/share/backgrounds"), Path("/usr/share/mypaint/backgrounds"), Path("/usr/share/wallpapers"))
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")
_MAX_SIDE = 1400


@cache
def photos() -> tuple[np.ndarray, ...]:
    """Every background photograph found, decoded once and shrunk to at most 1,400 pixels."""
    paths = sorted(
        p for root in PHOTO_DIRS if root.is_dir() for p in root.rglob("*") if p.suffix.lower() in PHOTO_SUFFIXES
    )
    images = []
    for path in paths:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None or min(image.shape[:2]) < 200:
            continue
        scale = _MAX_SIDE / max(image.shape[:2])
        if scale < 1:
            image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        images.append(image)
    log.info("%d background photographs", len(images))
    return tuple(images)


def photo_crop(rng: np.random.Generator, size: int) -> np.ndarray | None:
    pool = photos()
    if not pool:
        return None
    image = pool[rng.integers(len(pool))]
    h, w = image.shape[:2]
    side = int(rng.uniform(0.25, 1.0) * min(h, w))
    x, y = int(rng.integers(0, w - side + 1)), int(rng.integers(0, h - side + 1))
    crop = cv2.resize(image[y : y + side, x : x + side], (size, size), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.5:
        crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
    return crop


def _smooth_noise(rng: np.random.Generator, size: int, scale: float) -> np.ndarray:
    cells = max(2, int(size / scale))
    small = rng.standard_normal((cells, cells)).astype(np.float32)
    return cv2.resize(small, (size, size), interpolation=cv2.INTER_CUBIC)


def _tint(rng: np.random.Generator, gray: np.ndarray, base: np.ndarray, spread: float) -> np.ndarray:
    image = base[None, None, :] * (1 + spread * gray[..., None])
    return np.clip(image, 0, 255).astype(np.uint8)


def felt(rng: np.random.Generator, size: int) -> np.ndarray:
    base = rng.uniform([20, 60, 10], [110, 160, 90])[rng.permutation(3)]
    grain = 0.6 * _smooth_noise(rng, size, 40) + 0.4 * rng.standard_normal((size, size)).astype(np.float32)
    return _tint(rng, grain, base, 0.12)


def wood(rng: np.random.Generator, size: int) -> np.ndarray:
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    warp = 12 * _smooth_noise(rng, size, 60)
    period = rng.uniform(5, 25)
    rings = np.sin((yy + warp + 0.15 * xx * rng.uniform(-1, 1)) / period * 2 * np.pi)
    fibres = cv2.GaussianBlur(rng.standard_normal((size, size)).astype(np.float32), (1, 9), 0)
    base = np.array([rng.uniform(20, 90), rng.uniform(50, 130), rng.uniform(90, 200)])
    out = _tint(rng, 0.5 * rings + 0.4 * fibres, base, 0.25)
    return out if rng.random() < 0.5 else np.ascontiguousarray(out.transpose(1, 0, 2))


def cloth(rng: np.random.Generator, size: int) -> np.ndarray:
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    period = rng.uniform(2.5, 8)
    weave = np.sin(xx / period * np.pi) * np.sin(yy / period * np.pi)
    base = rng.uniform(30, 230, 3)
    image = _tint(rng, 0.5 * weave + 0.3 * _smooth_noise(rng, size, 50), base, 0.2)
    if rng.random() < 0.3:  # a check or stripes
        stripe = ((xx // rng.uniform(10, 40)) % 2).astype(bool)
        image[stripe] = np.clip(image[stripe] * rng.uniform(0.6, 0.9), 0, 255).astype(np.uint8)
    return image


def stone(rng: np.random.Generator, size: int) -> np.ndarray:
    base = rng.uniform(60, 220) * np.ones(3) + rng.uniform(-15, 15, 3)
    speckle = cv2.GaussianBlur(rng.standard_normal((size, size)).astype(np.float32), (3, 3), 0)
    image = _tint(rng, 0.5 * speckle + 0.3 * _smooth_noise(rng, size, 30), base, 0.3)
    dots = rng.random((size, size)) < 0.02
    image[dots] = rng.integers(0, 255, 3)
    return image


def plain(rng: np.random.Generator, size: int) -> np.ndarray:
    """A plain top, pale (a white desk) or dark, with a little grain."""
    level = rng.uniform(200, 250) if rng.random() < 0.5 else rng.uniform(10, 90)
    base = level * np.ones(3) + rng.uniform(-20, 20, 3)
    return _tint(rng, 0.2 * _smooth_noise(rng, size, 80) + 0.05 * rng.standard_normal((size, size)), base, 0.1)


TEXTURES = (felt, wood, cloth, stone, plain)


def table(rng: np.random.Generator, size: int) -> np.ndarray:
    """A table top: half the time a photograph, else a drawn texture."""
    if rng.random() < 0.45:
        crop = photo_crop(rng, size)
        if crop is not None:
            return crop
    return TEXTURES[rng.integers(len(TEXTURES))](rng, size)
