"""Synthetic training scenes: card faces laid on tables, lit and photographed badly.

One call of :func:`scene` gives a square BGR image and the indices in it, each with its centre,
height, width and up-direction (from the face's geometry), its card, and whether it is clearly
visible (a target), partly hidden (ignored by the loss) or hidden (absent). Arrangements:
scattered cards, fans, piles and overlapping rows, with face-down cards among them; hands and
arms over them; light falloff, shadows, glare, white balance, low light; blur, noise and JPEG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from engine.cards import CARDS, Card
from vision.index_reads import IN_VIEW
from vision.ink import without_colour
from vision.training import backgrounds
from vision.training.faces import Face, available_designs, design_faces, font_face, fonts
from vision.training.pasted import PASTED, RealIndices, pasted

VISIBLE = IN_VIEW  # share of an index's area in view for it to be a target (the table reads no less)
# Of a design's faces drawn, the share that are its jokers (2 in 54 otherwise: too rare to learn
# their long, lettered indices).
JOKERS = 0.08
JOKER_CARDS = tuple(card for card in CARDS if card.is_joker)
HIDDEN = 0.35  # below this share it is absent; between the two the loss ignores it


@dataclass(frozen=True, slots=True)
class IndexLabel:
    centre: tuple[float, float]
    height: float  # along the index's up direction, pixels
    width: float
    angle_deg: float  # the index's up direction: 0 = towards -y (up the image), clockwise
    card: Card
    state: str  # "target", "ignore"
    geometry: bool = True  # False when only the box is known (real photographs)


class FacePool:
    """Faces to draw from: every allowed design, and a pool of drawn ones renewed as it is used."""

    def __init__(
        self,
        rng: np.random.Generator,
        drawn: int = 400,
        extra: dict[str, tuple[Face, ...]] | None = None,
        drawn_jokers: float = 0.0,
        real: RealIndices | None = None,
        pasted_share: float = 0.0,
    ) -> None:
        self.rng = rng
        # Of the faces picked (jokers aside), the share given a training photo's index in place of
        # their own (vision.training.pasted); none drawn for when the share is 0.
        self.real, self.pasted_share = real, pasted_share if real else 0.0
        # Of the drawn faces picked, the share that are a joker drawn anew (0: as they come, 2 in
        # 54). Half of drawn jokers carry their word across the top, as the photographed deck's do.
        self.drawn_jokers = drawn_jokers
        self.designs = {d: design_faces(d) for d in available_designs()} | (extra or {})
        if not fonts():
            drawn = 0  # no fonts on this machine: the designs' faces only
        self.drawn: list[Face] = [font_face(rng, CARDS[int(rng.integers(len(CARDS)))]) for _ in range(drawn)]

    def pick(self) -> Face:
        face = self._pick()
        if self.real and self.pasted_share and not face.card.is_joker and self.rng.random() < self.pasted_share:
            card, patch, box = self.real.patch(self.rng)
            return pasted(face, card, patch, box)
        return face

    def _pick(self) -> Face:
        if self.drawn and self.rng.random() < 0.45:
            if self.drawn_jokers and self.rng.random() < self.drawn_jokers:
                return font_face(self.rng, JOKER_CARDS[int(self.rng.integers(len(JOKER_CARDS)))])
            k = int(self.rng.integers(len(self.drawn)))
            if self.rng.random() < 0.05:  # renew a drawn face now and then
                self.drawn[k] = font_face(self.rng, CARDS[int(self.rng.integers(len(CARDS)))])
            return self.drawn[k]
        faces = list(self.designs.values())[int(self.rng.integers(len(self.designs)))]
        jokers = [f for f in faces if f.card.is_joker]
        if jokers and self.rng.random() < JOKERS:
            return jokers[int(self.rng.integers(len(jokers)))]
        return faces[int(self.rng.integers(len(faces)))]


def _rounded_mask(h: int, w: int, radius: int) -> np.ndarray:
    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (radius, 0), (w - 1 - radius, h - 1), 255, -1)
    cv2.rectangle(mask, (0, radius), (w - 1, h - 1 - radius), 255, -1)
    for cx in (radius, w - 1 - radius):
        for cy in (radius, h - 1 - radius):
            cv2.circle(mask, (cx, cy), radius, 255, -1, cv2.LINE_AA)
    return mask


def _back(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    img = np.empty((h, w, 3), np.uint8)
    img[:] = rng.integers(180, 255)
    colour = tuple(int(v) for v in rng.integers(0, 200, 3))
    m = int(0.05 * w)
    cv2.rectangle(img, (m, m), (w - m, h - m), colour, -1)
    step = int(rng.integers(6, 20))
    light = tuple(min(255, c + 60) for c in colour)
    for k in range(-h, w + h, step):
        cv2.line(img, (k, m), (k + h, m + h), light, 2)
    return img


def _placement(rng, centre, scale, angle_deg, face_hw, tilt) -> np.ndarray:
    """Face pixels -> scene pixels: scale, turn about the face's centre, move, and a little
    perspective (the corners jittered by ``tilt`` of the card's size)."""
    h, w = face_hw
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) * scale
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) - [w / 2, h / 2]
    placed = corners @ rot.T + centre
    placed += rng.uniform(-tilt, tilt, placed.shape) * scale * max(h, w)
    source = (corners + np.array([w / 2, h / 2])).astype(np.float32)
    return cv2.getPerspectiveTransform(source, placed.astype(np.float32)).astype(np.float64)


def _transform(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    p = np.hstack([points, np.ones((len(points), 1))]) @ h.T
    return p[:, :2] / p[:, 2:3]


def _index_quads(face: Face, h: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Each index of the face in the scene: its quad, its top-middle and its bottom-middle point."""
    out = []
    for (cx, cy), bw, bh, turn in face.index_boxes():
        s = -1.0 if turn else 1.0
        quad = np.array(
            [
                [cx - bw / 2, cy - bh / 2],
                [cx + bw / 2, cy - bh / 2],
                [cx + bw / 2, cy + bh / 2],
                [cx - bw / 2, cy + bh / 2],
            ]
        )
        ends = np.array([[cx, cy - s * bh / 2], [cx, cy + s * bh / 2], [cx - s * bw / 2, cy], [cx + s * bw / 2, cy]])
        out.append((_transform(h, quad), _transform(h, ends), np.array([cx, cy])))
    return out


class Canvas:
    """The scene being built: pixels, and which card (or occluder, -1) owns each pixel."""

    def __init__(self, image: np.ndarray) -> None:
        self.image = image.astype(np.float32)
        self.owner = np.zeros(image.shape[:2], np.int16)
        self.size = image.shape[0]

    def paste(self, picture: np.ndarray, mask: np.ndarray, h: np.ndarray, owner: int, shadow: float) -> None:
        size = (self.size, self.size)
        alpha = cv2.warpPerspective(mask, h, size, flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255
        if shadow > 0:
            dx, dy = np.random.default_rng(owner).uniform(1, 5, 2)
            soft = cv2.GaussianBlur(alpha, (0, 0), 3)
            soft = np.roll(soft, (int(dy), int(dx)), axis=(0, 1))[..., None] if soft.ndim == 2 else soft
            self.image *= 1 - shadow * soft
        warped = cv2.warpPerspective(picture, h, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        self.image = self.image * (1 - alpha) + warped.astype(np.float32) * alpha
        self.owner[alpha[..., 0] > 0.5] = owner


def _arrangement(rng: np.random.Generator, n: int, size: int, card_h: float) -> list[tuple[np.ndarray, float]]:
    """Centres and turns for n cards: scattered, a fan, a pile or an overlapping row."""
    kind = rng.choice(["scatter", "fan", "pile", "row"], p=[0.3, 0.25, 0.25, 0.2])
    base = rng.uniform(0, 360)
    centre = rng.uniform(0.2, 0.8, 2) * size
    if kind == "scatter":
        return [(rng.uniform(-0.1, 1.1, 2) * size, rng.uniform(0, 360)) for _ in range(n)]
    if kind == "fan":
        step = rng.uniform(6, 22)
        pivot_r = card_h * rng.uniform(0.3, 0.6)
        out = []
        for k in range(n):
            a = base + (k - (n - 1) / 2) * step
            r = math.radians(a)
            out.append((centre + pivot_r * np.array([math.sin(r), -math.cos(r)]), a))
        return out
    if kind == "pile":
        return [(centre + rng.normal(0, 0.25 * card_h, 2), rng.uniform(0, 360)) for _ in range(n)]
    step = card_h * rng.uniform(0.1, 0.3)
    r = math.radians(base + 90)
    d = np.array([math.sin(r), -math.cos(r)])
    return [(centre + (k - (n - 1) / 2) * step * d, base + rng.normal(0, 3)) for k in range(n)]


def _hand(rng: np.random.Generator, canvas: Canvas) -> None:
    """An arm reaching in from an edge with a hand at its end: skin over whatever lies there."""
    s = canvas.size
    skin = np.array(
        [(110, 145, 205), (80, 110, 170), (60, 80, 120), (140, 170, 225), (45, 60, 95)][rng.integers(5)], np.float32
    ) * rng.uniform(0.8, 1.15)
    edge = int(rng.integers(4))
    t = rng.uniform(0, s)
    start = [(t, -20), (s + 20, t), (t, s + 20), (-20, t)][edge]
    tip = rng.uniform(0.15, 0.85, 2) * s
    width = rng.uniform(0.12, 0.35) * s
    mask = np.zeros((s, s), np.uint8)
    cv2.line(mask, (int(start[0]), int(start[1])), (int(tip[0]), int(tip[1])), 255, int(width))
    cv2.ellipse(
        mask, (int(tip[0]), int(tip[1])), (int(width * 0.7), int(width * 0.55)), rng.uniform(0, 180), 0, 360, 255, -1
    )
    for _ in range(int(rng.integers(0, 5))):  # fingers
        a = rng.uniform(0, 2 * math.pi)
        end = tip + width * rng.uniform(0.6, 1.1) * np.array([math.cos(a), math.sin(a)])
        cv2.line(mask, (int(tip[0]), int(tip[1])), (int(end[0]), int(end[1])), 255, max(2, int(width * 0.18)))
    alpha = cv2.GaussianBlur(mask, (0, 0), 1.5).astype(np.float32)[..., None] / 255
    shade = 1 + 0.25 * backgrounds._smooth_noise(rng, s, s / 3)[..., None]
    canvas.image = canvas.image * (1 - alpha) + skin * shade * alpha
    canvas.owner[mask > 127] = -1


def _light(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    s = image.shape[0]
    field = 1 + rng.uniform(0.1, 0.5) * backgrounds._smooth_noise(rng, s, s / rng.uniform(1, 3))
    image = image * field[..., None]
    if rng.random() < 0.4:  # a shadow cast across the table
        mask = np.zeros((s, s), np.uint8)
        pts = (rng.uniform(-0.3, 1.3, (int(rng.integers(3, 6)), 2)) * s).astype(np.int32)
        cv2.fillPoly(mask, [pts], 255)
        soft = cv2.GaussianBlur(mask, (0, 0), rng.uniform(2, 15)).astype(np.float32)[..., None] / 255
        image = image * (1 - rng.uniform(0.25, 0.65) * soft)
    if rng.random() < 0.3:  # glare
        mask = np.zeros((s, s), np.float32)
        c = (int(rng.uniform(0, s)), int(rng.uniform(0, s)))
        axes = (int(rng.uniform(5, s / 3)), int(rng.uniform(5, s / 4)))
        cv2.ellipse(mask, c, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(3, 12))
        image = image + rng.uniform(60, 220) * mask[..., None]
    image = image * rng.uniform(0.8, 1.2, 3)  # white balance
    image = image * (rng.uniform(0.25, 1.3) if rng.random() < 0.3 else rng.uniform(0.75, 1.15))
    return image


def _camera(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    image = np.clip(image, 0, 255)
    if rng.random() < 0.5:
        image = cv2.GaussianBlur(image, (0, 0), rng.uniform(0.3, 1.4))
    elif rng.random() < 0.3:
        k = int(rng.integers(3, 8))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, rot, (k, k))
        image = cv2.filter2D(image, -1, kernel / max(kernel.sum(), 1e-6))
    if rng.random() < 0.7:
        image = image + rng.normal(0, rng.uniform(1, 12), image.shape)
    image = np.clip(image, 0, 255).astype(np.uint8)
    if rng.random() < 0.2:  # a grey picture (a camera in poor light, a photo set made grey): suits by shape
        image = grey(image)
    if rng.random() < 0.6:
        _ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 95))])
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if rng.random() < 0.25:  # a camera that saw fewer pixels
        f = rng.uniform(0.5, 0.85)
        s = image.shape[0]
        image = cv2.resize(cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA), (s, s))
    return image


def grey(image: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """A BGR picture with its colour taken out (still three channels): as a camera's grey weighs
    blue, green and red (``weights``, summing to 1), else as the usual luminance does."""
    if weights is None:
        return without_colour(image)
    one = np.clip(image.astype(np.float32) @ np.asarray(weights, np.float32), 0, 255).astype(np.uint8)
    return np.repeat(one[..., None], 3, axis=-1)


def grey_weights(rng: np.random.Generator) -> np.ndarray:
    """How a grey picture weighs blue, green and red, drawn at random: red ink comes out anywhere
    from as dark as black to nearly as light as the paper, so a reader taught on such pictures
    tells a red suit from a black one by its shape, not by how dark it is grey."""
    return rng.dirichlet((1.0, 1.0, 1.0))


def scene(rng: np.random.Generator, pool: FacePool, size: int = 256) -> tuple[np.ndarray, list[IndexLabel]]:
    """One synthetic scene and its labels."""
    canvas = Canvas(backgrounds.table(rng, size))
    index_h = math.exp(rng.uniform(math.log(11), math.log(56)))
    n = int(rng.integers(2, 13))
    placed: list[tuple[int, Face, np.ndarray]] = []
    first = pool.pick()
    card_h = index_h / (first.index_box[3] - first.index_box[1]) * first.image.shape[0]
    for k, (centre, angle) in enumerate(_arrangement(rng, n, size, card_h), start=1):
        face = first if k == 1 else pool.pick()
        fh, fw = face.image.shape[:2]
        scale = index_h * rng.uniform(0.9, 1.1) / (face.index_box[3] - face.index_box[1])
        h = _placement(rng, centre, scale, angle, (fh, fw), rng.uniform(0, 0.06))
        radius = max(2, int(0.045 * fw))
        if rng.random() < 0.08:  # a face-down card among the others
            canvas.paste(_back(rng, fh, fw), _rounded_mask(fh, fw, radius), h, 1000 + k, rng.uniform(0, 0.3))
            continue
        canvas.paste(face.image, _rounded_mask(fh, fw, radius), h, k, rng.uniform(0, 0.35))
        placed.append((k, face, h))
    if rng.random() < 0.3:
        _hand(rng, canvas)
    labels = [label for k, face, h in placed for label in _labels(canvas, k, face, h)]
    image = _camera(rng, _light(rng, canvas.image))
    return image, labels


def _labels(canvas: Canvas, owner: int, face: Face, h: np.ndarray) -> list[IndexLabel]:
    out = []
    for quad, ends, _ in _index_quads(face, h):
        top, bottom, left, right = ends
        up = top - bottom
        centre = quad.mean(axis=0)
        angle = math.degrees(math.atan2(up[0], -up[1])) % 360
        state = _state(canvas, owner, quad)
        if state is None:
            continue
        out.append(
            IndexLabel(
                (float(centre[0]), float(centre[1])),
                float(np.hypot(*up)),
                float(np.hypot(*(right - left))),
                angle,
                face.card,
                state,
                geometry=face.design != PASTED,  # which way up a pasted index stands is not known
            )
        )
    return out


def _state(canvas: Canvas, owner: int, quad: np.ndarray) -> str | None:
    s = canvas.size
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    area = max(1, cv2.contourArea(quad.astype(np.float32)))
    if x1 <= 0 or y1 <= 0 or x0 >= s or y0 >= s:
        return None
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(s, x1), min(s, y1)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad - [x0, y0]).astype(np.int32), 1)
    inside = mask[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0]
    seen = int(np.count_nonzero(inside & (canvas.owner[cy0:cy1, cx0:cx1] == owner)))
    share = seen / max(1, int(mask.sum()), int(area * 0.5))
    if share >= VISIBLE:
        return "target"
    return "ignore" if share >= HIDDEN else None
