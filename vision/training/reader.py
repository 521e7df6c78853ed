"""The index reader: a small classifier of upright index crops (PyTorch, for training only), and
its training, ``python -m vision.training.reader`` (see ``--help``).

The detector finds indices, their size and which way is up; the reader reads each one from a
crop cut upright (:func:`vision.index_crops.upright_crop`), where a glyph's shape no longer
depends on how the card lies. It also says when a crop is no index at all (class ``N``: a pip, a
picture, a texture, an index upside down), a second opinion against phantoms. Input (N, 3, 40,
32) in [0, 1]; output 15 rank logits (the detector's 14 and ``N``) and 6 suit logits.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import math
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, IterableDataset

from vision.index_crops import INDEX_ONLY, SPECS, CropSpec, upright_crop, write_spec
from vision.photo_set import index_scale
from vision.training import synth
from vision.training.runs import Run, export_onnx, run_main, run_parser, share
from vision.training.targets import RANKS, SUITS, rank_class, suit_class

log = logging.getLogger("vision.training")

NONE = len(RANKS)  # the rank class of a crop that is no index
READER_RANKS = len(RANKS) + 1
TURN_OUTPUTS = 2  # the crop's turn from upright: sine, cosine
# How far the crops a reader learns from are turned off upright: half as a detector's good
# guess is (this spread), half anywhere up to WIDE, as its guess on a small index can be.
NEAR, WIDE = 8.0, 60.0
# A joker's index wider than this many times its height is a word written across the card, whose
# first letter's centre lies this many word heights from the word's start (a capital's width is
# about half to two thirds of its height).
ACROSS, FIRST_LETTER = 1.8, 0.35
JOKER_PLACES = 4  # the most places a training photo's joker is taught at (--joker-words)
# A real photo's joker is taught as a joker, not as which one: the photographed deck's two jokers
# look alike, and its labels call nearly all of them LJ (the generator's red joker is BJ).
UNTOLD = -1
# A training photo shrunk (--real-lowres) makes its indices this many pixels tall at the least, as
# a camera further off or of fewer pixels sees them (the generator's smallest index is 11 px), and
# at the most this many, where the reader's crop (32 px an index) starts to be a close-up.
FEWEST_PIXELS, SHRUNK_TO_AT_MOST = 12.0, 32.0


def conv_bn(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class ReaderNet(nn.Module):
    def __init__(
        self,
        width: int = 16,
        crop: CropSpec = INDEX_ONLY,
        turn: bool = True,
        stages: tuple[int, int, int] | None = None,
    ) -> None:
        super().__init__()
        a, b, c = stages or (width, 2 * width, 4 * width)  # channels at full, half and quarter size
        self.crop = crop
        outputs = READER_RANKS + len(SUITS) + (TURN_OUTPUTS if turn else 0)
        self.body = nn.Sequential(
            conv_bn(3, a), conv_bn(a, a), nn.MaxPool2d(2),
            conv_bn(a, b), conv_bn(b, b), nn.MaxPool2d(2),
            conv_bn(b, c), conv_bn(c, c), nn.MaxPool2d(2),
        )  # fmt: skip
        self.head = nn.Sequential(
            nn.Flatten(), nn.Linear(c * (crop.height // 8) * (crop.width // 8), 128), nn.ReLU(inplace=True),
            nn.Linear(128, outputs),
        )  # fmt: skip

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


# The tallest a synthetic crop is cut, as a share of its index's height (--taller); the shortest
# is SHORTEST. A crop cut taller than the reader was taught shows the suit smaller than it learned
# it, and the table cuts crops up to 1.25 times the view's median height (vision.index_readers).
TALLER = 1.18
SHORTEST = 0.85


def _jittered(rng: np.random.Generator, label: synth.IndexLabel, taller: float = TALLER) -> tuple:
    """A label's centre, height and angle as a detector would give them, a little off (its
    angle sometimes far off), and how far off that angle is (degrees)."""
    h = label.height * rng.uniform(SHORTEST, taller)
    cx = label.centre[0] + rng.normal(0, 0.08) * label.height
    cy = label.centre[1] + rng.normal(0, 0.08) * label.height
    off = rng.normal(0, NEAR) if rng.random() < 0.5 else rng.uniform(-WIDE, WIDE)
    return (cx, cy), h, (label.angle_deg + off) % 360, off


KNOWN, EITHER, NEITHER = 0, 1, 2  # a pair's first crop is the upright one / one of the two is / neither is an index


def _pair(image: np.ndarray, centre, h: float, angle: float, crop: CropSpec) -> np.ndarray:
    """The crop at ``angle`` and the crop turned half a turn, as one (2, H, W, 3) array."""
    return np.stack([upright_crop(image, centre, h, angle, crop), upright_crop(image, centre, h, angle + 180, crop)])


# How far off a place found in a photo is cut: the centre by this share of the height (standard
# deviation), the height by a factor between the two, the up direction by this many degrees (standard
# deviation). As a detector that found it well cuts it, or (--real-wide) as far off as a synthetic
# index's crop (:func:`_jittered`, its angle as a good guess's).
AS_FOUND = (0.06, 0.9, 1.12, 6.0)
AS_DRAWN = (0.08, SHORTEST, TALLER, NEAR)


def _found_pair(rng: np.random.Generator, image: np.ndarray, place: tuple, crop: CropSpec, off: tuple) -> np.ndarray:
    """The pair of crops at a place found in a photo (centre, height, up direction), cut ``off``."""
    (cx, cy), h, up = place
    shift, low, high, turn = off
    centre = (cx + rng.normal(0, shift) * h, cy + rng.normal(0, shift) * h)
    return _pair(image, centre, h * rng.uniform(low, high), up + rng.normal(0, turn), crop)


def first_letter(label: synth.IndexLabel) -> synth.IndexLabel:
    """Where the first letter of a joker's word written across the card lies, as an index of the
    word's height: the detector's surest peak on such a word is often its J, which a reader
    taught only the word's middle reads as a jack's index."""
    a = math.radians(label.angle_deg)
    right = (math.cos(a), math.sin(a))  # along the word, for an up direction of angle_deg
    along = -label.width / 2 + FIRST_LETTER * label.height
    centre = (label.centre[0] + along * right[0], label.centre[1] + along * right[1])
    return dataclasses.replace(label, centre=centre, width=label.height)


def _taught_places(labels: list[synth.IndexLabel], joker_words: bool) -> list[synth.IndexLabel]:
    """A scene's clearly visible indices, and with ``joker_words`` the first letter of each
    joker's word written across the card besides its middle."""
    targets = [label for label in labels if label.state == "target"]
    if joker_words:
        targets += [first_letter(lb) for lb in targets if lb.card.is_joker and lb.width > ACROSS * lb.height]
    return targets


def scene_pairs(
    rng: np.random.Generator,
    image: np.ndarray,
    labels: list[synth.IndexLabel],
    crop: CropSpec = INDEX_ONLY,
    joker_words: bool = False,
    taller: float = TALLER,
) -> list[tuple]:
    """(pair, rank class, suit class, kind, turn) from one scene: every clearly visible index
    upright and upside down (no index) with how far its upright crop is turned, and crops off
    every index (no index either way; turn NaN: unknown). ``joker_words``: a joker's word across
    the card is taught at its first letter too (:func:`first_letter`). ``taller``: the tallest an
    index's crop is cut, as a share of its height."""
    out = []
    targets = _taught_places(labels, joker_words)
    for label in targets:
        centre, h, angle, off = _jittered(rng, label, taller)
        pair = _pair(image, centre, h, angle, crop)
        out.append((pair, rank_class(label.card), suit_class(label.card), KNOWN, off))
    heights = [label.height for label in labels] or [25.0]
    size = image.shape[0]
    for _ in range(max(1, len(targets) // 2)):
        point = rng.uniform(0, size, 2)
        h = float(rng.choice(heights)) * rng.uniform(0.8, 1.25)
        if any(math.dist(point, label.centre) < 0.7 * label.height for label in labels):
            continue
        out.append((_pair(image, tuple(point), h, rng.uniform(0, 360), crop), NONE, 0, NEITHER, math.nan))
    return out


def real_pairs(
    rng: np.random.Generator,
    image: np.ndarray,
    found: list[tuple],
    crop: CropSpec = INDEX_ONLY,
    grey_mix: bool = False,
    wide: float = 0.0,
) -> list[tuple]:
    """Pairs from a training photo: each labelled index where the detector found it, at the up
    direction the detector gave (which may be half a turn off: the loss takes either way).
    ``wide``: with this chance a crop is cut as far off as a synthetic index's (``AS_DRAWN``), not
    as a detector that found it well cuts it (``AS_FOUND``)."""
    out = []
    for card, centre, h, up in found:
        # No draw for the choice unless asked: the shipped reader's command then cuts the crops it always did.
        far = wide > 0 and rng.random() < wide
        pair = _found_pair(rng, image, (centre, h, up), crop, AS_DRAWN if far else AS_FOUND)
        suit = UNTOLD if card.is_joker else suit_class(card)
        out.append((_shaken(rng, pair, grey_mix), rank_class(card), suit, EITHER, math.nan))
    return out


def fewer_pixels(rng: np.random.Generator, image: np.ndarray, found: list[tuple]) -> tuple[np.ndarray, list[tuple]]:
    """A training photo as a camera of fewer pixels would take it: shrunk so that its indices are
    12-32 px tall (never enlarged), and half the time saved as a JPEG, with where its indices now
    lie (heights as the detector measures them). Nine in ten of the photos' indices are taller than
    the 32 px the reader's crop gives an index (a run folder's ``real_indices.json`` holds their
    heights), so the photographed deck's glyphs are otherwise never seen at few pixels."""
    if not found:
        return image, found
    h = float(np.median([f[2] for f in found]))
    most = min(h, SHRUNK_TO_AT_MOST)
    if most <= FEWEST_PIXELS:
        return image, found
    f = math.exp(rng.uniform(math.log(FEWEST_PIXELS), math.log(most))) / h
    small = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    if rng.random() < 0.5:
        quality = int(rng.integers(30, 91))
        small = cv2.imdecode(cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)
    shrunk = [(card, ((cx + 0.5) * f - 0.5, (cy + 0.5) * f - 0.5), hh * f, up) for card, (cx, cy), hh, up in found]
    return small, shrunk


def _shaken(rng: np.random.Generator, pair: np.ndarray, grey_mix: bool = False) -> np.ndarray:
    """Light, blur and noise, as a camera varies them; a fifth made grey (``grey_mix``: weighing
    the colours at random, :func:`synth.grey_weights`; else alike)."""
    x = pair.astype(np.float32) * rng.uniform(0.7, 1.2, 3) + rng.uniform(-25, 25)
    if rng.random() < 0.4:
        x = np.stack([cv2.GaussianBlur(c, (0, 0), rng.uniform(0.3, 1.0)) for c in x])
    x += rng.normal(0, rng.uniform(0, 8), x.shape)
    if rng.random() < 0.2:  # grey
        if grey_mix:
            x = np.repeat((x @ synth.grey_weights(rng).astype(np.float32))[..., None], 3, axis=3)
        else:
            x = np.repeat(x.mean(axis=3, keepdims=True), 3, axis=3)
    return np.clip(x, 0, 255).astype(np.uint8)


# A synthetic scene's false peaks are looked for at one of these scales too: a pyramid's octave
# steps (vision.scales.pyramid_scales), where a photo's pips pass for indices.
OTHER_SCALES = (0.5, 0.71, 1.41, 2.0)


# Where the detector's false peaks come from (--hard-negatives): the one the table runs.
def _table_detector():
    from vision.indices import IndexDetector
    from vision.networks import default_model

    return IndexDetector(default_model("onnxruntime"), backend="onnxruntime", read_upright=False)


def false_peaks(reads: list, indices: list[tuple[tuple[float, float], float]]) -> list[tuple]:
    """The detector's peaks (``reads``) that lie on no index (``indices``: centre and size, its
    longer side, every index in the image, however little of it is in view): each (centre,
    height, up direction), surest first. Most are a pip, a court picture's glyph or a speck of
    texture, which the detector takes for an index now and then and the reader should call no
    index. (The longer side: a joker's index may be a word across the card, whose letters lie
    further from its centre than its height, and are its index all the same.) One place seen at
    several scales is one peak (the surest), not several taught alike."""
    from vision.scales import suppress

    away = [r for r in reads if all(math.dist(r.centre, centre) > 0.7 * max(h, r.height) for centre, h in indices)]
    once = suppress(away, weights=[r.heat for r in away])
    return [(r.centre, r.height, r.up_deg) for r in sorted(once, key=lambda r: -r.heat)]


def negative_pairs(
    rng: np.random.Generator, image: np.ndarray, peaks: list[tuple], crop: CropSpec = INDEX_ONLY
) -> list[tuple]:
    """No-index pairs (both crops no index) at each of ``peaks`` (:func:`false_peaks`, as many as
    :func:`_some_of` chose), cut as the table would cut them, a little off."""
    return [(_found_pair(rng, image, place, crop, AS_FOUND), NONE, 0, NEITHER, math.nan) for place in peaks]


# The height (px) the training photos' indices are brought to for the detector to find them: the
# table's scale when the shipped reader was trained (30 px; the table now runs at 24, BEST_HEIGHT),
# kept so that the reader's command, given the detector it was trained with, makes the same reader.
FIND_AT = 30.0


def photo_false_peaks(photos: list) -> dict[str, list[tuple]]:
    """For each training photo, the table's detector's peaks on no labelled or listed index, at
    the table's scale (:data:`vision.scales.BEST_HEIGHT`) and at each scale of a photo's pyramid
    (:func:`vision.scales.pyramid_scales`), where most of them lie: a pip or a court picture's
    glyph looks like an index at a scale the indices are not: (centre, height, up direction)."""
    from vision.scales import BEST_HEIGHT, pyramid_scales

    detector = _table_detector()
    out: dict[str, list[tuple]] = {}
    for photo in photos:
        boxes = photo.taught_boxes()
        image = photo.image()
        scales = [index_scale(boxes, BEST_HEIGHT), *pyramid_scales(image.shape)]
        reads = [r for scale in scales for r in detector.detect(image, scale)]
        indices = [(((x0 + x1) / 2, (y0 + y1) / 2), max(x1 - x0, y1 - y0)) for _, (x0, y0, x1, y1) in boxes]
        out[photo.name] = false_peaks(reads, indices)
    return out


def detector_finds(detector_path: Path, photos: list, joker_words: bool = False) -> dict[str, list[tuple]]:
    """For each training photo, its labelled indices the detector finds: (card, centre, height,
    up direction), the surest peak in each index's box; with ``joker_words``, a joker's box is
    taught at every place the detector finds in it (:func:`_joker_word_peaks`). Worked out once
    per run (the run folder keeps it)."""
    from vision.indices import IndexDetector

    detector = IndexDetector(detector_path, read_upright=False)
    found: dict[str, list[tuple]] = {}
    for photo in photos:
        image = photo.image()
        boxes = photo.taught_boxes()
        reads = detector.detect(image, index_scale(boxes, FIND_AT))
        word_reads = None  # every scale a photo is read at, looked at once a photo, for its jokers
        kept = []
        for card, (x0, y0, x1, y1) in boxes:
            if joker_words and card.is_joker:
                if word_reads is None:
                    word_reads = _at_photo_scales(detector, image, boxes)
                taught = _joker_word_peaks(word_reads, (x0, y0, x1, y1))
            else:
                inside = [r for r in reads if x0 <= r.centre[0] <= x1 and y0 <= r.centre[1] <= y1]
                taught = [max(inside, key=lambda r: r.heat)] if inside else []
            kept += [(str(card), r.centre, r.height, r.up_deg) for r in taught]
        found[photo.name] = kept
    return found


def _at_photo_scales(detector, image: np.ndarray, boxes) -> list:
    """The detector's reads of a training photo at the scales a photo is read at: its pyramid's,
    and those that bring its labelled indices to the sizes the detector is taught at and reads best."""
    from vision.scales import BEST_HEIGHT, pyramid_scales

    scales = [index_scale(boxes, FIND_AT), index_scale(boxes, BEST_HEIGHT), *pyramid_scales(image.shape)]
    return [r for scale in scales for r in detector.detect(image, scale)]


def _joker_word_peaks(reads: list, box: tuple[float, float, float, float]) -> list:
    """The places of ``reads`` a photo's joker is taught at, surest first: the photographed deck's
    joker is the word "Joker" across the card, boxed whole, and at the scales a photo is read at
    the detector finds its J, its middle and its end, each of which the reader must read as the
    joker. A peak is kept when it is a letter's size or the word's (a quarter of the box's height to
    all of it, not the whole card's top) and half its height from every place kept before it."""
    x0, y0, x1, y1 = box
    inside = [
        r for r in reads if x0 <= r.centre[0] <= x1 and y0 <= r.centre[1] <= y1 and 0.25 <= r.height / (y1 - y0) <= 1.0
    ]
    kept: list = []
    for r in sorted(inside, key=lambda r: -r.heat):
        if all(math.dist(r.centre, k.centre) > 0.5 * min(r.height, k.height) for k in kept):
            kept.append(r)
    return kept[:JOKER_PLACES]


class Crops(IterableDataset):
    def __init__(
        self,
        seed: int,
        start_step: int,
        real: dict[str, list[tuple]],
        real_share: float,
        crop: CropSpec = INDEX_ONLY,
        grey: float = 0.0,
        hard: int = 0,
        false: dict[str, list[tuple]] | None = None,
        joker_words: bool = False,
        grey_mix: bool = False,
        taller: float = TALLER,
        real_lowres: float = 0.0,
        real_wide: float = 0.0,
    ) -> None:
        self.seed, self.start_step, self.real, self.real_share = seed, start_step, real, real_share
        self.crop = crop
        self.grey = grey  # the share of synthetic scenes made grey besides the generator's own
        # Up to this many of the table detector's false peaks a scene or photo taught as no index
        # (``false``: the training photos', :func:`photo_false_peaks`; a scene's are found as drawn).
        self.hard = hard
        self.false = false or {}
        self.joker_words = joker_words  # a joker's word across the card taught at its first letter too
        self.grey_mix = grey_mix  # grey crops weigh the colours at random (synth.grey_weights)
        self.taller = taller  # the tallest a synthetic index's crop is cut, as a share of its height
        self.real_lowres = real_lowres  # the share of photo samples shrunk first (fewer_pixels)
        self.real_wide = real_wide  # the share of photo crops cut as far off as synthetic ones

    def __iter__(self):
        from engine.cards import Card
        from vision import photo_set

        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.seed, self.start_step, info.id if info else 0, 7])
        pool = synth.FacePool(rng)
        photos = {p.name: p for p in photo_set.load()} if self.real else {}
        names = sorted(n for n, f in self.real.items() if f)
        images: dict[str, np.ndarray] = {}
        detector = _table_detector() if self.hard else None
        while True:
            if names and rng.random() < self.real_share:
                name = names[int(rng.integers(len(names)))]
                if name not in images:
                    images[name] = photos[name].image()
                found = [(Card.from_str(c), centre, h, up) for c, centre, h, up in self.real[name]]
                image = images[name]
                if self.real_lowres and rng.random() < self.real_lowres:
                    image, found = fewer_pixels(rng, image, found)
                pairs = real_pairs(rng, image, found, self.crop, self.grey_mix, self.real_wide)
                false = _some_of(rng, self.false.get(name, []), self.hard)
                negatives = negative_pairs(rng, images[name], false, self.crop)
                pairs += [(_shaken(rng, p, self.grey_mix), *rest) for p, *rest in negatives]
            else:
                image, labels = synth.scene(rng, pool)
                if self.grey and rng.random() < self.grey:  # suits by their shape alone
                    image = synth.grey(image, synth.grey_weights(rng) if self.grey_mix else None)
                pairs = scene_pairs(rng, image, labels, self.crop, self.joker_words, self.taller)
                if detector is not None:  # as drawn, and at one of a photo pyramid's other scales
                    scale = float(rng.choice(OTHER_SCALES))
                    reads = detector.detect(image) + detector.detect(image, scale)
                    false = false_peaks(reads, [(lb.centre, max(lb.height, lb.width)) for lb in labels])
                    pairs += negative_pairs(rng, image, _some_of(rng, false, self.hard), self.crop)
            for pair, rank, suit, kind, turn in pairs:
                x = torch.from_numpy(np.ascontiguousarray(pair.transpose(0, 3, 1, 2))).float() / 255
                yield x, rank, suit, kind, np.float32(turn)


def _some_of(rng: np.random.Generator, peaks: list[tuple], most: int) -> list[tuple]:
    """Up to ``most`` of ``peaks`` (surest first), drawn from the surest three times as many: the
    surest are the likeliest phantoms, and the same few every time would be learned by heart."""
    pool = peaks[: 3 * most]
    return [pool[k] for k in sorted(rng.permutation(len(pool))[:most])]


def pair_loss(
    model: ReaderNet, x: torch.Tensor, rank: torch.Tensor, suit: torch.Tensor, kind: torch.Tensor, turn: torch.Tensor
):
    """Each pair's loss: its upright crop read as its card and the other as no index (for a real
    photo, whichever way round costs less), or both as no index; and the upright crop's turn
    from upright, where it is known (a crop turned far is read at half weight: the table reads
    it again turned back)."""
    n = len(x)
    out = model(x.flatten(0, 1)).view(n, 2, -1)
    ranks, suits = out[..., :READER_RANKS], out[..., READER_RANKS : READER_RANKS + len(SUITS)]
    none = torch.full_like(rank, NONE)

    def ce(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(logits, target, reduction="none")

    suit_taught = (kind != NEITHER) & (suit != UNTOLD)
    safe_suit = torch.where(suit_taught, suit, torch.zeros_like(suit))
    first = ce(ranks[:, 0], rank) + ce(ranks[:, 1], none) + suit_taught * ce(suits[:, 0], safe_suit)
    second = ce(ranks[:, 0], none) + ce(ranks[:, 1], rank) + suit_taught * ce(suits[:, 1], safe_suit)
    loss = torch.where(kind == EITHER, torch.minimum(first, second), first)
    known = torch.isfinite(turn)
    far = known & (turn.abs() > 20)
    loss = loss * torch.where(far, 0.5, 1.0)
    if out.shape[-1] > READER_RANKS + len(SUITS) and bool(known.any()):
        a = torch.deg2rad(turn[known])
        told = out[known, 0, -TURN_OUTPUTS:]
        loss = loss.sum() / n + F.smooth_l1_loss(told, torch.stack([a.sin(), a.cos()], 1), reduction="sum") / n
    else:
        loss = loss.mean()
    upright = torch.where((kind == EITHER) & (second < first), 1, 0)
    read = ranks[torch.arange(n), upright].argmax(1)
    return loss, float((read == rank).float().mean())


def train(args: argparse.Namespace) -> dict[str, float]:
    if args.hard_negatives < 0:
        raise SystemExit(f"--hard-negatives {args.hard_negatives}: a count of places, 0 or more")
    if not SHORTEST < args.taller <= 2.0:
        raise SystemExit(f"--taller {args.taller}: a share of the index's height above {SHORTEST}, at most 2")
    run = Run(args, lambda: ReaderNet(args.width, SPECS[args.crop], not args.no_turn, _stages(args.stages)))
    model = run.model
    step = run.step
    real: dict[str, list[tuple]] = {}
    if args.real_share > 0:
        real = _detector_finds(run.folder, Path(args.detector), args.joker_words, args.hold_out)
    false = _false_peaks(run.folder, args.hold_out) if args.hard_negatives and args.real_share > 0 else {}
    crops = Crops(
        args.seed,
        step,
        real,
        args.real_share,
        crop=SPECS[args.crop],
        grey=args.grey,
        hard=args.hard_negatives,
        false=false,
        joker_words=args.joker_words,
        grey_mix=args.grey_mix,
        taller=args.taller,
        real_lowres=args.real_lowres,
        real_wide=args.real_wide,
    )
    data = DataLoader(crops, batch_size=args.batch, num_workers=args.workers)
    started, first_step, seen, right = time.monotonic(), step, [], []
    for x, rank, suit, kind, turn in data:
        if run.over():
            break
        run.learning_rate()
        loss, accuracy = pair_loss(model, x, rank, suit, kind, turn)
        run.optimiser.zero_grad()
        loss.backward()
        run.optimiser.step()
        step = run.step = run.step + 1
        seen.append(float(loss.detach()))
        right.append(accuracy)
        if step % args.log_every == 0:
            rate = (step - first_step) * args.batch / max(1e-6, time.monotonic() - started)
            recent = slice(-args.log_every, None)
            log.info("step %d loss %.3f rank right %.3f (%.0f pairs/s)", step, np.mean(seen[recent]),
                     np.mean(right[recent]), rate)  # fmt: skip
        if step % args.checkpoint_every == 0:
            run.save(export)
    run.save(export)
    tenth = max(1, len(seen) // 10)
    return {
        "steps": step,
        "first_loss": float(np.mean(seen[:tenth] or [0])),
        "last_loss": float(np.mean(seen[-tenth:] or [0])),
    }


def _stages(text: str | None) -> tuple[int, int, int] | None:
    """``--stages`` ("16,48,96"): the channels of the reader's three stages."""
    if not text:
        return None
    try:
        a, b, c = (int(n) for n in text.split(","))
    except ValueError:
        raise SystemExit(f"--stages {text!r}: three whole numbers, comma-separated (16,48,96)") from None
    if min(a, b, c) < 1:
        raise SystemExit(f"--stages {text!r}: every stage needs at least one channel")
    return a, b, c


def _per_training_photo(
    run: Path, name: str, work_out, what: str, without: str, hold_out: bool = False
) -> dict[str, list[tuple]]:
    """``work_out(training photos)`` (a list per photo), worked out once per run: the run folder
    keeps it as ``name`` (with ``hold_out``, of the photos not held out, under a name of its own).
    ``what`` names a photo's items in the log; ``without`` is logged when there are no photos."""
    from vision import photo_set

    cache = run / (name.replace(".json", "_taught.json") if hold_out else name)
    if cache.is_file():
        return {k: [tuple(v) for v in vs] for k, vs in json.loads(cache.read_text()).items()}
    try:
        photos = photo_set.training_photos(hold_out)
    except photo_set.PhotoSetError as e:
        log.warning("%s: %s", without, e)
        return {}
    found = work_out(photos)
    cache.write_text(json.dumps(found))
    log.info("%d %s in %d training photos", sum(map(len, found.values())), what, len(found))
    return found


def _detector_finds(
    run: Path, detector: Path, joker_words: bool = False, hold_out: bool = False
) -> dict[str, list[tuple]]:
    return _per_training_photo(
        run,
        "real_indices.json",
        lambda photos: detector_finds(detector, photos, joker_words),
        "indices found by the detector",
        "the reader learns from synthetic crops only",
        hold_out,
    )


def _false_peaks(run: Path, hold_out: bool = False) -> dict[str, list[tuple]]:
    return _per_training_photo(
        run, "real_false_peaks.json", photo_false_peaks, "false peaks", "no false peaks from the photos", hold_out
    )


def export(model: ReaderNet, path: Path) -> None:
    """The model to ONNX, and beside it the window it reads (``reader.json``: vision.index_crops)."""
    dynamic = {"crops": {0: "n"}, "logits": {0: "n"}}
    export_onnx(model, torch.zeros(1, 3, model.crop.height, model.crop.width), path, ("crops", "logits"), dynamic)
    write_spec(path, model.crop)


def parser() -> argparse.ArgumentParser:
    p = run_parser(
        "python -m vision.training.reader", __doc__, run="runs/reader", out="vision/models/reader.onnx",
        steps=6000, batch=64, width=16, threads=1, log_every=100, batch_help="pairs of crops per step",
    )  # fmt: skip
    p.add_argument(
        "--crop",
        choices=sorted(SPECS),
        default="index",
        help="the window: the index (index), the card beside it too (context), or the card's edges around it (corner)",
    )
    p.add_argument("--no-turn", action="store_true", help="no turn outputs (a reader as shipped before them)")
    p.add_argument("--stages", help="channels of the three stages, e.g. 16,48,96 (default: width, 2x, 4x)")
    p.add_argument("--real-share", type=share, default=0.3, help="share of samples from the training photos")
    p.add_argument(
        "--grey", type=share, default=0.0, help="share of synthetic scenes made grey, besides the generator's 20 %%"
    )
    p.add_argument(
        "--grey-mix",
        action="store_true",
        help="grey crops weigh blue, green and red at random (red ink as dark as black or nearly white)",
    )
    p.add_argument("--detector", default="vision/models/indices.onnx", help="finds the photos' indices' up direction")
    p.add_argument(
        "--hard-negatives",
        type=int,
        default=0,
        metavar="N",
        help="teach up to N of the table detector's peaks on no index a scene or photo as no index",
    )
    p.add_argument(
        "--joker-words",
        action="store_true",
        help="teach a joker's word across the card at its first letter too, and every detector peak in a photo's joker",
    )
    p.add_argument(
        "--taller",
        type=float,
        default=TALLER,
        help=f"the tallest a synthetic index's crop is cut, as a share of its height (from {SHORTEST})",
    )
    p.add_argument(
        "--real-lowres",
        type=share,
        default=0.0,
        metavar="SHARE",
        help="share of photo samples shrunk first, their indices 12-32 px tall, half of them saved as JPEG",
    )
    p.add_argument(
        "--real-wide",
        type=share,
        default=0.0,
        metavar="SHARE",
        help="share of photo crops cut as far off as synthetic ones (centre 0.08, height 0.85-1.18 of the index's)",
    )
    return p


def main(argv: list[str] | None = None) -> None:
    run_main(parser, train, argv)


if __name__ == "__main__":
    main()
