"""Seeded sets of rendered table scenes, and scoring recognitions against their truth.

Shared by the vision tests (small fixed sets) and ``croupier bench vision`` (larger campaigns).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.cards import CARDS, Card
from simulators.camera import CardTruth, render
from simulators.scenes import SceneStyle, random_scene, tilted_view
from vision.cards import Recognition
from vision.mat import MatLayout

TABLES = ("felt", "wood", "pale")


@dataclass
class Score:
    correct: int = 0
    wrong: list[str] = field(default_factory=list)  # reported cards that are not there
    confusions: Counter[tuple[str, str]] = field(default_factory=Counter)  # (true card, read as)
    unknown: int = 0
    cards: int = 0  # face-up cards in the scenes
    duplicates: int = 0  # reads of a card already read in the same scene

    @property
    def precision(self) -> float:
        reported = self.correct + len(self.wrong)
        return self.correct / reported if reported else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.cards if self.cards else 1.0

    def add(self, found: list[Recognition], truth: list[CardTruth], label: str) -> None:
        face_up = [t for t in truth if t.face_up]
        self.cards += len(face_up)
        matched: set[int] = set()
        for rec in found:
            if rec.card is None:
                self.unknown += 1
                continue
            mine = [k for k, t in enumerate(face_up) if t.card == rec.card and _near(rec, t)]
            if mine and mine[0] not in matched:
                matched.add(mine[0])
                self.correct += 1
            elif mine:
                self.duplicates += 1  # the right card, named a second time
            else:
                self.wrong.append(f"{label}: {rec.card} at {np.round(rec.center)}")
                under = [t for t in face_up if _near(rec, t)]
                self.confusions[(str(under[0].card) if under else "nothing", str(rec.card))] += 1


def _near(rec: Recognition, truth: CardTruth) -> bool:
    """The read lies on the card: an index it was read from (or its centre) inside the card's outline."""
    outline = truth.corners_px.astype(np.float32)
    points = rec.index_centres or (rec.center,)
    return any(cv2.pointPolygonTest(outline, (float(x), float(y)), False) >= 0 for x, y in points)


def scenes(
    count: int,
    size: tuple[int, int],
    seed: int = 0,
    style: SceneStyle | None = None,
    deck: dict[Card, np.ndarray] | None = None,
) -> Iterator[tuple]:
    """``count`` scenes: six cards each (one face down), on each table in turn, a mat on the felt
    only, glare in every other scene, a trick fanned in the centre, cards turned up to 20 degrees."""
    for i in range(count):
        rng = np.random.default_rng(1000 * seed + i)
        table = TABLES[i % 3]
        view = tilted_view(rng, size, table, MatLayout.create(4, "a2") if table == "felt" else None, deck=deck)
        pack = list(deck) if deck is not None else list(CARDS)
        cards = [pack[k] for k in rng.choice(len(pack), 6, replace=False)]
        scene_style = style or SceneStyle(glare=i % 2 == 0, face_down=1)
        frame, truth = render(view, random_scene(rng, view, cards, scene_style), seed=i)
        yield f"scene {i} ({table})", frame, truth
