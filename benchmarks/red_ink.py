"""How much red ink the reads' crops show, by the colour of the card read and the card under it:
how :data:`vision.ink.NO_RED` was chosen. ``python -m benchmarks.red_ink [--scenes 30]``.

On the sets models are chosen on (never the validation half): the training half's colour photos
(a read is of the labelled index whose box holds its centre) and the selection's rendered scenes of
the four designs (seed 12 at 720p and 1080p, seeds 13 and 14 at 720p; a read is of the face-up card
whose outline holds its centre, which may be another card's index lying over it, so only reads of
that card's rank count). Every read at least :data:`~vision.index_reads.FAINT` sure, read without the
check, its crop cut in the reader's window at its centre, height and up direction. Printed per set:
the red cards read as themselves (their least red-ink shares: the check must leave them all); the
black indices read as red cards, how many show less red ink than NO_RED (the check is for them)
and the least share of the others (in a scene, mostly a red card of the same rank lying over the
black one, whose index the read is); and the black indices' share with no red ink at all. First,
how far apart the training photos' blue and red channels lie, grey and colour: the check's test
for a frame with colour (:data:`vision.ink.COLOURED`).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import cv2
import numpy as np

from benchmarks import real_photos
from benchmarks.vision_scenes import scenes
from engine.cards import Card
from vision.decks import deck_available, deck_faces
from vision.index_crops import INDEX_ONLY, upright_crop
from vision.index_reads import FAINT, IndexRead
from vision.indices import IndexDetector, with_shipped
from vision.ink import COLOURED, NO_RED, colour_spread, red_ink_share
from vision.photo_set import photos_of
from vision.scan import photo_reads

DESIGNS = ("project", "kde:standard", "kde:nicu-white", "aisleriot:anglo")
SELECTION = ((12, (1280, 720), 1.0), (12, (1920, 1080), 2 / 3), (13, (1280, 720), 1.0), (14, (1280, 720), 1.0))


def _is_red(card: Card) -> bool:
    return card.suit is not None and card.suit.letter in "DH"


def _crop(image: np.ndarray, read: IndexRead) -> np.ndarray:
    return upright_crop(image, read.centre, read.height, read.up_deg, INDEX_ONLY)


def photo_reads_by_card(detector: IndexDetector) -> Iterator[tuple[Card, IndexRead, np.ndarray]]:
    """(labelled card, read, crop) for the training half's colour photos."""
    for photo in photos_of("train"):
        image = photo.image()
        if real_photos.colour_of(photo, image) == "grey":
            continue
        for read in photo_reads(detector, image):
            for card, (x0, y0, x1, y1) in photo.taught_boxes():
                if x0 <= read.centre[0] <= x1 and y0 <= read.centre[1] <= y1:
                    yield card, read, _crop(image, read)
                    break


def scene_reads_by_card(
    detector: IndexDetector, design: str, count: int
) -> Iterator[tuple[Card, IndexRead, np.ndarray]]:
    """(card under the read, read, crop) for one design's selection scenes."""
    deck = None if design == "project" else dict(deck_faces(design))
    for seed, size, share in SELECTION:
        for _, frame, truth in scenes(max(1, round(count * share)), size, seed=seed, deck=deck):
            for read in photo_reads(detector, frame):
                for t in (t for t in truth if t.face_up):
                    outline = t.corners_px.astype(np.float32)
                    if cv2.pointPolygonTest(outline, (float(read.centre[0]), float(read.centre[1])), False) >= 0:
                        yield t.card, read, _crop(frame, read)
                        break


def shares(found: Iterator[tuple[Card, IndexRead, np.ndarray]], same_rank: bool) -> dict[str, list[float]]:
    """The red-ink shares of red cards read as themselves, of black indices read as red cards, and
    of black indices read as themselves or another black card."""
    out: dict[str, list[float]] = {"red read right": [], "black read red": [], "black": []}
    for card, read, crop in found:
        if read.heat < FAINT or not read.candidates or card.is_joker:
            continue
        named = read.candidates[0][0]
        if named.is_joker or (same_rank and named.rank != card.rank):
            continue
        share = red_ink_share(crop)
        if _is_red(card) and named == card:
            out["red read right"].append(share)
        elif not _is_red(card):
            out["black read red" if _is_red(named) else "black"].append(share)
    return out


def report(name: str, found: dict[str, list[float]]) -> str:
    """One set's line: the red cards' least shares, the black indices read as red around
    :data:`~vision.ink.NO_RED`, and the black ones read black with no red ink at all."""
    right, wrong, black = (np.array(found[k]) for k in ("red read right", "black read red", "black"))
    under, over = np.sort(wrong[wrong < NO_RED]), np.sort(wrong[wrong >= NO_RED])
    least = ", ".join(f"{v:.1%}" for v in np.sort(right)[:3])
    parts = [
        f"red cards read right {len(right):5d}, least shares {least} ({(right < NO_RED).sum()} under NO_RED)",
        f"black read red {len(wrong):3d}: {len(under)} under NO_RED"
        + (f" (the most {under[-1]:.1%})" if len(under) else "")
        + (f", the next {over[0]:.1%}" if len(over) else ""),
        f"black read black {len(black):5d}, {(black == 0).mean() if len(black) else 0:.0%} with no red ink",
    ]
    return f"{name:17} " + "; ".join(parts)


def colour_spreads() -> str:
    """The training photos' colour spreads (:func:`vision.ink.colour_spread`), grey and colour:
    how far :data:`vision.ink.COLOURED` lies from each."""
    spreads = [colour_spread(photo.image()) for photo in photos_of("train")]
    grey = [s for s in spreads if s < COLOURED]
    colour = [s for s in spreads if s >= COLOURED]
    return (
        f"training photos: {len(grey)} grey, their channels at most {max(grey, default=0):.2f} apart;"
        f" {len(colour)} in colour, at least {min(colour, default=0):.2f} apart"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.red_ink", description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=30, help="rendered scenes a design and seed at 720p")
    args = parser.parse_args(argv)
    if args.scenes < 1:
        parser.error("--scenes must be at least 1")
    print(colour_spreads(), flush=True)
    detector = with_shipped(check_ink=False)
    print(report("training photos", shares(photo_reads_by_card(detector), same_rank=False)), flush=True)
    for design in DESIGNS:
        if design == "project" or deck_available(design):
            print(
                report(design, shares(scene_reads_by_card(detector, design, args.scenes), same_rank=True)), flush=True
            )


if __name__ == "__main__":
    main()
