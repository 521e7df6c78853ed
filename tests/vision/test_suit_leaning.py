"""A lone index under others whose suit leans to it, short of sure by itself (vision/reader.py,
``_LEANING``): the project's club or spade at 720p is a cross or a drop 6-7 camera pixels tall.
Read from a very close index it stands no surer than 0.65, so that in a pile another outline
must read the same card; from a less close one it does not stand at all. Both indices of a card
in a pile, very close, stand on the same terms with what one index needs by itself."""

from __future__ import annotations

import pytest

from tests.vision.benchmark_scenes import missed, reader, recognised, warped
from vision.reader import _AGAINST_THE_EDGE, _LEANING, _LEANING_ODDS, _LONE_ODDS

# Project cards under others at 720p (seed, scene, card), each read from one index only.
LEANING = [
    (1, 12, "KC"),
    (1, 18, "3C"),
    (1, 25, "KC"),
    (2, 2, "3C"),
    (2, 9, "3C"),
    (4, 14, "AC"),
    (4, 24, "JC"),
    (11, 21, "2C"),
    (11, 27, "AS"),
]


# Atop a fan, read through both indices with the body hidden, as every pile's candidate is.
BOTH_LEANING = [(3, 3, "QS"), (4, 14, "5C")]


@pytest.mark.parametrize(("seed", "index", "card"), LEANING + BOTH_LEANING)
def test_a_card_whose_suit_only_leans_is_read_in_its_pile(seed, index, card):
    assert missed(*recognised("project", seed, (1280, 720), index), [card]) == []


def test_a_leaning_suit_stands_only_as_sure_as_an_index_against_the_edge():
    # The KC of seed 1, scene 12, through its true outline: the K a close match, the club
    # leaning to its suit at under 4 (the log-odds a lone black index needs by itself).
    up = warped("project", 1, (1280, 720), 12, "KC")
    corner = reader().read_corner(up)
    assert corner.score >= _LEANING and _LEANING_ODDS[1] <= corner.suit_odds < _LONE_ODDS[1], corner
    read = reader().read(up, body_visible=False)
    assert str(read.card) == "KC" and read.confidence <= _AGAINST_THE_EDGE, read


def test_a_less_close_index_whose_suit_only_leans_is_not_read():
    # Anglo, seed 9, scene 2: two outlines across the AC and the 4S under it read the AC's A and
    # the card's edge as a K (0.76 close), its club as a spade (2.1-2.3): no KS is there.
    found, truth = recognised("aisleriot:anglo", 9, (1280, 720), 2)
    assert missed(found, truth) == []
