"""The benchmark's rendered scenes, one at a time, for tests that pin down a card the generic
reader used to miss (``benchmarks.vision_scenes.scenes``), and the generic reader, built once."""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np
import pytest

from benchmarks.vision_scenes import Score, _near, scenes
from simulators.camera import CardTruth
from vision.decks import deck_available, deck_faces
from vision.detect import CardQuad, warp_card
from vision.reader import GenericReader
from vision.scan import Recognition, recognise


@cache
def reader() -> GenericReader:
    return GenericReader()


@lru_cache(maxsize=4)  # a test reads a scene's cards, then warps one of them: rendered once
def scene(deck: str, seed: int, size: tuple[int, int], index: int) -> tuple:
    """Scene ``index`` of the benchmark's ``seed`` for ``deck`` ("project": the project's own
    faces): its label, frame and truth; skipped when the deck is not installed."""
    faces = None
    if deck != "project":
        if not deck_available(deck):
            pytest.skip(f"{deck} is not installed")
        faces = dict(deck_faces(deck))
    for k, got in enumerate(scenes(index + 1, size, seed=seed, deck=faces)):
        if k == index:
            got[1].setflags(write=False)  # shared by the tests that ask for it again
            return got
    raise AssertionError("no such scene")


def recognised(deck: str, seed: int, size: tuple[int, int], index: int) -> tuple[list[Recognition], list[CardTruth]]:
    """The scene (as :func:`scene`) recognised by the generic reader: what it found, and the
    truth. Fails when a card is read wrong: a false accusation at the table."""
    label, frame, truth = scene(deck, seed, size, index)
    found = recognise(frame, reader())
    score = Score()
    score.add(found, truth, label)
    assert score.wrong == [], score.wrong
    return found, truth


def missed(found: list[Recognition], truth: list[CardTruth], cards: list[str] | None = None) -> list[str]:
    """The face-up cards of the truth (or only those named in ``cards``, codes) that nothing in
    ``found`` reads where they lie."""
    wanted = [t for t in truth if t.face_up and (cards is None or str(t.card) in cards)]
    assert cards is None or len(wanted) == len(cards), f"not face up in the scene: {cards}"
    return [str(t.card) for t in wanted if not any(r.card == t.card and _near(r, t) for r in found)]


def warped(deck: str, seed: int, size: tuple[int, int], index: int, card: str) -> np.ndarray:
    """The scene's ``card`` (a code) warped upright through its true outline."""
    _, frame, truth = scene(deck, seed, size, index)
    placed = next(t for t in truth if str(t.card) == card)
    return warp_card(frame, CardQuad(np.asarray(placed.corners_px, np.float64), False, 0))
