"""A weak witness in a pile (vision/scan.py, ``_read_pile``; vision/classify.py,
``CardRead.leaning``): a card read from one outline short of sure (0.65: another outline must
agree) is confirmed by a second outline at its place, read before or after it, that leans to the
same card, unsure only of its rank between two, of its suit, or short of the confidence a card
needs, or a lone index with the body hidden a little short of a close match (``_NEARLY_LEANING``).
A read further from a close match, or a lone index with the body hidden short of clear, is no
witness: such reads confirmed two cards that were not there."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.vision.benchmark_scenes import missed, recognised
from vision import reader
from vision.reader import CornerRead

CONFIRMED = [
    ("aisleriot:anglo", 3, (1280, 720), 15, "6H"),
    ("aisleriot:anglo", 11, (1280, 720), 16, "7C"),
    ("aisleriot:anglo", 6, (1280, 720), 7, "6C"),
    ("aisleriot:anglo", 11, (1920, 1080), 2, "3C"),
    ("kde:standard", 1, (1280, 720), 25, "KC"),
    ("kde:standard", 5, (1920, 1080), 8, "AC"),
    ("kde:standard", 6, (1920, 1080), 4, "KC"),
]


# The leaning read came first, from an outline at the place a later read began (_leans_here).
CONFIRMED_BEFORE = [
    ("aisleriot:anglo", 3, (1280, 720), 10, "5S"),
    ("project", 2, (1280, 720), 12, "AC"),
    ("project", 2, (1920, 1080), 17, "7C"),
]


# A lone index with the body hidden matched at 0.72-0.75 (a 2 at 1080p) leans to its card.
CONFIRMED_NEARLY_CLOSE = [
    ("aisleriot:anglo", 7, (1920, 1080), 2, "2D"),
    ("aisleriot:anglo", 10, (1920, 1080), 4, "2S"),
    ("kde:standard", 7, (1920, 1080), 6, "2S"),
]


@pytest.mark.parametrize(
    ("deck", "seed", "size", "index", "card"), CONFIRMED + CONFIRMED_BEFORE + CONFIRMED_NEARLY_CLOSE
)
def test_a_leaning_read_confirms_the_card_at_its_place(deck, seed, size, index, card):
    assert missed(*recognised(deck, seed, size, index), [card]) == []


@pytest.mark.parametrize(
    ("deck", "seed", "size", "index"),
    [
        # An outline 30 px off anglo's AS read its A and the card's dashed edge as a K (a KS at
        # 0.65); another, 17 px off, leaned to a KS with the body hidden, short of clear.
        ("aisleriot:anglo", 11, (1280, 720), 27),
        # An outline 39 px off anglo's 3S read a 5S (its flat-topped 3); another, 26 px off, read
        # a 5S only 0.69 close, and a third, 38 px off, 0.74 close but against the outline's edge
        # (inset 0): neither is a witness (_nearly_close).
        ("aisleriot:anglo", 10, (1920, 1080), 18),
    ],
)
def test_reads_that_are_no_witness_confirm_no_card(deck, seed, size, index):
    found, truth = recognised(deck, seed, size, index)  # fails on a wrong card
    assert missed(found, truth) == []


def test_a_lone_index_a_little_short_of_a_close_match_leans_only_where_an_index_lies():
    nearly = CornerRead("2", "S", 0.74, 0.86, False, 30, 5.0, "", 6, 0.96)
    assert reader._nearly_close(nearly)
    assert not reader._nearly_close(replace(nearly, score=reader._NEARLY_LEANING - 0.01))  # further off
    assert not reader._nearly_close(replace(nearly, confidence=0.8))  # not sure enough of its rank
    assert not reader._nearly_close(replace(nearly, rival="7"))  # tentative
    assert not reader._nearly_close(replace(nearly, inset=0))  # against the outline's edge
