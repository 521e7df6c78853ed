"""A joker under others in a fan (vision/reader.py, ``_joker_by_word``): its index is the word
JOKER set down the edge, and only its near corner is in view. With the body hidden, one corner's
word is read, no surer than an index against the outline's edge (0.65), so that in a pile a
second outline must read the same joker. Scenes of the benchmark, whose jokers under others
were all missed before ("one corner only, and nothing else confirms")."""

from __future__ import annotations

import pytest

from tests.vision.benchmark_scenes import missed, reader, recognised, warped
from vision.reader import _AGAINST_THE_EDGE

JOKERS = [
    ("aisleriot:anglo", 3, (1280, 720), 4, "BJ"),  # the word turned on its side, in a script face
    ("aisleriot:anglo", 3, (1920, 1080), 5, "LJ"),
    ("kde:nicu-white", 3, (1280, 720), 25, "LJ"),  # letter under letter
    ("kde:nicu-white", 11, (1280, 720), 26, "BJ"),
]


@pytest.mark.parametrize(("deck", "seed", "size", "index", "card"), JOKERS)
def test_a_joker_under_others_is_read_from_one_corners_word(deck, seed, size, index, card):
    up = warped(deck, seed, size, index, card)
    read = reader().read(up, body_visible=False)
    assert str(read.card) == card and read.confidence <= _AGAINST_THE_EDGE, read


@pytest.mark.parametrize(("deck", "seed", "size", "index", "card"), JOKERS)
def test_the_joker_is_read_in_its_pile(deck, seed, size, index, card):
    assert missed(*recognised(deck, seed, size, index), [card]) == []


def test_a_court_pictures_column_of_beads_is_no_joker():
    # kde's JS under others (seed 15, scene 11): two outlines 13-18 px off it showed the beads
    # down its picture's edge, run together like a word turned on its side, as a big joker's
    # word. The corner is in strong colour, as a joker's word on paper is not.
    found, truth = recognised("kde:standard", 15, (1280, 720), 11)  # fails on a wrong card
    assert missed(found, truth) == []
