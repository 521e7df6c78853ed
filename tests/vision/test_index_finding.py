"""Finding and trusting an index beside a court card's picture: aisleriot:anglo's hollow Q sits
against the picture's dashed frame, whose dashes lie just under the rank, where the suit is
looked for; and a hollow Q reads partly as the O of a joker's word, which is no rank."""

from __future__ import annotations

import pytest

from benchmarks.vision_scenes import Score, scenes
from vision.decks import deck_available, deck_faces
from vision.reader import GenericReader
from vision.scan import recognise


def test_a_q_beside_the_pictures_dashed_frame_is_read():
    if not deck_available("aisleriot:anglo"):
        pytest.skip("aisleriot:anglo is not installed")
    label, frame, truth = list(scenes(6, (1280, 720), seed=11, deck=dict(deck_faces("aisleriot:anglo"))))[5]
    found = recognise(frame, GenericReader())
    score = Score()
    score.add(found, truth, label)
    assert score.wrong == []
    assert "QS" in {str(rec.card) for rec in found}, found
