"""The simulated table top, live: cards put down, taken back and gathered by hands, as a camera
sees them, frame after frame.

:class:`TableScene` is the physical state of the mat (which card lies where, which hand is
moving over it), changed by the simulated people from their thread. :class:`SceneCamera` is a
frame source over it: each ``read`` advances the world's clock by one frame and renders what lies
on the table at that moment (:func:`simulators.camera.render`: real pixels, perspective, uneven
light, noise). The vision pipeline gets the frames only.

The world's clock is the camera's: one frame is ``1/fps`` seconds of table time, and the camera
keeps table time at ``speed`` times the wall clock (or as fast as it can render, when that is
slower). People think and move in table time, so a fast simulation and a slow machine see the
same table, with the same number of frames for every movement.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import deque
from dataclasses import dataclass, replace

import numpy as np

from engine.cards import Card
from simulators.camera import Arm, CameraView, PlacedCard, Scene, render
from vision.mat import MatLayout

log = logging.getLogger(__name__)

MOVE_S = 0.5  # a hand bringing a card into its zone
LINGER_S = 0.3  # the hand leaving the zone after letting go
GATHER_S = 0.8  # the winner's hand sweeping the trick away


class WorldClock:
    """Table time, advanced by the camera's frames; people sleep on it."""

    def __init__(self, fps: float) -> None:
        self.frame_s = 1.0 / fps
        self._t = 0.0
        self._cond = threading.Condition()
        self._stopped = False

    def now(self) -> float:
        with self._cond:
            return self._t

    def tick(self) -> float:
        with self._cond:
            self._t += self.frame_s
            self._cond.notify_all()
            return self._t

    def sleep(self, seconds: float, wall_limit_s: float = 60.0) -> bool:
        """Wait ``seconds`` of table time; False if the camera stopped (no frames for ``wall_limit_s``)."""
        deadline = time.monotonic() + wall_limit_s
        with self._cond:
            target = self._t + seconds
            while self._t < target and not self._stopped:
                if time.monotonic() > deadline:
                    return False
                self._cond.wait(0.2)
        return not self._stopped

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()


@dataclass(frozen=True, slots=True)
class _Lying:
    """A card on the mat, and how it got there (or is leaving)."""

    seat: int
    placed: PlacedCard
    start: tuple[float, float]  # where the hand brought it from (mm)
    since: float  # table time it was put down (its movement took MOVE_S before)
    leaving: float | None = None  # table time a hand started taking it away
    towards: tuple[float, float] | None = None  # where it is taken


class TableScene:
    """What lies on the mat, changed by the people's hands; thread-safe."""

    def __init__(self, view: CameraView, layout: MatLayout, clock: WorldClock, seed: int = 0) -> None:
        self.view = view
        self.layout = layout
        self.clock = clock
        self.rng = random.Random(seed)
        self.look = Scene(light_falloff=0.25, light_angle=self.rng.uniform(0, 6.28), blur_sigma=0.6, noise_sigma=3.0)
        self._lying: list[_Lying] = []
        self._lock = threading.Lock()
        self._zones = {z.seat: z for z in layout.zones if z.seat is not None}

    # --- the people's hands (table time comes from the clock) ------------------------------

    def put_down(self, seat: int, card: Card) -> float:
        """A hand brings ``card`` from the seat's edge into its zone, a little crooked; returns the
        table time at which it lies in place."""
        x0, y0, x1, y1 = self._zones[seat].box_mm
        target = ((x0 + x1) / 2 + self.rng.uniform(-10, 10), (y0 + y1) / 2 + self.rng.uniform(-8, 8))
        placed = PlacedCard(card, target, self.rng.uniform(-12, 12))
        with self._lock:
            now = self.clock.now()
            self._lying.append(_Lying(seat, placed, self._edge(seat), now + MOVE_S))
            return now + MOVE_S

    def take_back(self, seat: int) -> None:
        """The seat's player picks up the card lying in its zone (the referee refused it)."""
        with self._lock:
            now = self.clock.now()
            self._lying = [
                replace(c, leaving=now, towards=self._edge(seat)) if c.seat == seat and c.leaving is None else c
                for c in self._lying
            ]

    def gather(self, winner: int) -> None:
        """The trick's winner sweeps every card on the mat towards themselves."""
        with self._lock:
            now = self.clock.now()
            self._lying = [
                replace(c, leaving=now, towards=self._edge(winner)) if c.leaving is None else c for c in self._lying
            ]

    def is_clear(self) -> bool:
        with self._lock:
            return not self._lying

    def _edge(self, seat: int) -> tuple[float, float]:
        """Off the mat, behind the seat's zone: where that player's hand comes from."""
        x0, y0, x1, y1 = self._zones[seat].box_mm
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        mx, my = self.layout.width_mm / 2, self.layout.height_mm / 2
        return (cx + (cx - mx) * 0.9, cy + (cy - my) * 0.9)

    # --- one moment, as the camera sees it -------------------------------------------------

    def scene_at(self, t: float) -> Scene:
        cards: list[PlacedCard] = []
        arms: list[Arm] = []
        with self._lock:
            self._lying = [c for c in self._lying if c.leaving is None or t < c.leaving + GATHER_S]
            lying = list(self._lying)
        for c in lying:
            where, hand = self._pose(c, t)
            if where is not None:
                cards.append(where)
            if hand is not None:
                arms.append(self._arm(c, hand))
        return replace(self.look, cards=tuple(cards), arms=tuple(arms))

    def _pose(self, c: _Lying, t: float) -> tuple[PlacedCard | None, tuple[float, float] | None]:
        """Where the card is at ``t``, and where the hand holding it is (None: no hand)."""
        target = c.placed.centre_mm
        if t < c.since:  # still being brought in
            share = max(0.0, 1 - (c.since - t) / MOVE_S)
            at = _between(c.start, target, share)
            return replace(c.placed, centre_mm=at, angle_deg=c.placed.angle_deg + 25 * (1 - share)), at
        if c.leaving is not None and t >= c.leaving:
            share = min(1.0, (t - c.leaving) / GATHER_S)
            towards = c.towards or c.start
            at = _between(target, towards, share)
            return replace(c.placed, centre_mm=at), at
        if t < c.since + LINGER_S:  # the hand lets go and draws back
            share = (t - c.since) / LINGER_S
            return c.placed, _between(target, c.start, share)
        return c.placed, None

    def _arm(self, c: _Lying, tip_mm: tuple[float, float]) -> Arm:
        points = np.array([[c.start, tip_mm]], np.float64)
        start, tip = _to_frame(self.view, points)[0]
        return Arm((float(start[0]), float(start[1])), (float(tip[0]), float(tip[1])), 0.06 * self.view.size[1])


class SceneCamera:
    """A frame source over a :class:`TableScene`: every read is the next frame of table time."""

    def __init__(self, scene: TableScene, speed: float = 1.0, seed: int = 0) -> None:
        self.scene = scene
        self.speed = speed
        self.seed = seed
        self.frames = 0
        self._wall0 = time.monotonic()
        self._blind = threading.Event()  # set: the camera delivers nothing (a test of a dead camera)
        self._closed = False
        self._last_scene: Scene | None = None
        self.render_cpu_s = 0.0  # CPU time spent drawing frames: the simulator's, not the table's
        self.delivered: deque[tuple[float, float]] = deque(maxlen=20_000)  # (table time, wall time) per frame
        self._last_frame = np.zeros((1, 1, 3), np.uint8)

    def read(self) -> np.ndarray | None:
        if self._closed or self._blind.is_set():
            time.sleep(0.05)
            return None
        clock = self.scene.clock
        due = self._wall0 + (clock.now() + clock.frame_s) / self.speed
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        elif delay < -1.0:  # rendering is slower than table time asks: table time waits for it
            self._wall0 -= delay
        t = clock.tick()
        scene = self.scene.scene_at(t)
        if scene != self._last_scene:  # nothing moved: the same picture (rendering is the sim's cost)
            started = time.thread_time()
            self._last_frame, _truth = render(self.scene.view, scene, seed=self.seed * 100_003 + self.frames)
            self._last_scene = scene
            self.render_cpu_s += time.thread_time() - started
        self.frames += 1
        self.delivered.append((t, time.monotonic()))
        return self._last_frame.copy()

    def go_blind(self) -> None:
        self._blind.set()

    def see_again(self) -> None:
        self._blind.clear()
        self._wall0 = time.monotonic() - self.scene.clock.now() / self.speed

    def close(self) -> None:
        self._closed = True


def _between(a: tuple[float, float], b: tuple[float, float], share: float) -> tuple[float, float]:
    return (a[0] + (b[0] - a[0]) * share, a[1] + (b[1] - a[1]) * share)


def _to_frame(view: CameraView, points_mm: np.ndarray) -> np.ndarray:
    import cv2

    return cv2.perspectiveTransform(points_mm.reshape(-1, 1, 2), view.table_to_frame).reshape(-1, 2, 2)
