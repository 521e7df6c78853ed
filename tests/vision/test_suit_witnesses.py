"""Witnesses for the suit when the indices alone are not sure of it (a club blurs into a spade):
a pile card's first pips beside its index, and the suit symbol in a court card's picture.
Scenes of the benchmark (seed 11, the project's faces) whose cards were left unknown before."""

from __future__ import annotations

from functools import cache

import pytest

from benchmarks.vision_scenes import Score, scenes
from engine.cards import Card
from simulators.card_faces import render_face
from tests.vision.test_generic_reader import canonical
from vision.reader import GenericReader
from vision.scan import recognise


@cache
def reader() -> GenericReader:
    return GenericReader()


@cache
def project_scenes() -> list[tuple]:
    return list(scenes(21, (1280, 720), seed=11))


@pytest.mark.parametrize(
    ("index", "card"),
    [
        (1, "8C"),  # under another card: one index, leaning to clubs at 0.4; its first pip is clear
        (10, "7C"),  # ... its index leaning to spades at 0.8
        (13, "KC"),  # a court card alone: both indices lean to clubs, together not enough
        (20, "JC"),
    ],
)
def test_a_club_whose_indices_are_unsure_is_read_by_another_witness(index, card):
    label, frame, truth = project_scenes()[index]
    found = recognise(frame, reader())
    score = Score()
    score.add(found, truth, label)
    assert score.wrong == []
    assert card in {str(rec.card) for rec in found}, found


@pytest.mark.parametrize("code", [r + s for r in "JQK" for s in "SCHD"])
def test_a_court_pictures_symbol_stands_for_its_own_suit(code):
    card = Card.from_str(code)
    upright = canonical(render_face(card))
    top = reader().read_corner(upright)
    odds = reader()._picture_suit(upright, top.right, card, body_visible=True)
    assert odds is not None and odds > 3, odds
