"""The column of pips beside an index (vision/reader.py, ``_pip_column``): a card under others in
a fan shows the strip beside its index, whose count of pips tells a 5 from a 6, or a 7 from a 3
or a joker, where the index alone is unsure. A read it lets stand is kept no surer than an index
against the outline's edge, so a pile's place needs a second outline reading the same card."""

from __future__ import annotations

import numpy as np
import pytest

from engine.cards import Card
from simulators.card_faces import all_faces
from tests.vision.benchmark_scenes import missed, reader, recognised, warped
from vision import reader as reader_module
from vision import scan
from vision.classify import _canonical
from vision.decks import deck_available, deck_faces
from vision.detect import CANONICAL_H, CANONICAL_PAD
from vision.reader import _COLUMN_PIPS, _pip_column

DESIGNS = ["project", "kde:standard", "kde:nicu-white", "aisleriot:anglo"]


def faces(design: str) -> dict[Card, np.ndarray]:
    if design == "project":
        return dict(all_faces())
    if not deck_available(design):
        pytest.skip(f"{design} is not installed")
    return dict(deck_faces(design))


def columns(face: np.ndarray) -> tuple[int | None, int | None]:
    """The column beside each index of a face, as the reader sees it."""
    upright = _canonical(face)
    near, far = reader().read_corner(upright), reader().read_corner(upright, far=True)
    return _pip_column(upright, near, far=False), _pip_column(upright, far, far=True)


@pytest.mark.parametrize("design", DESIGNS)
def test_each_number_cards_column_is_counted_as_its_rank_lays_it_out(design):
    deck = faces(design)
    for rank in "456789T":
        for suit in "SHDC":
            label = "10" if rank == "T" else rank
            near, far = columns(deck[Card.from_str(rank + suit)])
            assert near in _COLUMN_PIPS[label] and far == near, (rank + suit, near, far)


@pytest.mark.parametrize("design", DESIGNS)
def test_aces_twos_threes_and_court_cards_show_no_column(design):
    deck = faces(design)
    for rank in "A23JQK":
        for suit in "SH":
            assert columns(deck[Card.from_str(rank + suit)]) == (None, None), rank + suit


@pytest.mark.parametrize("design", DESIGNS)
def test_a_column_half_covered_is_no_count(design):
    # Another card across the lower half leaves the 6's top pips: no count, rather than a 4's or 5's.
    upright = _canonical(faces(design)[Card.from_str("6C")])
    corner = reader().read_corner(upright)
    assert _pip_column(upright, corner, far=False) == 3
    covered = upright.copy()
    covered[CANONICAL_PAD + CANONICAL_H // 2 :] = 235
    assert _pip_column(covered, corner, far=False) is None


_CASES = [
    # deck, seed, size, scene, card, and why its one index in view does not stand alone
    ("aisleriot:anglo", 3, (1280, 720), 21, "5D", "rank unsure"),  # 5 at 0.65, 6 its rival
    ("aisleriot:anglo", 2, (1920, 1080), 1, "7C", "rank unsure"),  # 7 at 0.87, the joker's JK its rival
    ("kde:standard", 1, (1280, 720), 20, "6S", "rank unsure"),  # 6 at 0.79, 5 its rival
    ("aisleriot:anglo", 1, (1280, 720), 5, "7H", "one corner only, and the body hidden"),  # a close match at 0.86
]


@pytest.mark.parametrize(("deck", "seed", "size", "index", "card", "why"), _CASES)
def test_a_pile_card_whose_index_is_unsure_is_read_by_its_column(deck, seed, size, index, card, why, monkeypatch):
    upright = warped(deck, seed, size, index, card)
    hidden = reader().read(upright, body_visible=False)
    assert str(hidden.card) == card, hidden
    assert hidden.confidence < scan._SURE  # a pile's place needs a second outline's read

    assert missed(*recognised(deck, seed, size, index), [card]) == []

    monkeypatch.setattr(reader_module, "_pip_column", lambda *args, **kwargs: None)
    without = reader().read(upright, body_visible=False)
    assert without.card is None and without.detail.startswith(why), without


def test_a_column_does_not_choose_between_the_ranks_of_its_count():
    # A 10D under others (project, seed 4, 720p, scene 12) whose one index reads 8 at 0.43, 6 and
    # 9 next: its column of four is an 8's too (4-0-4), and a 9's, so it bears out no rank.
    upright = warped("project", 4, (1280, 720), 12, "TD")
    corner = reader().read_corner(upright)
    assert corner.rank == "8" and _pip_column(upright, corner, far=False) == 4
    read = reader().read(upright, body_visible=False)
    assert read.card is None, read
