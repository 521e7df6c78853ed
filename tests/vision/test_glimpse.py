"""A card glimpsed in a pile (vision/scan.py, ``_glimpsed_places``; vision/classify.py,
``CardRead.glimpse``): a lone index under others, sure of its rank but too short of a close match,
or of its card, even to lean to it. kde:standard's courts at 720p: the outlines split out of a pile
lie a pixel inside the card, and its index lies against their edge. Those outlines are read again
grown: at an unconfirmed place of that card, as second looks; where two of them glimpsed the same
card and no place lies, the first grown read of that card begins a place, which the next ones
must confirm."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine.cards import card
from tests.vision.benchmark_scenes import missed, recognised
from vision import reader, scan
from vision.reader import CornerRead
from vision.scan import Recognition, _glimpsed_places, _Place


@pytest.mark.parametrize(
    ("deck", "seed", "size", "index", "glimpsed"),
    [
        ("kde:standard", 17, (1280, 720), 15, "JH"),  # six outlines glimpsed it, none read it
        ("kde:standard", 17, (1280, 720), 25, "KH"),
        ("kde:standard", 17, (1280, 720), 6, "JC"),  # read once at 0.65, glimpsed five times
    ],
)
def test_a_card_glimpsed_in_a_pile_is_read_through_the_outlines_grown(deck, seed, size, index, glimpsed):
    assert missed(*recognised(deck, seed, size, index), [glimpsed]) == []


def test_a_glimpse_is_a_lone_index_sure_of_its_rank_and_not_cut_off():
    glimpse = CornerRead("J", "C", 0.78, 0.82, False, 39, 9.0, "", 1, 0.93)
    assert reader._glimpsed(glimpse)
    assert not reader._glimpsed(replace(glimpse, score=reader._GLIMPSE - 0.01))  # further off a match
    assert not reader._glimpsed(replace(glimpse, probability=0.85))  # unsure of its rank
    assert not reader._glimpsed(replace(glimpse, rival="4"))  # tentative
    assert not reader._glimpsed(replace(glimpse, inset=-1))  # cut off by the outline
    assert not reader._glimpsed(replace(glimpse, inset=reader._NEARLY_INSET + 1))  # a neighbour's


def _outline(x: float, y: float = 0.0) -> np.ndarray:
    return np.array([[x, y], [x + 60, y], [x + 60, y + 84], [x, y + 84]], np.float64)


def _glimpse(code: str, x: float) -> Recognition:
    corners = _outline(x)
    return Recognition(None, 0.0, corners, tuple(corners.mean(axis=0)), glimpse=card(code))


class _Grown:
    """read_grown for the tests: the cards the grown outlines read, in turn; what it was asked."""

    def __init__(self, *codes: str | None) -> None:
        self.reads = [None if c is None else card(c) for c in codes]
        self.asked: list[np.ndarray] = []

    def __call__(self, corners: np.ndarray) -> Recognition:
        self.asked.append(corners)
        got = self.reads[len(self.asked) - 1]
        return Recognition(got, 0.0 if got is None else 0.65, corners, tuple(corners.mean(axis=0)))


def test_two_outlines_that_glimpsed_a_card_where_no_place_lies_begin_its_place():
    grown = _Grown("KH", "KH")
    new = _glimpsed_places([], [_glimpse("KH", 0), _glimpse("KH", 2)], [], grown)
    assert [str(p.first.card) for p in new if p.counts] == ["KH"]
    assert len(grown.asked) == 2


def test_one_outline_that_glimpsed_a_card_begins_no_place():
    grown = _Grown()
    assert _glimpsed_places([], [_glimpse("KH", 0), _glimpse("QH", 2)], [], grown) == []
    assert grown.asked == []  # not even read again


def test_a_glimpsed_place_read_as_another_card_grown_does_not_count():
    new = _glimpsed_places([], [_glimpse("KH", 0), _glimpse("KH", 2)], [], _Grown("KH", "QH"))
    assert len(new) == 1 and not new[0].counts and new[0].disputed


def test_outlines_that_glimpsed_a_places_card_confirm_it_grown():
    place = _Place(Recognition(card("JC"), 0.65, _outline(0), (30.0, 42.0)))
    assert not place.counts
    glimpses = [_glimpse("4C", 1), _glimpse("JC", 2), _glimpse("JC", 3), _glimpse("JC", 90)]
    grown = _Grown(None, "JC")
    assert _glimpsed_places([place], glimpses, [], grown) == []
    assert place.counts
    # The 4C is another card's glimpse, and the JC 90 px off lies at no place of it: not read.
    assert [c[0, 0] for c in grown.asked] == [2, 3]


def test_no_more_than_a_few_glimpses_are_read_at_a_place():
    place = _Place(Recognition(card("JC"), 0.65, _outline(0), (30.0, 42.0)))
    grown = _Grown(*[None] * 10)
    _glimpsed_places([place], [_glimpse("JC", k) for k in range(6)], [], grown)
    assert len(grown.asked) == scan._GLIMPSE_LOOKS and not place.counts
