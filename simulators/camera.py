"""The simulated overhead camera: table scenes rendered as real pixels.

A :class:`Scene` says what lies on the table (cards, face up or down, in table millimetres, which
are the mat's millimetres when a mat is there), which arms pass over it, and how bad the light
and the optics are; a :class:`CameraView` says where the camera is (a homography from table
millimetres to frame pixels), the frame size, the table surface and whether the printed mat
lies on it. :func:`render` turns the two into a BGR frame **and**, separately, the ground truth
(:class:`CardTruth`) that tests compare against. :class:`SimulatedCamera` yields frames only:
the vision code never sees the truth.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from engine.cards import Card
from simulators.card_faces import FACE_H, FACE_W, card_mask, render_back, render_face
from vision.mat import MatLayout
from vision.mat_print import render_mat

CARD_W_MM = 63.5
CARD_H_MM = 88.9
TABLES = ("felt", "wood", "pale")
_MAT_PX_PER_MM = 3.0
_SKIN = (110, 145, 205)
_SLEEVE = (90, 60, 50)


@dataclass(frozen=True, slots=True)
class PlacedCard:
    """A card on the table: its centre (mm), its turn (degrees, 0 = upright), face up or down."""

    card: Card
    centre_mm: tuple[float, float]
    angle_deg: float = 0.0
    face_up: bool = True


@dataclass(frozen=True, slots=True)
class Arm:
    """A forearm and hand reaching from ``start`` to ``tip`` (frame pixels), ``width`` pixels wide."""

    start: tuple[float, float]
    tip: tuple[float, float]
    width: float


@dataclass(frozen=True, slots=True)
class Glare:
    """A specular highlight: centre (frame pixels), radius (pixels), strength (0-1 of white)."""

    centre: tuple[float, float]
    radius: float
    strength: float


@dataclass(frozen=True, slots=True)
class Scene:
    """What lies on the table in one frame, and how the light and optics treat it."""

    cards: tuple[PlacedCard, ...] = ()
    arms: tuple[Arm, ...] = ()
    glare: tuple[Glare, ...] = ()
    light_falloff: float = 0.0  # 0: even light; 0.4: one side of the frame 40 % darker
    light_angle: float = 0.0
    blur_sigma: float = 0.0
    noise_sigma: float = 0.0


@dataclass(frozen=True, slots=True)
class CameraView:
    """The camera: frame size, the homography table-mm -> frame-px, the table, the mat (or None)."""

    size: tuple[int, int]
    table_to_frame: np.ndarray
    table: str = "felt"
    mat: MatLayout | None = None
    deck: dict[Card, np.ndarray] | None = None  # faces of another design (any size); None: the project's


@dataclass(frozen=True, slots=True)
class CardTruth:
    """Where a card really is in a frame, for tests only."""

    card: Card
    face_up: bool
    corners_px: np.ndarray  # the face's top-left, top-right, bottom-right, bottom-left
    centre_px: tuple[float, float]
    visible: float  # the fraction of the card not covered by later cards or arms
    zone: str | None  # the mat zone holding its centre, if a mat is there


def card_to_table(placed: PlacedCard) -> np.ndarray:
    """The affine map (3x3) from face pixels to table millimetres for a placed card."""
    s = CARD_W_MM / FACE_W
    a = np.deg2rad(placed.angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) * s
    offset = np.array(placed.centre_mm) - rot @ np.array([FACE_W / 2, FACE_H / 2])
    return np.array([[*rot[0], offset[0]], [*rot[1], offset[1]], [0, 0, 1]])


@cache
def _table_texture(kind: str, width: int, height: int) -> np.ndarray:
    rng = np.random.default_rng(TABLES.index(kind))
    noise = cv2.GaussianBlur(rng.normal(0, 1, (height, width)).astype(np.float32), (0, 0), 2)
    if kind == "felt":
        base, texture = np.array([40, 110, 30], np.float32), noise[..., None] * 6
    elif kind == "wood":
        streaks = cv2.resize(rng.normal(0, 1, (height // 8 + 1, 4)).astype(np.float32), (width, height))
        streaks = cv2.GaussianBlur(streaks, (0, 0), 3)
        base, texture = np.array([50, 95, 150], np.float32), (streaks * 18 + noise * 4)[..., None]
    elif kind == "pale":
        base, texture = np.array([178, 190, 198], np.float32), noise[..., None] * 3
    else:
        raise ValueError(f"unknown table {kind!r} (use {', '.join(TABLES)})")
    img = np.clip(base + texture, 0, 255).astype(np.uint8)
    img.setflags(write=False)
    return img


@cache
def _mat_image(layout: MatLayout) -> np.ndarray:
    return render_mat(layout, _MAT_PX_PER_MM)


def _warp(image: np.ndarray, homography: np.ndarray, size: tuple[int, int], flags: int = cv2.INTER_LINEAR):
    return cv2.warpPerspective(image, homography, size, flags=flags, borderMode=cv2.BORDER_CONSTANT)


def _composite(frame: np.ndarray, layer: np.ndarray, alpha: np.ndarray) -> None:
    a = alpha[..., None]
    frame[:] = frame * (1 - a) + layer * a


def _face(view: CameraView, card: Card) -> np.ndarray:
    if view.deck is None:
        return render_face(card)
    face = view.deck[card]
    # Printed at poker size whatever the design's proportions, like the project's own faces.
    return (
        face if face.shape[:2] == (FACE_H, FACE_W) else cv2.resize(face, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)
    )


def _roi(to_frame: np.ndarray, size: tuple[int, int], pad: int = 8) -> tuple[int, int, int, int] | None:
    """The frame rectangle (x0, y0, x1, y1) a card warped by ``to_frame`` can touch, or None."""
    corners = np.array([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]], np.float64).reshape(-1, 1, 2)
    pts = cv2.perspectiveTransform(corners, to_frame).reshape(4, 2)
    x0, y0 = np.floor(pts.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(size[0], x1), min(size[1], y1)
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def _draw_card(frame: np.ndarray, labels: np.ndarray, view: CameraView, placed: PlacedCard, label: int) -> None:
    full = view.table_to_frame @ card_to_table(placed)
    roi = _roi(full, view.size)
    if roi is None:
        return
    x0, y0, x1, y1 = roi
    # Everything is warped into the card's bounding box only: a whole-frame warp per card is slow.
    to_roi = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]]) @ full
    size = (x1 - x0, y1 - y0)
    region = frame[y0:y1, x0:x1]
    mask = _warp(card_mask(), to_roi, size).astype(np.float32) / 255
    # A soft contact shadow below and right of the card: the only edge between two white cards.
    shift = np.array([[1, 0, 2.5], [0, 1, 3.5], [0, 0, 1]])
    shadow = cv2.GaussianBlur(_warp(card_mask(), shift @ to_roi, size), (0, 0), 2.5)
    region *= 1 - 0.35 * (shadow.astype(np.float32) / 255)[..., None]
    face = _face(view, placed.card) if placed.face_up else render_back()
    _composite(region, _warp(face, to_roi, size).astype(np.float32), mask)
    labels[y0:y1, x0:x1][mask > 0.5] = label


def _draw_arm(frame: np.ndarray, labels: np.ndarray, arm: Arm) -> None:
    start, tip = np.array(arm.start), np.array(arm.tip)
    wrist = tip + (start - tip) * min(1.0, 1.6 * arm.width / max(1.0, float(np.linalg.norm(start - tip))))
    layer = np.zeros(frame.shape[:2], np.uint8)
    colour_layer = np.zeros_like(frame)
    w = round(arm.width)
    cv2.line(colour_layer, tuple(map(round, start)), tuple(map(round, wrist)), _SLEEVE, w + 8, cv2.LINE_AA)
    cv2.line(colour_layer, tuple(map(round, wrist)), tuple(map(round, tip)), _SKIN, w, cv2.LINE_AA)
    cv2.circle(colour_layer, tuple(map(round, tip)), w // 2, _SKIN, -1, cv2.LINE_AA)
    cv2.line(layer, tuple(map(round, start)), tuple(map(round, wrist)), 255, w + 8, cv2.LINE_AA)
    cv2.line(layer, tuple(map(round, wrist)), tuple(map(round, tip)), 255, w, cv2.LINE_AA)
    cv2.circle(layer, tuple(map(round, tip)), w // 2, 255, -1, cv2.LINE_AA)
    _composite(frame, colour_layer.astype(np.float32), layer.astype(np.float32) / 255)
    labels[layer > 127] = -1


def _low_frequency(w: int, h: int, draw) -> np.ndarray:
    """A smooth full-frame field drawn at 1/8 scale and enlarged: light varies slowly, so this is exact enough."""
    small = np.zeros((h // 8 + 1, w // 8 + 1), np.float32)
    draw(small, 8.0)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _apply_light(frame: np.ndarray, scene: Scene, seed: int) -> np.ndarray:
    h, w = frame.shape[:2]
    if scene.light_falloff:

        def falloff(field: np.ndarray, step: float) -> None:
            ys, xs = np.mgrid[0 : field.shape[0], 0 : field.shape[1]].astype(np.float32) * step
            d = np.cos(scene.light_angle) * (xs / w - 0.5) + np.sin(scene.light_angle) * (ys / h - 0.5) + 0.5
            field[:] = 1 - scene.light_falloff * np.clip(d, 0, 1)

        frame *= _low_frequency(w, h, falloff)[..., None]
    for g in scene.glare:

        def spot(field: np.ndarray, step: float, g: Glare = g) -> None:
            centre = (round(g.centre[0] / step), round(g.centre[1] / step))
            cv2.circle(field, centre, max(1, round(g.radius / step)), 1.0, -1, cv2.LINE_AA)
            field[:] = cv2.GaussianBlur(field, (0, 0), g.radius / step / 2.5) * g.strength

        frame += (255 - frame) * _low_frequency(w, h, spot)[..., None]
    if scene.blur_sigma:
        frame = cv2.GaussianBlur(frame, (0, 0), scene.blur_sigma)
    if scene.noise_sigma:
        noise = np.empty(frame.shape, np.float32)
        cv2.setRNGSeed(seed % 0x7FFFFFFF)  # a C int; cv2.randn is ten times faster than numpy's normal here
        cv2.randn(noise, 0.0, scene.noise_sigma)
        frame += noise
    return np.clip(frame, 0, 255).astype(np.uint8)


def _truths(view: CameraView, scene: Scene, labels: np.ndarray, areas: list[int]) -> list[CardTruth]:
    corners_face = np.array([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]], np.float64)
    out = []
    for i, placed in enumerate(scene.cards):
        to_frame = view.table_to_frame @ card_to_table(placed)
        corners = cv2.perspectiveTransform(corners_face.reshape(-1, 1, 2), to_frame).reshape(4, 2)
        centre = cv2.perspectiveTransform(np.array([[[FACE_W / 2, FACE_H / 2]]]), to_frame)[0, 0]
        visible = float(np.count_nonzero(labels == i + 1)) / max(1, areas[i])
        zone = view.mat.zone_at(*placed.centre_mm) if view.mat else None
        out.append(
            CardTruth(
                placed.card,
                placed.face_up,
                corners,
                (float(centre[0]), float(centre[1])),
                visible,
                zone.name if zone else None,
            )
        )
    return out


_last_backdrop: list[tuple[CameraView, np.ndarray]] = []


def _backdrop(view: CameraView) -> np.ndarray:
    """The table with the mat on it, before cards and light (float32). The last view's is kept:
    a sequence of frames from one camera (a trick, an enrolment) shares it, and the full-frame
    warp of the mat is most of an empty frame's cost."""
    if _last_backdrop and _last_backdrop[0][0] is view:
        return _last_backdrop[0][1]
    w, h = view.size
    frame = _table_texture(view.table, w, h).astype(np.float32)
    if view.mat is not None:
        px_to_mm = np.diag([1 / _MAT_PX_PER_MM, 1 / _MAT_PX_PER_MM, 1.0])
        sheet = _mat_image(view.mat)
        to_frame = view.table_to_frame @ px_to_mm
        alpha = _warp(np.full(sheet.shape[:2], 255, np.uint8), to_frame, view.size).astype(np.float32) / 255
        _composite(frame, _warp(sheet, to_frame, view.size, cv2.INTER_AREA).astype(np.float32), alpha)
    frame.setflags(write=False)
    _last_backdrop[:] = [(view, frame)]
    return frame


def render(view: CameraView, scene: Scene, seed: int = 0) -> tuple[np.ndarray, list[CardTruth]]:
    """One frame of ``scene`` seen through ``view`` (BGR uint8), and the truth about its cards."""
    w, h = view.size
    frame = _backdrop(view).copy()
    labels = np.zeros((h, w), np.int32)
    areas = []
    for i, placed in enumerate(scene.cards):
        _draw_card(frame, labels, view, placed, i + 1)
        areas.append(int(np.count_nonzero(labels == i + 1)))
    for arm in scene.arms:
        _draw_arm(frame, labels, arm)
    image = _apply_light(frame, scene, seed)
    return image, _truths(view, scene, labels, areas)


class SimulatedCamera:
    """A frame source over a sequence of scenes: ``read()`` gives the next frame, None at the end.

    The ground truth of every frame delivered is kept in :attr:`truths`, for tests; the vision
    pipeline is handed only the frames.
    """

    def __init__(self, view: CameraView, scenes: Iterable[Scene], seed: int = 0) -> None:
        self.view = view
        self._scenes = iter(scenes)
        self._seed = seed
        self._count = 0
        self.truths: list[list[CardTruth]] = []

    def read(self) -> np.ndarray | None:
        scene = next(self._scenes, None)
        if scene is None:
            return None
        frame, truth = render(self.view, scene, seed=self._seed * 100_003 + self._count)
        self._count += 1
        self.truths.append(truth)
        return frame

    def close(self) -> None:
        self._scenes = iter(())

    def __iter__(self) -> Iterator[np.ndarray]:
        while (frame := self.read()) is not None:
            yield frame
