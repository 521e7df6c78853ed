"""The training faces' index boxes: what the detector and the reader are taught an index is."""

from __future__ import annotations

import numpy as np
import pytest

from vision.decks import deck_available
from vision.training.faces import ALLOWED_DECKS, design_faces


@pytest.mark.parametrize("design", ALLOWED_DECKS)
def test_a_jokers_index_is_its_whole_word_not_its_first_letter(design):
    # nicu-white's JOKER runs down the corner, an O wider than the J above it: the box once
    # stopped at the J, a fifth of the design's index height, and the joker was taught as a
    # letter the table never cuts at that size.
    if not deck_available(design):
        pytest.skip(f"{design} is not installed")
    faces = design_faces(design)
    heights = [f.index_box[3] - f.index_box[1] for f in faces if not f.card.is_joker]
    jokers = [f for f in faces if f.card.is_joker]
    if not jokers:
        pytest.skip(f"{design} has no jokers")
    for joker in jokers:
        height = joker.index_box[3] - joker.index_box[1]
        assert 0.7 < height / float(np.median(heights)) < 1.5, (joker.card, joker.index_box)
