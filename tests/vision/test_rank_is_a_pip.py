"""A "rank" that is a pip (vision/reader.py, ``_rank_is_a_pip``): an outline laid across two
cards may put its corner on two pips of a card's body, one above the other, cut like a rank over
its suit. Anglo's 8C under such an outline read as a lone AC, sure enough (A at 0.97) to stand
in a pile without a second outline: a wrong card. A rank and its suit differ in shape or size."""

from __future__ import annotations

import numpy as np

from tests.vision.benchmark_scenes import reader, recognised, scene
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
