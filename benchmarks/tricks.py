"""Whole tricks on the mat, seen by the camera and played by the tracker, per design:
``python -m benchmarks.tricks [--tricks 24] [--seed 0] [--design kde:nicu-white]``, and with
``--model``, ``--reader``, ``--turner`` and ``--corner`` another model's files than the shipped
ones (``--no-corner``: the shipped ones without the corner reader).

Each trick is four cards, one per seat, put down in turn on a tilted, lit, noisy 720p view of
the mat (tables wood, felt and pale in turn), then gathered; the observer reads with the shipped
models (or those given) and the default work budget, and the tracker turns its observations into plays. Printed
per design: tricks played exactly (four plays, right seats, right cards, then the clearing),
plays right, plays of a wrong card, plays missed.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

import numpy as np

from benchmarks.model_options import add_model_options, given_detector
from engine.cards import CARDS, Card
from simulators.camera import Scene, SimulatedCamera
from simulators.scenes import tilted_view, trick_scenes
from vision.decks import deck_available, deck_faces
from vision.indices import IndexDetector
from vision.mat import MatLayout
from vision.observe import FrameObservation, Observer
from vision.tracker import CardPlayed, Tracker, TrackerSettings, TrickCleared

DESIGNS = ("project", "kde:standard", "kde:nicu-white", "aisleriot:anglo")
LAYOUT = MatLayout.create(4, "a2")
SEATS = [z.name for z in LAYOUT.zones if z.seat is not None]
SETTINGS = TrackerSettings(stable_frames=3, clear_frames=4)
LIGHT = {"light_falloff": 0.3, "light_angle": 1.0, "blur_sigma": 0.6, "noise_sigma": 3.0}
TABLES = ("wood", "felt", "pale")


@dataclass
class TrickRun:
    """One trick as played: the cards put down (seat order), the tracker's events, the
    observer's observations and the scenes drawn, frame by frame."""

    plays: list[Card]
    events: list
    seen: list[FrameObservation]
    frames: list[Scene]

    @property
    def exact(self) -> bool:
        played = [(e.seat, e.card) for e in self.events[:-1]]
        cleared = bool(self.events) and self.events[-1] == TrickCleared(self.events[-1].frame, tuple(self.plays))
        return played == list(zip(SEATS, self.plays, strict=True)) and cleared


def play_trick(design: str, s: int, detector: IndexDetector | None = None) -> TrickRun:
    """Trick ``s`` of a design (seeded; its table is ``TABLES[s % 3]``), read by ``detector``
    (the shipped models by default)."""
    faces = None if design == "project" else dict(deck_faces(design))
    pack = list(faces) if faces else list(CARDS)
    rng = np.random.default_rng(100 + s)
    plays = [pack[k] for k in rng.choice(len(pack), 4, replace=False)]
    view = tilted_view(np.random.default_rng(s), (1280, 720), TABLES[s % 3], LAYOUT, deck=faces)
    frames = trick_scenes(rng, LAYOUT, plays, Scene(cards=(), arms=(), **LIGHT))
    observer, tracker = Observer(LAYOUT, detector), Tracker(SEATS, SETTINGS)
    events, seen = [], []
    for frame in SimulatedCamera(view, frames, seed=s):
        seen.append(observer.observe(frame))
        events += tracker.update(seen[-1])
    return TrickRun(plays, events, seen, frames)


def measure(design: str, tricks: int, seed: int, detector: IndexDetector | None = None) -> dict[str, object]:
    exact = right = wrong = 0
    failed = []
    for s in range(seed, seed + tricks):
        run = play_trick(design, s, detector)
        played = {e.seat: e.card for e in run.events if isinstance(e, CardPlayed)}
        truth = dict(zip(SEATS, run.plays, strict=True))
        right += sum(played.get(seat) == c for seat, c in truth.items())
        wrong += sum(seat in played and played[seat] != c for seat, c in truth.items())
        exact += run.exact
        if not run.exact:
            failed.append(s)
    plays = 4 * tricks
    return {
        "design": design,
        "tricks": tricks,
        "exact": exact,
        "plays": plays,
        "right": right,
        "wrong": wrong,
        "missed": plays - right - wrong,
        "not_exact": failed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tricks", type=int, default=24, help="tricks per design")
    parser.add_argument("--seed", type=int, default=0, help="the first trick's seed")
    parser.add_argument("--design", action="append", help="a design to play (repeat; default: all four)")
    add_model_options(parser)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.tricks < 1:
        parser.error("--tricks must be at least 1")
    detector = given_detector(parser, args)
    designs = args.design or list(DESIGNS)
    unknown = [d for d in designs if d not in DESIGNS]
    if unknown:
        parser.error(f"unknown design {unknown[0]!r}: one of {', '.join(DESIGNS)}")
    rows = []
    for design in designs:
        if design != "project" and not deck_available(design):
            print(f"{design}: not installed, skipped")
            continue
        rows.append(measure(design, args.tricks, args.seed, detector))
        if not args.json:
            r = rows[-1]
            print(
                f"{design:16} tricks exact {r['exact']}/{r['tricks']}   plays right {r['right']}/{r['plays']}"
                f"   wrong {r['wrong']}   missed {r['missed']}   not exact: {r['not_exact']}",
                flush=True,
            )
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
