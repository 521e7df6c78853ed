"""The three Debian deck designs the reader may learn from: rendered, and read on rendered scenes.

Skipped where the packages are missing: ``apt-get install kdegames-card-data-kf5 gnome-cards-data
librsvg2-bin`` (``.ci/run`` does it).
"""

from __future__ import annotations

import pytest

from benchmarks.vision_scenes import Score, scenes
from engine.cards import CARDS, card
from vision.decks import DECKS, DeckError, deck_available, deck_faces
from vision.scan import scan


def faces_of(name: str):
    if not deck_available(name):
        pytest.skip(f"deck {name} is not installed ({DECKS[name].package}, librsvg2-bin)")
    return deck_faces(name)


@pytest.mark.parametrize("name", list(DECKS))
def test_every_card_of_the_design_renders_as_a_portrait_face(name):
    faces = dict(faces_of(name))
    expected = set(CARDS) - ({card("BJ"), card("LJ")} if name == "kde:standard" else set())
    assert set(faces) == expected  # kde:standard has no jokers
    for face in faces.values():
        h, w = face.shape[:2]
        assert 1.3 < h / w < 1.65 and w >= 400


@pytest.mark.parametrize("name", list(DECKS))
def test_each_design_is_read_on_rendered_scenes_without_a_wrong_card(name):
    faces = faces_of(name)
    score = Score()
    for label, frame, truth in scenes(4, (1280, 720), seed=5, deck=dict(faces)):
        score.add(scan(frame), truth, label)
    assert score.wrong == []
    assert score.recall >= 0.9, score


def test_an_unknown_deck_is_refused_by_name():
    with pytest.raises(DeckError, match="unknown deck"):
        deck_faces("kde:oxygen")
