"""A simulated person enrolling a deck in front of the simulated camera.

The operator reads the screen: :meth:`SimulatedOperator.ask` is how it hears which card the
enrolment wants. It then brings that card in by hand, lets go of it in the middle of the mat,
leaves it lying still a few frames, and takes it away; between cards the mat is empty. It can be
told to make mistakes (show another card the first time a card is asked for). Like
:class:`simulators.camera.SimulatedCamera`, it is a frame source: the enrolment gets pixels only.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

import cv2
import numpy as np

from engine.cards import Card
from simulators.camera import Arm, CameraView, PlacedCard, Scene, render
from simulators.scenes import tilted_view
from vision.mat import MatLayout

_NOISE_FIELDS = 5
LIE_FRAMES = 6  # frames a card lies still before the operator takes it back: more than the enrolment needs


class SimulatedOperator:
    """Frames of a person showing the cards asked for, one at a time, on the mat's centre."""

    def __init__(
        self,
        view: CameraView,
        look: Scene,
        rng: np.random.Generator,
        mistakes: dict[Card, Card] | None = None,
        lie_frames: int = LIE_FRAMES,
        stop_after: int | None = None,
    ) -> None:
        if view.mat is None:
            raise ValueError("the operator shows cards on a mat: the view needs one")
        self.view = view
        self.mat = view.mat
        self._look = replace(look, noise_sigma=0.0)  # noise is added per frame: a still scene renders once
        self._noise = look.noise_sigma
        self._rng = rng
        self._mistakes = dict(mistakes or {})
        self._lie_frames = lie_frames
        self._stop_after = stop_after
        self._frames = 0
        self._queue: deque[tuple[Scene, int]] = deque()  # scenes still to show, each for so many frames
        self._empty = self._clean(self._look)
        self.shown: list[Card] = []  # what it actually showed, for tests
        self._noise_fields: list[tuple[np.ndarray, np.ndarray]] = []

    @classmethod
    def on_mat(
        cls,
        layout: MatLayout,
        deck: dict[Card, np.ndarray] | None = None,
        seed: int = 1,
        size: tuple[int, int] = (1280, 720),
        **options: object,
    ) -> SimulatedOperator:
        """An operator at a table with this mat, seen by a camera a little tilted, in uneven light;
        ``deck`` the faces of the design (None: the project's)."""
        rng = np.random.default_rng(seed)
        view = tilted_view(rng, size, "wood", layout, deck=deck)
        look = Scene(light_falloff=0.3, blur_sigma=0.6, noise_sigma=3.0)
        return cls(view, look, rng, **options)  # type: ignore[arg-type]

    def ask(self, card: Card) -> None:
        """The operator reads "show the ..." on the screen and fetches the card (or, by mistake,
        another one)."""
        shown = self._mistakes.pop(card, card)
        self.shown.append(shown)
        self._queue.extend(self._showing(shown))

    def _showing(self, card: Card) -> list[tuple[Scene, int]]:
        x0, y0, x1, y1 = next(z for z in self.mat.zones if z.seat is None).box_mm
        rng = self._rng
        centre = np.array([(x0 + x1) / 2 + rng.uniform(-12, 12), (y0 + y1) / 2 + rng.uniform(-8, 8)])
        angle = float(rng.uniform(-15, 15))
        near_edge = np.array([centre[0], self.mat.height_mm + 40.0])  # brought from the operator's side
        out = []
        for t in (0.7,):  # in the hand, on the way in: the hand covers part of it
            at = near_edge + (centre - near_edge) * t
            held = PlacedCard(card, (float(at[0]), float(at[1])), angle + 12 * (1 - t))
            out.append((replace(self._look, cards=(held,), arms=(self._arm(at),)), 1))
        lying = PlacedCard(card, (float(centre[0]), float(centre[1])), angle)
        out.append((replace(self._look, cards=(lying,)), self._lie_frames))
        out.append((replace(self._look, cards=(lying,), arms=(self._arm(centre),)), 1))  # picked up
        return out

    def _arm(self, tip_mm: np.ndarray) -> Arm:
        """A forearm from the bottom of the frame to the card's middle."""
        tip = cv2.perspectiveTransform(np.array([[tip_mm]], np.float64), self.view.table_to_frame)[0, 0]
        h = self.view.size[1]
        return Arm((float(tip[0]), float(h + 40)), (float(tip[0]), float(tip[1])), 0.07 * h)

    def _clean(self, scene: Scene) -> np.ndarray:
        frame, _ = render(self.view, scene)
        return frame

    def read(self) -> np.ndarray | None:
        if self._stop_after is not None and self._frames >= self._stop_after:
            return None
        self._frames += 1
        if self._queue:
            scene, repeat = self._queue[0]
            clean = self._cached(scene)
            if repeat > 1:
                self._queue[0] = (scene, repeat - 1)
            else:
                self._queue.popleft()
                self._cache = None
        else:
            clean = self._empty  # waiting for the next prompt, hands off the mat
        return self._noisy(clean)

    _cache: tuple[Scene, np.ndarray] | None = None

    def _cached(self, scene: Scene) -> np.ndarray:
        if self._cache is None or self._cache[0] is not scene:
            self._cache = (scene, self._clean(scene))
        return self._cache[1]

    def _noisy(self, clean: np.ndarray) -> np.ndarray:
        """The sensor's noise, different in consecutive frames: a few fields drawn once and taken
        in turn (drawing a fresh 1280x720 field per frame costs more than finding the cards)."""
        if not self._noise:
            return clean.copy()
        if not self._noise_fields:
            for k in range(_NOISE_FIELDS):
                noise = np.empty(clean.shape, np.float32)
                # Seeded here: OpenCV's generator is the process's, and other work (GrabCut's
                # k-means) moves it, so the frames would differ with what ran before.
                cv2.setRNGSeed(1000 + k)
                cv2.randn(noise, 0.0, self._noise)
                noise = np.round(noise)
                self._noise_fields.append(
                    (np.clip(noise, 0, 255).astype(np.uint8), np.clip(-noise, 0, 255).astype(np.uint8))
                )
        up, down = self._noise_fields[self._frames % _NOISE_FIELDS]
        return cv2.subtract(cv2.add(clean, up), down)  # saturating, like the clip of a real sensor

    def close(self) -> None:
        self._queue.clear()
