"""Two indices that read different cards, the body hidden (a card under a pile's neighbours):
when one index stands alone (clear, sure of its rank) and the other is unsure of its rank (part
of a neighbour's index in the far corner), the sure one is read as a lone index, no surer than an
index against the outline's edge, so that in a pile another outline must read the same card.
With the body in view, or both indices sure, the corners still disagree and nothing is read.
The scenes' far corners, a neighbour's two pips (read 6S, 9D, 6S at 0.44-0.77), are now no index
at all (tests/vision/test_rank_is_a_pip.py); the cards are still read in their piles."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.benchmark_scenes import reader, recognised
from vision.detect import CANONICAL_H, CANONICAL_PAD, CANONICAL_W
from vision.reader import _AGAINST_THE_EDGE, CornerRead, GenericReader, _outvoting

_CASES = [
    # deck, seed, size, scene, card: the far corner was read as (p): 6S (0.44), 9D (0.77), 6S (0.58)
    ("kde:nicu-white", 3, (1280, 720), 12, "QH"),
    ("kde:nicu-white", 2, (1280, 720), 10, "TH"),
    ("kde:standard", 3, (1280, 720), 6, "4H"),
]


@pytest.mark.parametrize(("deck", "seed", "size", "index", "card"), _CASES)
def test_a_pile_card_whose_far_corner_shows_a_neighbour_is_recognised(deck, seed, size, index, card):
    found, _ = recognised(deck, seed, size, index)
    assert card in {str(rec.card) for rec in found}, found


def corner(rank: str, probability: float, confidence: float = 0.97, score: float = 0.9, rival: str = "") -> CornerRead:
    return CornerRead(rank, "H", score, confidence, True, 60, 8.0, rival, inset=8, probability=probability)


def test_the_sure_corner_outvotes_an_unsure_one_either_way_round():
    sure, unsure = corner("Q", 0.99), corner("6", 0.6, confidence=0.7)
    assert _outvoting(sure, unsure) is sure
    assert _outvoting(unsure, sure) is sure


def test_no_corner_outvotes_another_sure_of_its_rank():
    assert _outvoting(corner("Q", 0.99), corner("6", 0.95)) is None


@pytest.mark.parametrize(
    "weak",
    [corner("Q", 0.85), corner("Q", 0.99, score=0.7), corner("Q", 0.99, rival="O")],
    ids=["rank unsure", "not close", "tentative"],
)
def test_a_corner_that_cannot_stand_alone_outvotes_nothing(weak):
    assert _outvoting(weak, corner("6", 0.5, confidence=0.6)) is None


def test_the_sure_corner_is_read_alone_but_needs_another_outline_to_agree(monkeypatch):
    sure, unsure = corner("Q", 0.99), corner("6", 0.6, confidence=0.7)
    read = GenericReader(reader().models)
    monkeypatch.setattr(read, "read_corner", lambda card, far=False: unsure if far else sure)
    blank = np.full((CANONICAL_H + 2 * CANONICAL_PAD, CANONICAL_W + 2 * CANONICAL_PAD, 3), 235, np.uint8)
    hidden = read.read(blank, body_visible=False)
    assert str(hidden.card) == "QH" and hidden.confidence <= _AGAINST_THE_EDGE, hidden
    assert read.read(blank, body_visible=True).detail.startswith("corners disagree")
