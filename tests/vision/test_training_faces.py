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


def test_a_drawn_joker_s_word_may_run_across_the_top_and_is_then_its_index():
    # Many real decks print "Joker" across the card's top, not down its corner.
    from engine.cards import card
    from vision.training.faces import CARD_H, CARD_W, font_face

    rng = np.random.default_rng(5)
    faces = [font_face(rng, card(code)) for code in ("BJ", "LJ") * 12]
    wide = [f.index_box[2] - f.index_box[0] > 1.5 * (f.index_box[3] - f.index_box[1]) for f in faces]
    across = [f for f, w in zip(faces, wide, strict=True) if w]
    assert 0 < len(across) < len(faces)  # both ways are drawn
    for face in across:
        x0, y0, x1, y1 = face.index_box
        assert y1 < 0.25 * CARD_H and x0 >= 0 and x1 <= CARD_W
        ink = face.image[int(y0) : int(y1), int(x0) : int(x1)].min()
        turned = face.image[CARD_H - int(y1) : CARD_H - int(y0), CARD_W - int(x1) : CARD_W - int(x0)]
        assert ink < 150 and turned.min() < 150  # the word, and its copy half a turn round at the bottom
