"""How far off the indices' up directions are, with the turner and without it:
``python -m benchmarks.index_turns [--scenes 8] [--seed 11]``.

Rendered scenes of each design the reader may learn from (720p, read like photos: no mat scale).
For every index read the detector is sure of (heat 0.5) that lies on a face-up card, the angle
between its up direction and the card's, as the scene was drawn; a card's two indices point
opposite ways, so the nearer of the two is taken. Printed per design: reads, the share more than
15 and 30 degrees off, the median, and the share whose card is the card under it.
"""

from __future__ import annotations

import argparse
import math

import cv2
import numpy as np

from benchmarks.vision_scenes import scenes
from simulators.camera import CardTruth
from vision.decks import deck_available, deck_faces
from vision.index_reads import SURE, IndexRead
from vision.indices import IndexDetector
from vision.scales import pyramid_scales

DESIGNS = ("project", "kde:standard", "kde:nicu-white", "aisleriot:anglo")


def card_up_deg(truth: CardTruth) -> float:
    """The card's up direction in the image (0 = up, clockwise): from its bottom-left corner to its top-left."""
    top_left, bottom_left = truth.corners_px[0], truth.corners_px[3]
    dx, dy = top_left - bottom_left
    return math.degrees(math.atan2(dx, -dy)) % 360


def off_by(read: IndexRead, truth: CardTruth) -> float:
    up = card_up_deg(truth)
    return min(abs((read.up_deg - up + 180) % 360 - 180), abs((read.up_deg - up) % 360 - 180))


def measure(detector: IndexDetector, design: str, count: int, seed: int) -> dict[str, float]:
    faces = None if design == "project" else dict(deck_faces(design))
    offs, right = [], 0
    for _, frame, truth in scenes(count, (1280, 720), seed=seed, deck=faces):
        reads = [r for r in detector.detect_pyramid(frame, pyramid_scales(frame.shape)) if r.heat >= SURE]
        for t in (t for t in truth if t.face_up):
            outline = t.corners_px.astype(np.float32)
            for r in reads:
                if cv2.pointPolygonTest(outline, (float(r.centre[0]), float(r.centre[1])), False) >= 0:
                    offs.append(off_by(r, t))
                    right += r.card == t.card
    a = np.array(offs)
    n = max(1, len(a))
    return {
        "reads": len(a),
        "over_15": float((a > 15).sum() / n),
        "over_30": float((a > 30).sum() / n),
        "median": float(np.median(a)) if len(a) else 0.0,
        "card_under_it": right / n,
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.index_turns", description=__doc__)
    p.add_argument("--scenes", type=int, default=8)
    p.add_argument("--seed", type=int, default=11)
    args = p.parse_args(argv)
    print("design            turner  reads  >15deg  >30deg  median  card under it")
    for design in DESIGNS:
        if design != "project" and not deck_available(design):
            print(f"{design:17} not installed")
            continue
        for turn in (False, True):
            m = measure(IndexDetector(turn=turn), design, args.scenes, args.seed)
            print(
                f"{design:17} {'on' if turn else 'off':6} {m['reads']:6d} {m['over_15']:7.1%} {m['over_30']:7.1%}"
                f" {m['median']:6.1f} {m['card_under_it']:9.1%}"
            )


if __name__ == "__main__":
    main()
