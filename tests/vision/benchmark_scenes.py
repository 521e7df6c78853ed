"""The benchmark's rendered scenes, one at a time, for tests that pin down a card the generic
reader used to miss (``benchmarks.vision_scenes.scenes``), and the generic reader, built once."""

from __future__ import annotations

from functools import cache

import pytest

from benchmarks.vision_scenes import scenes
from vision.decks import deck_available, deck_faces
from vision.reader import GenericReader


@cache
def reader() -> GenericReader:
    return GenericReader()


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
            return got
    raise AssertionError("no such scene")
