"""A "rank" that is a pip (vision/reader.py, ``_rank_is_a_pip``): an outline laid across two
cards may put its corner on two pips of a card's body, one above the other, cut like a rank over
its suit. Anglo's 8C under such an outline read as a lone AC, sure enough (A at 0.97) to stand
in a pile without a second outline: a wrong card. A rank and its suit differ in shape or size.
Nor is a "rank" wider than any character (``_too_wide``): a pip on its side, cut in two."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.benchmark_scenes import reader, recognised, scene, warped
from vision.detect import CardQuad, warp_card

# The outline across the BJ and the 8C over it (aisleriot:anglo, seed 5, 1080p, scene 14).
ACROSS = np.array([[834.5, 436.2], [959.1, 427.9], [970.6, 600.8], [846.0, 609.1]])


def test_two_pips_one_above_the_other_are_no_index():
    _, frame, truth = scene("aisleriot:anglo", 5, (1920, 1080), 14)
    assert {"BJ", "8C"} <= {str(t.card) for t in truth}
    card = warp_card(frame, CardQuad(ACROSS, False, 0))
    far = reader().read_corner(card, far=True)
    assert far.rank == "", far  # read AC at 0.97 without the check


def test_the_scene_reads_no_wrong_card():
    found, _ = recognised("aisleriot:anglo", 5, (1920, 1080), 14)
    assert "8C" in {str(r.card) for r in found}


@pytest.mark.parametrize(
    ("deck", "seed", "index", "card"),
    [("kde:nicu-white", 3, 12, "QH"), ("kde:nicu-white", 2, 10, "TH"), ("kde:standard", 3, 6, "4H")],
)
def test_a_neighbours_pips_in_the_far_corner_are_no_index(deck, seed, index, card):
    # Cards under others at 720p: the far corner shows a neighbour's pips, which read as 6S, 9D,
    # 6S (0.44-0.77 sure) and were outvoted by the near index (tests/vision/test_outvoted_corner.py).
    up = warped(deck, seed, (1280, 720), index, card)
    assert reader().read_corner(up, far=True).rank == ""
    assert str(reader().read(up, body_visible=False).card) == card


# An outline across a fan of three (kde:nicu-white, seed 7, 1080p, scene 14), turned a quarter
# against the cards: its near corner shows one of the 10C's pips on its side, cut in two.
SIDEWAYS = np.array([[1004.9, 511.1], [1014.5, 641.2], [825.4, 643.3], [815.9, 524.9]])


def test_a_pip_on_its_side_is_no_rank():
    _, frame, truth = scene("kde:nicu-white", 7, (1920, 1080), 14)
    assert "TC" in {str(t.card) for t in truth}
    card = warp_card(frame, CardQuad(SIDEWAYS, False, 0))
    near = reader().read_corner(card)
    assert near.rank == "", near  # read 9S at 0.97 (a lone index, 0.74: a wrong card) without the check


def test_the_fan_reads_no_wrong_card():
    recognised("kde:nicu-white", 7, (1920, 1080), 14)
