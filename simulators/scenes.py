"""Random and scripted table scenes for the camera simulator: where the camera is, which cards
lie where, a whole trick frame by frame. Used by the tests, ``croupier bench vision`` and the
``sim`` source of ``croupier vision watch``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from engine.cards import Card
from simulators.camera import Arm, CameraView, Glare, PlacedCard, Scene
from vision.mat import MatLayout


def tilted_view(
    rng: np.random.Generator,
    size: tuple[int, int],
    table: str = "felt",
    mat: MatLayout | None = None,
    extent_mm: tuple[float, float] = (594.0, 420.0),
    fill: float = 0.8,
    deck: dict[Card, np.ndarray] | None = None,
) -> CameraView:
    """A camera above the table, a little shifted, turned and tilted: the sheet (or an area of
    ``extent_mm`` when there is no mat) fills about ``fill`` of the frame."""
    w, h = size
    ew, eh = (mat.width_mm, mat.height_mm) if mat else extent_mm
    sheet = np.array([[0, 0], [ew, 0], [ew, eh], [0, eh]], np.float64)
    scale = fill * min(w / ew, h / eh)
    angle = rng.uniform(-0.12, 0.12)
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    target = (sheet - sheet.mean(axis=0)) * scale @ rotation.T + (w / 2, h / 2)
    target += rng.uniform(-0.03, 0.03, (4, 2)) * scale * eh  # perspective: the corners move independently
    homography = cv2.getPerspectiveTransform(sheet.astype(np.float32), target.astype(np.float32))
    return CameraView(size, homography, table, mat, deck)


@dataclass
class SceneStyle:
    """How hard a random scene is."""

    overlap: bool = True
    face_down: int = 0
    glare: bool = False
    arms: int = 0
    uneven_light: bool = True
    blur: float = 0.6
    noise: float = 3.0
    max_turn_deg: float = 20.0


def _seat_cards(rng, layout: MatLayout, cards: Sequence[Card], style: SceneStyle) -> list[PlacedCard]:
    out = []
    seats = [z for z in layout.zones if z.seat is not None]
    for zone, card in zip(rng.permutation(len(seats)), cards, strict=False):
        x0, y0, x1, y1 = seats[zone].box_mm
        centre = (
            (x0 + x1) / 2 + rng.uniform(-0.15, 0.15) * (x1 - x0),
            (y0 + y1) / 2 + rng.uniform(-0.1, 0.1) * (y1 - y0),
        )
        out.append(PlacedCard(card, centre, rng.uniform(-style.max_turn_deg, style.max_turn_deg)))
    return out


def _centre_pile(rng, layout: MatLayout, cards: Sequence[Card], style: SceneStyle) -> list[PlacedCard]:
    """A trick gathered in the centre: cards fanned so each keeps at least one index corner in view."""
    centre = next(z for z in layout.zones if z.seat is None)
    x0, y0, x1, y1 = centre.box_mm
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    n = len(cards)
    out = []
    for i, card in enumerate(cards):
        dx = (i - (n - 1) / 2) * rng.uniform(34, 42)
        out.append(PlacedCard(card, (cx + dx, cy + rng.uniform(-8, 8)), rng.uniform(-12, 12)))
    return out


def random_scene(
    rng: np.random.Generator, view: CameraView, cards: Sequence[Card], style: SceneStyle | None = None
) -> Scene:
    """Cards in the seats' zones (and, with ``style.overlap``, two or three of them overlapping in
    the centre), under the light and optics ``style`` asks for. Without a mat in the view, the
    cards lie where the zones of a four-seat A2 mat would be."""
    style = style or SceneStyle()
    # Without a mat, cards still lie where a four-seat A2 mat's zones would be.
    layout = view.mat or MatLayout.create(4, "a2")
    cards = list(cards)
    pile = cards[: rng.integers(2, 4)] if style.overlap and len(cards) >= 3 else []
    placed = _seat_cards(rng, layout, cards[len(pile) :], style) + _centre_pile(rng, layout, pile, style)
    for i in range(min(style.face_down, len(placed))):
        placed[i] = PlacedCard(placed[i].card, placed[i].centre_mm, placed[i].angle_deg, face_up=False)
    return Scene(
        cards=tuple(placed),
        arms=tuple(random_arm(rng, view.size) for _ in range(style.arms)),
        glare=(random_glare(rng, view.size),) if style.glare else (),
        light_falloff=float(rng.uniform(0.2, 0.45)) if style.uneven_light else 0.0,
        light_angle=float(rng.uniform(0, 2 * np.pi)),
        blur_sigma=style.blur,
        noise_sigma=style.noise,
    )


def random_arm(rng: np.random.Generator, size: tuple[int, int]) -> Arm:
    w, h = size
    side = rng.integers(4)
    start = [
        (rng.uniform(0, w), h + 40),
        (-40, rng.uniform(0, h)),
        (rng.uniform(0, w), -40),
        (w + 40, rng.uniform(0, h)),
    ][side]
    tip = (rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h)
    return Arm((float(start[0]), float(start[1])), tip, float(0.07 * h))


def random_glare(rng: np.random.Generator, size: tuple[int, int]) -> Glare:
    w, h = size
    return Glare(
        (rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h),
        float(rng.uniform(0.04, 0.08) * h),
        float(rng.uniform(0.5, 0.8)),
    )


def trick_scenes(
    rng: np.random.Generator,
    layout: MatLayout,
    cards: Sequence[Card],
    look: Scene | None = None,
    still_frames: int = 4,
    gathered_frames: int = 5,
) -> list[Scene]:
    """A whole trick, frame by frame: each card in turn is pushed from its seat's edge of the mat
    into the seat's zone (two moving frames) and lies still; then the trick is gathered. Seats
    play in order, seat 1 first. ``look`` gives the light and optics (its cards are ignored)."""
    look = look or Scene()
    seats = [z for z in layout.zones if z.seat is not None]
    settled: list[PlacedCard] = []
    frames = [replace(look, cards=())]
    for card, zone in zip(cards, seats, strict=False):
        x0, y0, x1, y1 = zone.box_mm
        target = np.array([(x0 + x1) / 2 + rng.uniform(-8, 8), (y0 + y1) / 2 + rng.uniform(-8, 8)])
        edge = target + (target - np.array([layout.width_mm / 2, layout.height_mm / 2])) * 0.6
        angle = float(rng.uniform(-15, 15))
        for t in (0.4, 0.75):
            moving = PlacedCard(card, tuple(map(float, edge + (target - edge) * t)), angle + 20 * (1 - t))
            frames.append(replace(look, cards=(*settled, moving)))
        settled.append(PlacedCard(card, (float(target[0]), float(target[1])), angle))
        frames += [replace(look, cards=tuple(settled))] * still_frames
    frames += [replace(look, cards=())] * gathered_frames
    return frames
