"""A rank glyph of one blob is no 10 unless read as one first (vision/reader.py,
``_no_ten_in_one_blob``): a 10 is two characters. As the runner-up, the 10 left kde's serif K at
720p (its stem joined to its arms only thinly) tentative, which under others is no read at all."""

from __future__ import annotations

import pytest

from tests.vision.benchmark_scenes import missed, reader, recognised, warped
from vision.glyphs import GlyphMatch
from vision.reader import _no_ten_in_one_blob

KINGS = [
    ("kde:standard", 2, (1280, 720), 11, "KC"),
    ("kde:standard", 4, (1280, 720), 14, "KC"),
    ("kde:standard", 6, (1280, 720), 4, "KC"),
    ("kde:standard", 7, (1280, 720), 20, "KS"),
    ("kde:standard", 2, (1920, 1080), 11, "KC"),
]


@pytest.mark.parametrize(("deck", "seed", "size", "index", "card"), KINGS)
def test_a_king_under_others_is_read(deck, seed, size, index, card):
    assert missed(*recognised(deck, seed, size, index), [card]) == []


def test_the_kings_index_is_sure_of_its_rank():
    corner = reader().read_corner(warped("kde:standard", 4, (1280, 720), 14, "KC"))
    assert corner.rank == "K" and not corner.rival and "10" not in dict(corner.ranks), corner


def test_only_a_one_blob_glyph_read_as_another_rank_loses_its_ten():
    k = GlyphMatch("K", 0.85, 0.75, {"K": 0.75, "10": 0.2, "A": 0.05})
    assert _no_ten_in_one_blob(k).distribution == pytest.approx({"K": 0.9375, "A": 0.0625})
    assert _no_ten_in_one_blob(k).probability == pytest.approx(0.9375)
    ten = GlyphMatch("10", 0.85, 0.6, {"10": 0.6, "K": 0.4})
    assert _no_ten_in_one_blob(ten) == ten  # read as a 10 first: kept
