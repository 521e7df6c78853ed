"""Recall and precision of the card reader on real photographs: the validation half of
``shared/datasets/real-photos`` (:mod:`vision.training.photos` says how it is split).

A photo's truth is its labelled cards (one deck: each code at most once; a card is the boxes of
its code). A card read is *right* when its code is one of the photo's cards, *wrong* otherwise; a
second read of a card already found is a *duplicate* (the right card named twice). A right read
that lies in none of that card's boxes is counted apart too (``unlabelled``): the labels miss an
index now and then (a corner at a photo's edge), and such a read is still the card in the photo.
A wrong read that lies in no labelled box at all is counted apart as well (``wrong_unboxed``):
it is either a phantom (a card read in a texture) or a card the labels left out (a corner at the
photo's edge); which, only an eye can tell, so it stays wrong in the precision unless an eye
did: a read of an index listed in :data:`vision.photo_set.LEFT_OUT` (within
:data:`LEFT_OUT_REACH` of its point, naming its card) is set aside (``left_out``), neither right
nor wrong, and that card is not one the reader should have found either.
Recall is right over the labelled cards, precision right over right and wrong.
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.cards import Card
from vision.cards import PRESENT, Recognition, Thresholds, join
from vision.index_reads import PEAK, IndexRead
from vision.indices import with_shipped
from vision.ink import has_colour, without_colour
from vision.photo_set import HALVES, Photo, photos_of
from vision.scan import photo_reads, scan


@dataclass(slots=True)
class PhotoScore:
    cards: int = 0
    right: int = 0
    wrong: int = 0
    duplicates: int = 0
    unknown: int = 0
    unlabelled: int = 0
    wrong_unboxed: int = 0
    left_out: int = 0
    times_ms: list[float] = field(default_factory=list)
    wrong_examples: list[str] = field(default_factory=list)
    missed_examples: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.right / self.cards if self.cards else 1.0

    @property
    def precision(self) -> float:
        return self.right / (self.right + self.wrong) if self.right + self.wrong else 1.0

    def to_json(self) -> dict[str, object]:
        return {
            "cards": self.cards,
            "right": self.right,
            "wrong": self.wrong,
            "duplicates": self.duplicates,
            "unknown": self.unknown,
            "unlabelled": self.unlabelled,
            "wrong_unboxed": self.wrong_unboxed,
            "left_out": self.left_out,
            "recall": round(self.recall, 4),
            "precision": round(self.precision, 4),
            "median_ms": round(statistics.median(self.times_ms), 1) if self.times_ms else None,
            "wrong_examples": self.wrong_examples[:10],
            "missed_examples": self.missed_examples[:10],
        }


def _inside(point: tuple[float, float], box: tuple[float, float, float, float], grow: float = 0.25) -> bool:
    x0, y0, x1, y1 = box
    gx, gy = grow * (x1 - x0), grow * (y1 - y0)
    return x0 - gx <= point[0] <= x1 + gx and y0 - gy <= point[1] <= y1 + gy


def score_photo(score: PhotoScore, photo: Photo, found: list[Recognition]) -> None:
    truth: dict[Card, list[tuple[float, float, float, float]]] = {}
    for card, box in photo.boxes:
        truth.setdefault(card, []).append(box)
    score.cards += len(truth)
    matched: set[Card] = set()
    for rec in found:
        if rec.card is None:
            score.unknown += 1
            continue
        labelled = _as_labelled(rec.card, truth)
        boxes = truth.get(labelled)
        if boxes is not None:
            if labelled in matched:
                score.duplicates += 1
            else:
                matched.add(labelled)
                score.right += 1
            score.unlabelled += not any(_inside(c, b) for c in rec.index_centres for b in boxes)
            continue
        if _reads_left_out(rec, photo):
            score.left_out += 1
            continue
        score.wrong += 1
        near = [str(c) for c, bs in truth.items() for b in bs for p in rec.index_centres if _inside(p, b)]
        score.wrong_unboxed += not near
        score.wrong_examples.append(f"{photo.name}: {rec.card} at {_point(rec)} (truth there: {near or 'none'})")
    for card in truth:
        if card not in matched:
            score.missed_examples.append(f"{photo.name}: {card}")


LEFT_OUT_REACH = 25.0  # pixels from a left-out index's point within which a read is of it


def _reads_left_out(rec: Recognition, photo: Photo) -> bool:
    """Whether ``rec`` is a read of an index the labels left out (its card, at its place)."""
    return any(
        rec.card == card and any(math.dist(c, at) <= LEFT_OUT_REACH for c in rec.index_centres)
        for card, at in photo.left_out
    )


def _as_labelled(read: Card, truth: dict[Card, list]) -> Card:
    """The label a card read answers to: a joker read as either joker is the photo's joker. The
    photographed deck's two jokers look alike, and the set's labels call all but one of them LJ;
    which of the two a read names cannot be told, nor right or wrong."""
    if read.is_joker and read not in truth:
        return next((c for c in truth if c.is_joker), read)
    return read


def _point(rec: Recognition) -> str:
    x, y = rec.index_centres[0] if rec.index_centres else rec.center
    return f"({x:.0f}, {y:.0f})"


def evaluate(
    read: Callable[[np.ndarray], list[Recognition]],
    half: str = "validation",
    limit: int | None = None,
    group: Callable[[Photo, np.ndarray], str] = lambda photo, _image: photo.source,
) -> dict[str, PhotoScore]:
    """Scores per group of photos (by default their source: "phone", "webcam") and over all
    ("all", last), for ``read`` (image -> cards)."""
    photos = photos_of(half)
    scores: dict[str, PhotoScore] = {}
    for photo in photos[:limit]:
        image = photo.image()
        start = time.perf_counter()
        found = read(image)
        ms = 1000 * (time.perf_counter() - start)
        for key in (group(photo, image), "all"):
            score_photo(scores.setdefault(key, PhotoScore()), photo, found)
            scores[key].times_ms.append(ms)
    return {key: scores[key] for key in sorted(scores, key=lambda k: (k == "all", k))}


def colour_of(_photo: Photo, image: np.ndarray) -> str:
    """ "grey" for a photo without colour (the set's publisher made 140 of its 524 grey; JPEG
    leaves their channels a little apart: :func:`vision.ink.has_colour`), else "colour"."""
    return "colour" if has_colour(image) else "grey"


def tune(
    half: str = "train", reader: Path | None = None, model: Path | None = None
) -> list[tuple[Thresholds, PhotoScore]]:
    """Thresholds tried on one half's photos (the detector run once per photo): how the
    thresholds in vision/cards.py were chosen, on the training half. Every combination of the
    confidence, the lead over the runner-up, the presence and a lone index's own bar; then, with
    those at their defaults, each value of a pair's agreement, of a pair corner's faintness and
    of the probability that names a card however faint (1.01: never), the last with each heat
    from which such a card (not a joker) is named (0.5: only where its index is surely there)."""
    detector = with_shipped(model, reader=reader, least=PEAK)  # the least heat tried below: the reader reads those too
    reads = [(p, photo_reads(detector, p.image())) for p in photos_of(half)]
    grid = [
        Thresholds(accept, lead, present, lone)
        for accept, lead, present, lone in itertools.product(
            (0.5, 0.6, 0.7, 0.8, 0.9), (2.0, 4.0, 8.0), (0.3, 0.4, 0.5), (0.0, 0.8, 0.9, 0.95)
        )
    ]
    grid += [Thresholds(agree=agree) for agree in (0.0, 0.02, 0.05, 0.1, 0.3, 0.5)]
    grid += [Thresholds(faint=faint) for faint in (0.25, 0.3, 0.35, 0.4, 0.5)]
    grid += [Thresholds(certain=certain) for certain in (0.9, 0.95, 0.98, 0.99, 1.01)]
    grid += [
        Thresholds(certain=certain, certain_present=heat)
        for certain, heat in itertools.product((0.95, 0.98, 0.99), (0.35, 0.4, 0.45, 0.5))
    ]
    out = []
    for limits in grid:
        score = PhotoScore()
        for photo, found in reads:
            score_photo(score, photo, join(found, limits=limits))
        out.append((limits, score))
    return out


def _by_colour(
    half: str, reader: Path | None, model: Path | None, made_grey: bool = False, fuse_grey_suit: bool = False
) -> None:
    detector = with_shipped(model, reader=reader, fuse_grey_suit=fuse_grey_suit)
    shown = without_colour if made_grey else (lambda image: image)
    for key, s in evaluate(lambda image: scan(shown(image), detector=detector), half, group=colour_of).items():
        print(f"{key}: {s.right} right, {s.wrong} wrong of {s.cards} ({s.recall:.4f} / {s.precision:.4f})")
        for example in s.wrong_examples:
            print(f"   wrong: {example}")


def lost_where(photo: Photo, reads: list[IndexRead]) -> list[tuple[str, str]]:
    """Where each of ``photo``'s labelled cards that ``reads`` (its index reads) do not name was
    lost, judged at the read of its boxes with the most heat: no read there at all; too faint to
    stand alone (below the presence a lone index needs), its card read first or another; or
    surely there but not named, its card read first (not sure enough, or not far enough ahead of
    the runner-up) or another (misread: named wrongly, or left unknown). (how, example) pairs;
    an example's heat is split into the detector's and the reader's (its chance that an index is
    there; 1 when no reader looked): which of the two found the index too faint."""
    named = {rec.card for rec in join(reads) if rec.card is not None}
    truth: dict[Card, list[tuple[float, float, float, float]]] = {}
    for card, box in photo.boxes:
        truth.setdefault(card, []).append(box)
    lost = []
    for card, boxes in truth.items():
        if any(_names(read, card) for read in named):
            continue
        there = [r for r in reads for box in boxes if _inside(r.centre, box)]
        if not there:
            lost.append(("no read at all", f"{photo.name}: {card}"))
            continue
        best = max(there, key=lambda r: r.heat)
        first = best.candidates[0][0] if best.candidates else None
        as_itself = first is not None and _names(first, card)
        how = ("faint" if best.heat < PRESENT else "there") + (", read as itself" if as_itself else ", misread")
        top = ", ".join(f"{c} {p:.2f}" for c, p in best.candidates[:3])
        parts = f" = {best.heat / best.presence:.2f} found x {best.presence:.2f} index" if best.presence > 0 else ""
        lost.append((how, f"{photo.name}: {card} (heat {best.heat:.2f}{parts}; {top})"))
    return lost


def _names(read: Card, label: Card) -> bool:
    """Whether a card read names the labelled one: itself, or for a joker either joker (the
    deck's two look alike: :func:`_as_labelled`)."""
    return read == label or (read.is_joker and label.is_joker)


def why_missed(half: str = "validation", reader: Path | None = None, model: Path | None = None) -> dict[str, list[str]]:
    """:func:`lost_where` over a half's photos, every peak read (as in :func:`tune`)."""
    detector = with_shipped(model, reader=reader, least=PEAK)
    lost: dict[str, list[str]] = {}
    for photo in photos_of(half):
        for how, example in lost_where(photo, photo_reads(detector, photo.image())):
            lost.setdefault(how, []).append(example)
    return lost


def unboxed_reads(photo: Photo, reads: list[IndexRead]) -> list[IndexRead]:
    """``photo``'s index reads sure that an index lies there (:data:`~vision.cards.PRESENT`) where
    no labelled box lies near (half a box's size around it) and no left-out index is listed: each
    is an index the labels left out, or a phantom; which, only an eye can tell
    (:data:`vision.photo_set.LEFT_OUT` lists those found plain)."""
    return [
        r
        for r in reads
        if r.heat >= PRESENT
        and not any(_inside(r.centre, box, grow=0.5) for _, box in photo.boxes)
        and not any(math.dist(r.centre, at) <= LEFT_OUT_REACH for _, at in photo.unboxed)
    ]


def list_unboxed(half: str = "train", reader: Path | None = None, model: Path | None = None) -> list[str]:
    """:func:`unboxed_reads` over a half's photos, a line each."""
    detector = with_shipped(model, reader=reader)
    lines = []
    for photo in photos_of(half):
        for r in unboxed_reads(photo, photo_reads(detector, photo.image())):
            lines.append(f"{photo.name}: {r.card} (heat {r.heat:.2f}) at ({r.centre[0]:.0f}, {r.centre[1]:.0f})")
    return lines


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.real_photos", description=tune.__doc__)
    parser.add_argument("half", nargs="?", default="train", choices=HALVES)
    parser.add_argument("--reader", type=Path, help="another reader (ONNX) than the shipped one")
    parser.add_argument("--model", type=Path, help="another detector (ONNX) than the shipped one")
    parser.add_argument("--by-colour", action="store_true", help="no sweep: the grey and the colour photos' scores")
    parser.add_argument(
        "--made-grey", action="store_true", help="with --by-colour: every photo read with its colour taken out"
    )
    parser.add_argument(
        "--fuse-grey-suit",
        action="store_true",
        help="with --by-colour: in a frame without colour, the detector's suit weighed too, to compare",
    )
    parser.add_argument("--misses", action="store_true", help="no sweep: where each card not named was lost")
    parser.add_argument(
        "--unboxed", action="store_true", help="no sweep: sure index reads where no box lies and no left-out is listed"
    )
    args = parser.parse_args()
    if (args.made_grey or args.fuse_grey_suit) and not args.by_colour:
        parser.error("--made-grey and --fuse-grey-suit go with --by-colour")
    if args.unboxed:
        lines = list_unboxed(args.half, args.reader, args.model)
        print(f"sure reads where no index is labelled or listed: {len(lines)}")
        for line in lines:
            print(f"   {line}")
        raise SystemExit
    if args.misses:
        for how, cards in why_missed(args.half, args.reader, args.model).items():
            print(f"{how}: {len(cards)}")
            for line in cards:
                print(f"   {line}")
        raise SystemExit
    if args.by_colour:
        _by_colour(args.half, args.reader, args.model, args.made_grey, args.fuse_grey_suit)
        raise SystemExit
    for limits, s in tune(args.half, args.reader, args.model):
        print(
            f"accept {limits.accept} lead {limits.lead} present {limits.present} lone {limits.lone} "
            f"agree {limits.agree} faint {limits.faint} certain {limits.certain} "
            f"certain_present {limits.certain_present}: "
            f"recall {s.recall:.4f} precision {s.precision:.4f} ({s.right} right, {s.wrong} wrong of {s.cards}, "
            f"{s.unknown} unknown)"
        )
