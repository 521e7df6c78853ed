"""Real deck designs from Debian's card-theme packages, as face images.

Only these three are used, for development and tests (the issue forbids tuning on others):
``kde:standard`` and ``kde:nicu-white`` from ``kdegames-card-data-kf5``, ``aisleriot:anglo`` from
``gnome-cards-data``. Each card is one element of the theme's SVG, rendered with ``rsvg-convert``
(package ``librsvg2-bin``) and cached as PNG under ``~/.cache/croupier/decks``.
"""

from __future__ import annotations

import gzip
import logging
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.cards import BIG_JOKER, CARDS, Card

log = logging.getLogger(__name__)

_RANK_NAMES = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
_SUIT_NAMES = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}
RENDER_WIDTH = 500  # pixels: twice the canonical face, so the cached faces lose nothing


class DeckError(RuntimeError):
    """A deck that cannot be loaded: unknown, or its package or renderer is not installed."""


@dataclass(frozen=True, slots=True)
class DeckTheme:
    name: str
    path: Path
    package: str
    kde_ids: bool  # "1_club" / "red_joker" (KDE) rather than "club_1" / "joker_red" (aisleriot)

    def element(self, card: Card) -> str:
        if card.is_joker:
            colour = "red" if card.index == BIG_JOKER else "black"
            return f"{colour}_joker" if self.kde_ids else f"joker_{colour}"
        code = str(card)
        rank, suit = _RANK_NAMES.get(code[0], code[0]), _SUIT_NAMES[code[1]]
        return f"{rank}_{suit}" if self.kde_ids else f"{suit}_{rank}"


DECKS = {
    "kde:standard": DeckTheme(
        "kde:standard", Path("/usr/share/carddecks/svg-standard/standard.svgz"), "kdegames-card-data-kf5", True
    ),
    "kde:nicu-white": DeckTheme(
        "kde:nicu-white", Path("/usr/share/carddecks/svg-nicu-white/white.svgz"), "kdegames-card-data-kf5", True
    ),
    "aisleriot:anglo": DeckTheme(
        "aisleriot:anglo", Path("/usr/share/aisleriot/cards/anglo.svgz"), "gnome-cards-data", False
    ),
}


def deck_available(name: str) -> bool:
    theme = DECKS.get(name)
    return theme is not None and theme.path.is_file() and shutil.which("rsvg-convert") is not None


def _cache_dir(name: str) -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return root / "croupier" / "decks" / name.replace(":", "-")


def _render(theme: DeckTheme, card: Card) -> np.ndarray:
    """One card's element, rendered and cut out of its transparent surroundings, over white. When
    the element's box is much wider than the card, the card is rendered again, larger."""
    face = _render_at(theme, card, RENDER_WIDTH)
    if face.shape[1] < 0.8 * RENDER_WIDTH:
        face = _render_at(theme, card, round(RENDER_WIDTH * RENDER_WIDTH / face.shape[1]))
    return face


def _render_at(theme: DeckTheme, card: Card, width: int) -> np.ndarray:
    command = ["rsvg-convert", "-i", theme.element(card), "-w", str(width), str(theme.path)]
    done = subprocess.run(command, capture_output=True, check=False, timeout=60)
    image = cv2.imdecode(np.frombuffer(done.stdout, np.uint8), cv2.IMREAD_UNCHANGED) if done.stdout else None
    if done.returncode != 0 or image is None or image.ndim != 3 or image.shape[2] != 4:
        raise DeckError(
            f"{theme.name}: cannot render {theme.element(card)}: {done.stderr.decode(errors='replace')[:200]}"
        )
    return _cut_out(image)


def _cut_out(rgba: np.ndarray) -> np.ndarray:
    """The card: the largest opaque region's bounding box, composited over white. Some elements'
    boxes are wider than the card (stray hidden parts), so the alpha decides, not the box."""
    opaque = (rgba[..., 3] > 128).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(opaque)
    if n < 2:
        raise DeckError("an empty card element")
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = (int(v) for v in stats[best, :4])
    part = rgba[y : y + h, x : x + w].astype(np.float32)
    alpha = part[..., 3:] / 255
    return np.round(part[..., :3] * alpha + 255 * (1 - alpha)).astype(np.uint8)


def _elements(theme: DeckTheme) -> str:
    with gzip.open(theme.path, "rt", encoding="utf-8", errors="replace") as f:
        return f.read()


def deck_faces(name: str) -> list[tuple[Card, np.ndarray]]:
    """Every face a deck has (BGR, upright, portrait; ``kde:standard`` has no jokers), rendered
    once and then read from the cache."""
    theme = DECKS.get(name)
    if theme is None:
        raise DeckError(f"unknown deck {name!r} (use {', '.join(DECKS)})")
    if not deck_available(name):
        raise DeckError(f"deck {name} needs packages {theme.package} and librsvg2-bin (apt-get install)")
    cache = _cache_dir(name)
    cache.mkdir(parents=True, exist_ok=True)
    faces = []
    svg: str | None = None
    for card in CARDS:
        path = cache / f"{card}.png"
        face = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
        if face is None:
            svg = svg if svg is not None else _elements(theme)
            if f'id="{theme.element(card)}"' not in svg:
                continue  # the design has no such card (a deck without jokers)
            face = _render(theme, card)
            cv2.imwrite(str(path), face)
        faces.append((card, face))
    return faces
