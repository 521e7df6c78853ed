"""Deck-independent models of index glyphs: ranks and suits drawn in many typefaces, not taken
from any deck.

A commercial card's index is a rank (A K Q J 10 9 ... 2) over a suit symbol. Decks differ in the
typeface and in the suits' proportions, so the model is a set of *synthetic* examples: the ranks
and suit symbols set in the system's TrueType fonts (DejaVu and Liberation families, rendered with
``rsvg-convert`` when it is installed), OpenCV's Hershey fonts, and suit shapes drawn from
randomised parameters (lobe sizes, stem widths, proportions). Each example is degraded the way a
camera degrades an index (shrunk to 9-30 pixels tall, blurred, thinner or bolder, slightly turned
and stretched) and reduced to a :func:`glyph_vector`. A glyph is then classified by its nearest
examples (normalised correlation, plus the glyph's proportions), and a poor or ambiguous match is
reported as such rather than forced into a class.

No card deck is used: the decks the project tests on stay held out. Building the model takes a
few seconds; it is cached under ``~/.cache/croupier`` (:func:`glyph_model`).
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import cv2
import numpy as np

log = logging.getLogger(__name__)

GLYPH_W, GLYPH_H = 16, 24  # a glyph's normalised size (its proportions are kept aside)
RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
# Not ranks, but what the glyph nearest a joker's corner can be: "JK" (a joker index set on one
# line) and "O" (the second letter of "JOKER" set downwards, as many decks do).
JOKER_LETTERS = ("JK", "O")
SUITS = ("S", "C", "H", "D")
STAR = "*"
_VERSION = "8"  # bump when the examples or the vector change: the cache is keyed by it
_TOP_K = 5  # examples averaged per label
# How much a difference of log(width/height) costs against a correlation: less for ranks, whose
# two-character forms (10, JK) are set anywhere from wide to squeezed into one digit's width.
_ASPECT_WEIGHTS = {"rank": 0.3, "suit": 0.6, "black": 0.6}

# (family, weight, style): the system's text faces likely to resemble a card index.
_FONTS = (
    ("DejaVu Sans", "normal", "normal"),
    ("DejaVu Sans", "bold", "normal"),
    ("DejaVu Sans Condensed", "normal", "normal"),
    ("DejaVu Sans Condensed", "bold", "normal"),
    ("DejaVu Serif", "normal", "normal"),
    ("DejaVu Serif", "bold", "normal"),
    ("DejaVu Serif Condensed", "normal", "normal"),
    ("DejaVu Serif Condensed", "bold", "normal"),
    ("Liberation Sans", "normal", "normal"),
    ("Liberation Sans", "bold", "normal"),
    ("Liberation Sans Narrow", "normal", "normal"),
    ("Liberation Sans Narrow", "bold", "normal"),
    ("Liberation Serif", "normal", "normal"),
    ("Liberation Serif", "bold", "normal"),
    ("DejaVu Serif", "bold", "italic"),
    ("Liberation Serif", "normal", "italic"),
)
_HERSHEY = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
)
_SUIT_CHARS = {"S": "\u2660", "C": "\u2663", "H": "\u2665", "D": "\u2666", STAR: "\u2605"}


def glyph_vector(dark: np.ndarray) -> tuple[np.ndarray, float]:
    """A glyph's darkness (a tight crop, any size) as a zero-mean unit vector of its shape at
    ``GLYPH_W x GLYPH_H``, and its proportions log(width/height), which the resize throws away."""
    h, w = dark.shape
    small = cv2.resize(dark.astype(np.float32), (GLYPH_W, GLYPH_H), interpolation=cv2.INTER_AREA)
    # A slight blur: stroke weight and a pixel of misalignment matter less than the shape.
    small = cv2.GaussianBlur(small, (3, 3), 0.8)
    v = small.ravel() - small.mean()
    norm = float(np.linalg.norm(v))
    return (v / norm if norm > 0 else v).astype(np.float32), float(np.log(w / max(h, 1)))


_BINS = 8  # edge directions, modulo 180 degrees
_CELL = ((np.arange(32)[:, None] // 8) * 4 + np.arange(24)[None, :] // 6) * _BINS  # each pixel's cell, times _BINS


def glyph_gradients(dark: np.ndarray) -> np.ndarray:
    """Histograms of the glyph's edge directions in a 4 x 4 grid of cells (a small HOG, 128
    values, unit length): how its strokes run, which varies less between typefaces than where
    exactly its ink lies."""
    img = cv2.resize(dark.astype(np.float32), (24, 32), interpolation=cv2.INTER_AREA)
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)
    magnitude, angle = cv2.cartToPolar(gx, gy)
    bins = (angle * (_BINS / np.pi)).astype(np.int32) % _BINS
    # One weighted count over (cell, direction): a cell is 6 x 8 pixels of the 24 x 32 glyph.
    cells = np.bincount((_CELL + bins).ravel(), weights=magnitude.ravel(), minlength=16 * _BINS).astype(np.float32)
    norm = float(np.linalg.norm(cells))
    return cells / norm if norm > 0 else cells


@dataclass(frozen=True, slots=True)
class GlyphMatch:
    label: str
    score: float  # correlation with the label's nearest examples (less the proportions' penalty)
    probability: float  # the discriminative model's belief in the label, among the labels allowed
    distribution: dict[str, float] = field(default_factory=dict)  # every allowed label's probability


@dataclass(frozen=True, slots=True)
class GlyphModel:
    """Labelled example vectors (sorted by label) and a softmax model trained on them.

    Two views of one glyph: the softmax weighs the few pixels that tell similar labels apart (a
    spade's point against a club's top lobe), the nearest examples say whether the glyph is like
    any example at all (a picture's fragment is like none, however the softmax splits it)."""

    vectors: np.ndarray  # n x (GLYPH_W * GLYPH_H), float32
    aspects: np.ndarray  # n
    labels: np.ndarray  # n, index into names, non-decreasing
    names: tuple[str, ...]
    weights: np.ndarray  # (features + 1) x len(names); features: GLYPH_W * GLYPH_H + 128 + 1 (see _features)
    aspect_weight: float = 0.6  # see _ASPECT_WEIGHTS
    # A hidden layer (features + 1) x units, when the model has one (the club-or-spade model):
    # then ``weights`` is (units + 1) x len(names).
    hidden: np.ndarray | None = None
    spans: tuple[tuple[int, int], ...] = field(init=False)  # each label's rows

    def __post_init__(self) -> None:
        ends = np.searchsorted(self.labels, np.arange(len(self.names) + 1))
        object.__setattr__(self, "spans", tuple((int(ends[i]), int(ends[i + 1])) for i in range(len(self.names))))

    def match(self, dark: np.ndarray, allowed: frozenset[str] | None = None) -> GlyphMatch:
        """The best label for a glyph crop, optionally among ``allowed`` labels only."""
        v, aspect = glyph_vector(dark)
        g = glyph_gradients(dark)
        # The softmax's inputs are [10 v, 3 g, aspect, 1] (see _features), taken piecewise: this
        # runs a few times per card, and small array calls cost more than their arithmetic.
        n = len(v)
        w = self.weights if self.hidden is None else self.hidden
        logits = 10 * (v @ w[:n]) + 3 * (g @ w[n : n + len(g)]) + aspect * w[-2] + w[-1]
        if self.hidden is not None:
            logits = np.maximum(logits, 0) @ self.weights[:-1] + self.weights[-1]
        if allowed is not None:
            logits = np.where(_allowed_mask(self.names, allowed), logits, -np.inf)
        p = np.exp(logits - logits.max())
        p /= p.sum()
        best = int(p.argmax())
        start, end = self.spans[best]
        scores = self.vectors[start:end] @ v - self.aspect_weight * np.abs(self.aspects[start:end] - aspect)
        # The mean of the label's few best examples: one odd example must not decide alone.
        score = float(np.partition(scores, -_TOP_K)[-_TOP_K:].mean())
        names = self.names if allowed is None else allowed
        distribution = {name: float(p[self.names.index(name)]) for name in names if name in self.names}
        return GlyphMatch(self.names[best], score, float(p[best]), distribution)


@cache
def _allowed_mask(names: tuple[str, ...], allowed: frozenset[str] | None) -> np.ndarray:
    return np.array([allowed is None or n in allowed for n in names])


def _features(vectors: np.ndarray, gradients: np.ndarray, aspects: np.ndarray) -> np.ndarray:
    """Softmax inputs: the shape (scaled to unit-ish entries), the edge directions, the
    proportions, and a bias."""
    n = len(vectors)
    parts = [vectors * 10, gradients * 3, aspects.reshape(n, 1), np.ones((n, 1), np.float32)]
    return np.hstack(parts).astype(np.float32)


def _train_softmax(x: np.ndarray, y: np.ndarray, classes: int, steps: int = 300) -> np.ndarray:
    """Multinomial logistic regression, L2-regularised, full-batch Adam: about a second."""
    w = np.zeros((x.shape[1], classes), np.float32)
    m, v = np.zeros_like(w), np.zeros_like(w)
    onehot = np.eye(classes, dtype=np.float32)[y]
    for t in range(1, steps + 1):
        z = x @ w
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        grad = x.T @ (p - onehot) / len(x) + 1e-3 * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        w -= 0.05 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return w


def _train_mlp(
    x: np.ndarray, y: np.ndarray, classes: int, units: int, seed: int, steps: int = 1500
) -> tuple[np.ndarray, np.ndarray]:
    """One hidden layer of rectified units, then a softmax: minibatch Adam, L2-regularised
    (which keeps its probabilities from saturating on glyphs unlike its examples), a few
    seconds. ``x`` ends in a column of ones (see _features), so the hidden layer has its bias;
    returns the hidden layer and the output layer, whose last row is its bias."""
    rng = np.random.default_rng(seed + 7)
    hidden = (rng.normal(0, 1, (x.shape[1], units)) / np.sqrt(x.shape[1])).astype(np.float32)
    out = (rng.normal(0, 1, (units + 1, classes)) / np.sqrt(units)).astype(np.float32)
    out[-1] = 0
    params = [hidden, out]
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
    onehot = np.eye(classes, dtype=np.float32)[y]
    for t in range(1, steps + 1):
        batch = rng.choice(len(x), 512)
        xb, yb = x[batch], onehot[batch]
        h = np.maximum(xb @ hidden, 0)
        z = h @ out[:-1] + out[-1]
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        dz = (p - yb) / len(xb)
        grad_out = np.vstack([h.T @ dz, dz.sum(axis=0)]) + 3e-3 * out
        grad_hidden = xb.T @ ((dz @ out[:-1].T) * (h > 0)) + 3e-3 * hidden
        for param, grad, (m, v) in zip(params, (grad_hidden, grad_out), moments, strict=True):
            m *= 0.9
            m += 0.1 * grad
            v *= 0.999
            v += 0.001 * grad**2
            param -= 0.003 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return hidden, out


# ---- synthetic examples ------------------------------------------------------------------------


def _font_glyphs(texts: tuple[str, ...]) -> list[list[np.ndarray]]:
    """Each text set in every TrueType face (one ``rsvg-convert`` call), as ink masks 0..1 cut
    to their ink; [] when the renderer is missing."""
    if shutil.which("rsvg-convert") is None:
        log.warning("rsvg-convert not installed: glyph models use OpenCV's Hershey fonts only")
        return []
    cell = 160
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{cell * len(texts)}" height="{cell * len(_FONTS)}">']
    for row, (family, weight, style) in enumerate(_FONTS):
        for col, text in enumerate(texts):
            parts.append(
                f'<text x="{col * cell + 20}" y="{row * cell + 120}" font-family="{family}" font-weight="{weight}" '
                f'font-style="{style}" font-size="100">{text}</text>'
            )
    parts.append("</svg>")
    done = subprocess.run(
        ["rsvg-convert", "-f", "png"], input="".join(parts).encode(), capture_output=True, check=False, timeout=60
    )
    image = cv2.imdecode(np.frombuffer(done.stdout, np.uint8), cv2.IMREAD_UNCHANGED) if done.stdout else None
    if done.returncode != 0 or image is None or image.ndim != 3 or image.shape[2] != 4:
        log.warning("rsvg-convert failed: glyph models use OpenCV's Hershey fonts only")
        return []
    alpha = image[..., 3].astype(np.float32) / 255
    out = []
    for row in range(len(_FONTS)):
        glyphs = []
        for col in range(len(texts)):
            glyph = _ink_crop(alpha[row * cell : (row + 1) * cell, col * cell : (col + 1) * cell])
            if glyph is not None:
                glyphs.append(glyph)
        out.append(glyphs)
    return out


def _ink_crop(mask: np.ndarray) -> np.ndarray | None:
    ys, xs = np.nonzero(mask > 0.3)
    if len(xs) == 0:
        return None
    return mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _side_by_side(a: np.ndarray, b: np.ndarray, gap: float) -> np.ndarray:
    """Two glyphs on one baseline, ``gap`` (a share of their height) apart; overlap if negative."""
    h = max(a.shape[0], b.shape[0])
    step = a.shape[1] + round(gap * h)
    out = np.zeros((h, max(step + b.shape[1], a.shape[1])), np.float32)
    out[h - a.shape[0] :, : a.shape[1]] = a
    region = out[h - b.shape[0] :, step : step + b.shape[1]]
    np.maximum(region, b, out=region)
    return out


def _hershey(text: str, font: int, thickness: int) -> np.ndarray:
    scratch = np.zeros((140, 90 * len(text) + 40), np.uint8)
    cv2.putText(scratch, text, (10, 110), font, 3.0, 255, thickness, cv2.LINE_AA)
    crop = _ink_crop(scratch.astype(np.float32) / 255)
    assert crop is not None
    return crop


_DRAWN_RANKS = ("3", "4", "10", "Q")


def _drawn_rank(label: str, rng: np.random.Generator) -> np.ndarray:
    """A rank drawn as strokes from randomised proportions, in forms card indices often use and
    the system's fonts lack: a flat-topped 3 (a bar, a diagonal, a lower bowl), an open 4 (the
    upright apart from the diagonal), a 10 of a plain bar beside an oval, a Q with its tail
    across the bowl. Generic letterforms, not any deck's glyphs."""
    u = rng.uniform
    s = 100.0
    img = np.zeros((200, 240), np.uint8)
    t = max(2, round(u(0.08, 0.16) * s))  # stroke width
    w = u(0.55, 0.8)  # the glyph's width, a share of its height

    def pt(x: float, y: float) -> tuple[int, int]:
        return (round((30 + x * s) * 16), round((30 + y * s) * 16))

    def line(*points: tuple[float, float]) -> None:
        pts = np.array([pt(x, y) for x, y in points], np.int32)
        cv2.polylines(img, [pts], False, 255, t, cv2.LINE_AA, 4)

    def arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, width: int = 0) -> None:
        axes = (round(rx * s * 16), round(ry * s * 16))
        cv2.ellipse(img, pt(cx, cy), axes, 0, a0, a1, 255, width or t, cv2.LINE_AA, 4)

    if label == "3":
        # Thin or bold; the bowl from just over a third of the height to past half.
        t = max(2, round(u(0.05, 0.16) * s))
        bowl = u(0.38, 0.6)  # where the bowl's top meets the diagonal
        line((0.05 * w, 0.0), (w, 0.0), (u(0.3, 0.5) * w, bowl - 0.05))
        r = (1 - bowl + 0.05) / 2
        arc(w / 2, 1 - r, w / 2, r, -110 if rng.random() < 0.5 else -90, 140)
    elif label == "4":
        bar, stem = u(0.62, 0.75), u(0.6, 0.75) * w
        top = u(0.0, 0.35) if rng.random() < 0.6 else 0.0  # the upright starts below the diagonal's top
        line((stem - u(0.0, 0.15) * w, 0.0), (0.0, bar), (w, bar))
        line((stem, top), (stem, 1.0))
        if rng.random() < 0.3:
            line((stem - 0.2 * w, 1.0), (min(w, stem + 0.2 * w), 1.0))  # a foot serif
    elif label == "10":
        gap = u(0.04, 0.2)
        line((0.0, 0.0), (0.0, 1.0))
        if rng.random() < 0.4:
            line((0.0, 0.0), (-0.15, u(0.1, 0.2)))  # a small flag
        ow = u(0.45, 0.7)
        arc(gap + ow / 2 + t / (2 * s), 0.5, ow / 2, 0.5, 0, 360)
    elif label == "Q":
        arc(w / 2, 0.48, w / 2, 0.48, 0, 360)
        line((w * u(0.45, 0.6), u(0.6, 0.75)), (w * u(0.85, 1.05), u(0.95, 1.08)))
    crop = _ink_crop(img.astype(np.float32) / 255)
    assert crop is not None
    return crop


def _drawn_suit(suit: str, rng: np.random.Generator) -> np.ndarray:
    """A suit symbol from randomised proportions: the shapes' topology (a club's three lobes and
    stem, a spade's point and stem, a heart's two lobes, a diamond's four corners) is what every
    deck shares, the rest varies."""
    s = 100.0
    img = np.zeros((260, 260), np.uint8)
    c = 130.0

    def poly(points: list[tuple[float, float]]) -> None:
        pts = np.array([[c + x * s, c + y * s] for x, y in points]) * 16
        cv2.fillPoly(img, [np.round(pts).astype(np.int32)], 255, cv2.LINE_AA, shift=4)

    def disc(x: float, y: float, r: float) -> None:
        centre = (round((c + x * s) * 16), round((c + y * s) * 16))
        cv2.circle(img, centre, round(r * s * 16), 255, -1, cv2.LINE_AA, 4)

    u = rng.uniform
    if suit == "D":
        w = u(0.55, 0.85)
        bulge = u(0.0, 0.12)  # some decks curve a diamond's sides inwards
        poly([(0, -1), (w / 2 - bulge, -0.5 + bulge), (w, 0), (w / 2 - bulge, 0.5 - bulge), (0, 1),
              (-w / 2 + bulge, 0.5 - bulge), (-w, 0), (-w / 2 + bulge, -0.5 + bulge)])  # fmt: skip
    elif suit == "H":
        r, dx, dy = u(0.42, 0.55), u(0.38, 0.5), u(-0.45, -0.3)
        disc(-dx, dy, r)
        disc(dx, dy, r)
        poly([(-dx - r * 0.98, dy + 0.15), (dx + r * 0.98, dy + 0.15), (0, u(0.85, 1.0))])
        poly([(-dx, dy), (dx, dy), (0, dy + 0.2)])
    elif suit == "S":
        r, dx, dy = u(0.38, 0.5), u(0.38, 0.5), u(0.15, 0.3)
        disc(-dx, dy, r)
        disc(dx, dy, r)
        poly([(-dx - r * 0.98, dy - 0.12), (dx + r * 0.98, dy - 0.12), (0, -1.0)])
        stem = u(0.12, 0.35)
        if rng.random() < 0.5:
            poly([(0, dy), (-stem, 1.0), (stem, 1.0)])
        else:  # a thin stalk on a flared foot
            stalk = u(0.04, 0.1)
            poly([(-stalk, dy), (stalk, dy), (stalk, 0.75), (-stalk, 0.75)])
            poly([(0, u(0.45, 0.7)), (-stem, 1.0), (stem, 1.0)])
    elif suit == "C":
        r = u(0.3, 0.48)  # large lobes overlap, small ones stand apart
        spread = u(0.32, 0.5)
        disc(0, u(-0.6, -0.4), r)
        low = u(0.0, 0.2)
        disc(-spread, low, r)
        disc(spread, low, r)
        disc(0, low - 0.05, r * u(0.0, 0.6))  # some clubs fill where the lobes meet
        stem = u(0.12, 0.35)
        if rng.random() < 0.5:
            poly([(0, u(-0.1, 0.3)), (-stem, 1.0), (stem, 1.0)])
        else:  # a thin stalk on a flared foot
            stalk = u(0.04, 0.1)
            poly([(-stalk, low), (stalk, low), (stalk, 0.75), (-stalk, 0.75)])
            poly([(0, u(0.45, 0.7)), (-stem, 1.0), (stem, 1.0)])
    else:
        outer = [(np.sin(a), -np.cos(a)) for a in np.linspace(0, 2 * np.pi, 6)[:-1]]
        k = u(0.35, 0.5)
        inner = [(k * np.sin(a), -k * np.cos(a)) for a in np.linspace(np.pi / 5, 2 * np.pi + np.pi / 5, 6)[:-1]]
        poly([p for pair in zip(outer, inner, strict=True) for p in pair])
    crop = _ink_crop(img.astype(np.float32) / 255)
    assert crop is not None
    return crop


def _degraded(glyph: np.ndarray, rng: np.random.Generator, smallest: float = 8.0) -> np.ndarray:
    """A high-resolution ink mask as a camera would deliver it inside a warped card: turned a
    little, stretched, bolder or thinner, shrunk to a few pixels (``smallest`` and up), blurred,
    then enlarged to the canonical card's scale; returned as darkness (0..255) cut to its ink."""
    g = cv2.copyMakeBorder(glyph, 12, 12, 12, 12, cv2.BORDER_CONSTANT, value=0)
    angle = rng.uniform(-5, 5)
    stretch = np.exp(rng.uniform(-0.35, 0.15))  # card indices are often condensed
    h, w = g.shape
    g = cv2.warpAffine(g, cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0), (w, h), flags=cv2.INTER_LINEAR)
    g = cv2.resize(g, (max(1, round(w * stretch)), h), interpolation=cv2.INTER_AREA)
    k = int(rng.integers(-3, 4))
    if k:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(k) + 1, 2 * abs(k) + 1))
        g = cv2.dilate(g, kernel) if k > 0 else cv2.erode(g, kernel)
    seen_h = rng.uniform(smallest, 28)  # the glyph's height in camera pixels
    f = seen_h / h
    small = cv2.resize(g, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    sigma = rng.uniform(0.0, 0.9)
    if sigma > 0.2:
        small = cv2.GaussianBlur(small, (0, 0), sigma)
    up = rng.uniform(1.2, 2.5)  # the warp to the canonical card enlarges it again
    big = cv2.resize(small, None, fx=up, fy=up, interpolation=cv2.INTER_LINEAR)
    dark = np.clip(big * rng.uniform(150, 230) + rng.normal(0, 4, big.shape), 0, 255)
    return _crop_to_ink(dark)


def _crop_to_ink(dark: np.ndarray) -> np.ndarray:
    """The tight box of a glyph's ink, judged as the reader judges it (half the darkest value)."""
    ink = dark > 0.5 * dark.max()
    ys, xs = np.nonzero(ink)
    return dark[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _examples(per_glyph: int, seed: int) -> dict[str, dict[str, list[np.ndarray]]]:
    """High-resolution ink masks per kind ("rank", "suit") and label."""
    rng = np.random.default_rng(seed)
    ranks: dict[str, list[np.ndarray]] = {r: [] for r in RANKS + JOKER_LETTERS}
    for font_row in _font_glyphs((*RANKS, *JOKER_LETTERS, "1", "0")):
        if len(font_row) == len(ranks) + 2:
            for label, glyph in zip(ranks, font_row, strict=False):
                ranks[label].append(glyph)
            # Card makers squeeze a 10 into the width of one digit: the digits closer or apart.
            one, zero = font_row[-2:]
            for gap in (-0.04, 0.04, 0.12):
                ranks["10"].append(_side_by_side(one, zero, gap))
    for font in _HERSHEY:
        for thickness in (4, 8, 12):
            for label in ranks:
                ranks[label].append(_hershey(label, font, thickness))
    for label in _DRAWN_RANKS:
        ranks[label].extend(_drawn_rank(label, rng) for _ in range(per_glyph // 2))
    suit_labels = (*SUITS, STAR)
    suits: dict[str, list[np.ndarray]] = {s: [] for s in suit_labels}
    for font_row in _font_glyphs(tuple(_SUIT_CHARS[s] for s in suit_labels)):
        if len(font_row) == len(suits):
            for label, glyph in zip(suits, font_row, strict=True):
                suits[label].append(glyph)
    for label in suit_labels:
        # Clubs and spades are the pair that blur into each other: twice the variety.
        count = 2 * per_glyph if label in ("C", "S") else per_glyph
        suits[label].extend(_drawn_suit(label, rng) for _ in range(count))
    return {"rank": ranks, "suit": suits}


# The club-or-spade model: its examples seen down to this many camera pixels tall (an index's
# suit at 720p is 7-9 px), this many degradations of each, and a hidden layer of this many units.
_BLACK_SMALLEST = 5.5
_BLACK_VARIANTS = 24
_BLACK_UNITS = 64


def build_models(variants: int = 6, seed: int = 0) -> dict[str, GlyphModel]:
    """The rank and suit models from synthetic examples, ``variants`` degradations of each
    (softmax); and a club-or-spade model ("black") trained on those two alone, seen smaller
    and more often, with a hidden layer: the pair a blur confuses most (at 7 px a club's three
    lobes make a cross, a spade a drop), which a linear model of five suits weighs too little.
    The black model keeps every other example for its nearest-example score, so that matching
    costs no more than the others'."""
    rng = np.random.default_rng(seed + 1)
    models = {}
    examples = _examples(per_glyph=30, seed=seed)
    examples["black"] = {s: examples["suit"][s] for s in ("C", "S")}
    for kind, by_label in examples.items():
        black = kind == "black"
        names = tuple(by_label)
        vectors, gradients, aspects, labels = [], [], [], []
        for i, name in enumerate(names):
            for glyph in by_label[name]:
                for _ in range(_BLACK_VARIANTS if black else variants):
                    seen = _degraded(glyph, rng, _BLACK_SMALLEST) if black else _degraded(glyph, rng)
                    v, a = glyph_vector(seen)
                    vectors.append(v)
                    gradients.append(glyph_gradients(seen))
                    aspects.append(a)
                    labels.append(i)
        x, a, y = np.array(vectors, np.float32), np.array(aspects, np.float32), np.array(labels, np.int32)
        features = _features(x, np.array(gradients, np.float32), a)
        if black:
            hidden, weights = _train_mlp(features, y, len(names), _BLACK_UNITS, seed)
            keep = slice(None, None, 2)
            models[kind] = GlyphModel(x[keep], a[keep], y[keep], names, weights, _ASPECT_WEIGHTS[kind], hidden)
        else:
            weights = _train_softmax(features, y, len(names))
            models[kind] = GlyphModel(x, a, y, names, weights, _ASPECT_WEIGHTS[kind])
    return models


def _cache_path() -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return root / "croupier" / f"glyphs-v{_VERSION}.npz"


@cache
def glyph_model() -> dict[str, GlyphModel]:
    """The rank and suit models, built once and then loaded from the cache."""
    path = _cache_path()
    if path.is_file():
        try:
            with np.load(path) as data:
                return {
                    kind: GlyphModel(
                        data[f"{kind}_vectors"],
                        data[f"{kind}_aspects"],
                        data[f"{kind}_labels"],
                        tuple(str(n) for n in data[f"{kind}_names"]),
                        data[f"{kind}_weights"],
                        _ASPECT_WEIGHTS[kind],
                        data.get(f"{kind}_hidden"),
                    )
                    for kind in _ASPECT_WEIGHTS
                }
        except (OSError, KeyError, ValueError) as exc:
            log.warning("glyph model cache %s unreadable (%s): rebuilding", path, exc)
    models = build_models()
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {}
    for kind, m in models.items():
        arrays |= {
            f"{kind}_vectors": m.vectors,
            f"{kind}_aspects": m.aspects,
            f"{kind}_labels": m.labels,
            f"{kind}_names": np.array(m.names),
            f"{kind}_weights": m.weights,
        }
        if m.hidden is not None:
            arrays[f"{kind}_hidden"] = m.hidden
    partial = path.with_suffix(".tmp.npz")
    np.savez_compressed(partial, **arrays)
    partial.replace(path)  # atomic: a reader never sees half a file
    return models
