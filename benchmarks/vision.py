"""``croupier bench vision``: the card reader's accuracy on real photographs and rendered scenes,
and the observer's time per frame.

Accuracy, real: the validation half of the shared real photographs (:mod:`benchmarks.real_photos`),
per source (phone photos, webcam photos), read as ``croupier vision scan`` reads a photo.

Accuracy, rendered: seeded scenes of each design the reader may learn from (the project's own and
the three Debian designs, where installed), six cards each with one face down, on three tables,
glare in every other scene, a trick fanned in the centre; read like photos (no mat scale).

Speed: the whole per-frame step (:class:`vision.observe.Observer`: mat, changed regions,
detector, cards, zones), single thread, on frames rendered before the clock starts, at 1280x720
and 1920x1080, in three states: *nothing new* (the same cards, only the camera's noise differs),
*new cards* (1, 4 or 8 cards appear on a table that was read empty: the frame they are first
still in) and *hand moving* (an arm over the table, reaching to a new place each frame). Median
and 95th percentile, wall clock and the thread's CPU time.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, replace

import cv2
import numpy as np

from benchmarks.vision_scenes import Score, scenes
from engine.cards import CARDS, Card
from simulators.camera import render
from simulators.scenes import SceneStyle, random_arm, random_scene, tilted_view
from vision.decks import DECKS, deck_available, deck_faces
from vision.indices import IndexDetector
from vision.ink import without_colour
from vision.mat import MatLayout
from vision.observe import Observer
from vision.photo_set import HALF_NAMES
from vision.scan import scan

SIZES = ((1280, 720), (1920, 1080))
STATES = ("nothing new", "new cards", "hand moving")
NEW_CARDS = (1, 4, 8)


@dataclass(frozen=True, slots=True)
class SpeedFigure:
    size: tuple[int, int]
    cards: int
    frames: int
    median_ms: float
    p95_ms: float
    state: str
    cpu_median_ms: float = 0.0
    cpu_p95_ms: float = 0.0

    def to_json(self) -> dict[str, object]:
        return {
            "size": list(self.size),
            "cards": self.cards,
            "state": self.state,
            "frames": self.frames,
            "median_ms": self.median_ms,
            "p95_ms": self.p95_ms,
            "cpu_median_ms": self.cpu_median_ms,
            "cpu_p95_ms": self.cpu_p95_ms,
        }


@dataclass(frozen=True, slots=True)
class AccuracyFigure:
    source: str  # a design's name (rendered) or "real: phone" / "real: webcam" / "real: all"
    size: str  # "1280x720" and the like, or "photos"
    cards: int
    right: int
    wrong: int
    unknown: int
    duplicates: int = 0
    seeds: tuple[int, ...] = ()
    confusions: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    wrong_unboxed: int | None = None  # real photos: wrong reads where no index is labelled
    left_out: int | None = None  # real photos: reads of indices the labels left out, set aside

    @property
    def precision(self) -> float:
        return self.right / (self.right + self.wrong) if self.right + self.wrong else 1.0

    @property
    def recall(self) -> float:
        return self.right / self.cards if self.cards else 1.0

    def to_json(self) -> dict[str, object]:
        return {
            "source": self.source,
            "size": self.size,
            "seeds": list(self.seeds),
            "cards": self.cards,
            "right": self.right,
            "wrong": self.wrong,
            "unknown": self.unknown,
            "duplicates": self.duplicates,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "confusions": list(self.confusions),
            "examples": list(self.examples),
            **({} if self.wrong_unboxed is None else {"wrong_unboxed": self.wrong_unboxed}),
            **({} if self.left_out is None else {"left_out": self.left_out}),
        }


def real_figures(
    limit: int | None = None, detector: IndexDetector | None = None, half: str = "validation"
) -> list[AccuracyFigure]:
    """A half of the real photographs (the validation half: the figures; the training half, or its
    held-out part: to choose between models without looking at the validation half), per source
    and over all (``detector``: another model than the shipped one)."""
    from benchmarks.real_photos import evaluate

    scores = evaluate(lambda image: scan(image, detector=detector), half, limit)
    label = "real" if half == "validation" else f"real, {HALF_NAMES[half]}"
    return [
        AccuracyFigure(
            f"{label}: {source}",
            "photos",
            s.cards,
            s.right,
            s.wrong,
            s.unknown,
            s.duplicates,
            examples=tuple(s.wrong_examples[:5] + s.missed_examples[:5]),
            wrong_unboxed=s.wrong_unboxed,
            left_out=s.left_out,
        )
        for source, s in scores.items()
    ]


def rendered_figures(
    count: int = 30,
    size: tuple[int, int] = (1280, 720),
    seeds: tuple[int, ...] = (11,),
    detector: IndexDetector | None = None,
    grey: bool = False,
) -> list[AccuracyFigure]:
    """Each design the reader may learn from, over ``count`` scenes of every seed (``grey``: each
    frame with its colour taken out, as a camera without colour gives it)."""
    designs: list[tuple[str, dict[Card, np.ndarray] | None]] = [("project", None)]
    designs += [(name, dict(deck_faces(name))) for name in DECKS if deck_available(name)]
    out = []
    for name, deck in designs:
        score = Score()
        for seed in seeds:
            for label, frame, truth in scenes(count, size, seed=seed, deck=deck):
                if grey:
                    frame = without_colour(frame)
                score.add(scan(frame, detector=detector), truth, f"seed {seed}, {label}")
        confusions = tuple(f"{t}->{r} x{n}" for (t, r), n in score.confusions.most_common(6))
        out.append(
            AccuracyFigure(
                name,
                f"{size[0]}x{size[1]}" + (" grey" if grey else ""),
                score.cards,
                score.correct,
                len(score.wrong),
                score.unknown,
                score.duplicates,
                seeds=seeds,
                confusions=confusions,
                examples=tuple(score.wrong[:5]),
            )
        )
    return out


def speed_figures(frames: int = 12, seed: int = 0, detector: IndexDetector | None = None) -> list[SpeedFigure]:
    """``frames`` timed frames per case, single thread."""
    cv2.setNumThreads(1)
    layout = MatLayout.create(6, "a2")  # six seats: room for eight cards with a trick in the centre
    out = []
    for size in SIZES:
        rng = np.random.default_rng(seed)
        out.append(_steady(layout, size, rng, frames, detector))
        for count in NEW_CARDS:
            out.append(_new_cards(layout, size, rng, count, frames, detector))
        out.append(_hand_moving(layout, size, rng, frames, detector))
    return out


def _scene(rng: np.random.Generator, layout: MatLayout, size: tuple[int, int], count: int):
    view = tilted_view(rng, size, "felt", layout)
    cards = [CARDS[k] for k in rng.choice(len(CARDS), count, replace=False)]
    return view, random_scene(rng, view, cards, SceneStyle(glare=True))


class _Clock:
    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def time(self, observer: Observer, frame: np.ndarray) -> None:
        start, start_cpu = time.perf_counter(), time.thread_time()
        observer.observe(frame)
        self.wall.append((time.perf_counter() - start) * 1000)
        self.cpu.append((time.thread_time() - start_cpu) * 1000)

    def figure(self, size: tuple[int, int], cards: int, state: str) -> SpeedFigure:
        p = lambda v: round(float(np.percentile(v, 95)), 2)  # noqa: E731
        m = lambda v: round(statistics.median(v), 2)  # noqa: E731
        return SpeedFigure(size, cards, len(self.wall), m(self.wall), p(self.wall), state, m(self.cpu), p(self.cpu))


def _steady(
    layout: MatLayout, size: tuple[int, int], rng: np.random.Generator, frames: int, detector: IndexDetector | None
) -> SpeedFigure:
    view, still = _scene(rng, layout, size, 6)
    observer, clock = Observer(layout, detector), _Clock()
    observer.observe(render(view, still, seed=0)[0])
    for i in range(frames):
        clock.time(observer, render(view, still, seed=1 + i)[0])
    return clock.figure(size, 6, "nothing new")


def _new_cards(
    layout: MatLayout,
    size: tuple[int, int],
    rng: np.random.Generator,
    count: int,
    frames: int,
    detector: IndexDetector | None,
) -> SpeedFigure:
    clock = _Clock()
    for _ in range(frames):
        view, scene = _scene(rng, layout, size, count)
        empty = render(view, replace(scene, cards=()), seed=0)[0]
        shown = render(view, scene, seed=1)[0]
        observer = Observer(layout, detector)
        observer.observe(empty)
        observer.observe(empty)
        clock.time(observer, shown)
    return clock.figure(size, count, "new cards")


def _hand_moving(
    layout: MatLayout, size: tuple[int, int], rng: np.random.Generator, frames: int, detector: IndexDetector | None
) -> SpeedFigure:
    view, still = _scene(rng, layout, size, 6)
    observer, clock = Observer(layout, detector), _Clock()
    observer.observe(render(view, still)[0])
    for i in range(frames):
        clock.time(observer, render(view, replace(still, arms=(random_arm(rng, size),)), seed=i)[0])
    return clock.figure(size, 6, "hand moving")
