"""Two indices that read different cards, the body hidden (a card under a pile's neighbours):
when one index stands alone (clear, sure of its rank) and the other is unsure of its rank (a
neighbour's pips or part of its index in the far corner, read at 0.4-0.8), the sure one is read
as a lone index, no surer than an index against the outline's edge, so that in a pile another
outline must read the same card. With the body in view, or both indices sure, the corners still
disagree and nothing is read."""

from __future__ import annotations

import pytest

from tests.vision.benchmark_scenes import reader, recognised, warped
from vision import scan
from vision.reader import CornerRead, _outvoting

_CASES = [
    # deck, seed, size, scene, card: the far corner read as (p): 6S (0.44), 9D (0.77), 6S (0.58)
    ("kde:nicu-white", 3, (1280, 720), 12, "QH"),
    ("kde:nicu-white", 2, (1280, 720), 10, "TH"),
    ("kde:standard", 3, (1280, 720), 6, "4H"),
]


@pytest.mark.parametrize(("deck", "seed", "size", "index", "card"), _CASES)
def test_a_pile_card_whose_far_corner_shows_a_neighbour_is_recognised(deck, seed, size, index, card):
    found, _ = recognised(deck, seed, size, index)
    assert card in {str(rec.card) for rec in found}, found


@pytest.mark.parametrize(("deck", "seed", "size", "index", "card"), _CASES)
def test_the_sure_index_is_read_alone_but_needs_another_outline_to_agree(deck, seed, size, index, card):
    upright = warped(deck, seed, size, index, card)
    hidden = reader().read(upright, body_visible=False)
    assert str(hidden.card) == card, hidden
    assert hidden.confidence < scan._SURE  # a pile's place needs a second outline's read
    seen = reader().read(upright, body_visible=True)
    assert seen.card is None and seen.detail.startswith("corners disagree"), seen


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
