"""Enrolment: one photo per card teaches the reader a deck it has never seen."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from benchmarks.vision_scenes import Score, scenes
from engine.cards import CARDS
from simulators.camera import PlacedCard, Scene, render
from simulators.scenes import tilted_view
from tests.conftest import run_croupier
from vision.classify import IndexTemplates
from vision.decks import deck_available, deck_faces
from vision.enrol import EnrolError, enrol_folder, load_deck
from vision.scan import recognise


def photograph(deck: dict, folder, rng: np.random.Generator) -> None:
    """One close-up photo per card, a little turned, on a wooden table."""
    folder.mkdir()
    for c, _ in deck.items():
        view = tilted_view(rng, (640, 360), "wood", None, extent_mm=(200.0, 140.0), deck=deck)
        frame, _ = render(view, Scene(cards=(PlacedCard(c, (100, 70), float(rng.uniform(-12, 12))),), noise_sigma=2))
        cv2.imwrite(str(folder / f"{c}.png"), frame)


@pytest.mark.skipif(not deck_available("aisleriot:anglo"), reason="gnome-cards-data or librsvg2-bin missing")
def test_a_deck_enrolled_from_photos_is_read_without_a_wrong_card(tmp_path):
    deck = dict(deck_faces("aisleriot:anglo"))
    photograph(deck, tmp_path / "photos", np.random.default_rng(3))
    enrolled = enrol_folder(tmp_path / "photos", tmp_path / "deck")
    assert sorted(enrolled) == sorted(CARDS)
    templates = IndexTemplates.from_faces(load_deck(tmp_path / "deck"))
    score = Score()
    for label, frame, truth in scenes(4, (1280, 720), seed=21, deck=deck):
        score.add(recognise(frame, templates), truth, label)
    assert score.wrong == []
    assert score.recall >= 0.7, score


def test_photos_that_are_not_one_card_each_are_refused_by_name(tmp_path):
    photos = tmp_path / "photos"
    photos.mkdir()
    cv2.imwrite(str(photos / "QS.png"), np.full((540, 960, 3), 60, np.uint8))
    with pytest.raises(EnrolError, match="QS: the photo must show exactly one card"):
        enrol_folder(photos, tmp_path / "deck")
    (photos / "QS.png").unlink()
    cv2.imwrite(str(photos / "queen.png"), np.full((54, 96, 3), 60, np.uint8))
    with pytest.raises(EnrolError, match="name the photo by its card's code"):
        enrol_folder(photos, tmp_path / "deck")


def test_croupier_vision_enroll_then_scan_with_the_enrolled_deck(tmp_path):
    faces = {c: f for c, f in deck_faces_or_project().items() if str(c) in ("QS", "7D", "AH", "TC", "2S", "KD")}
    photograph(faces, tmp_path / "photos", np.random.default_rng(4))
    done = run_croupier("vision", "enroll", str(tmp_path / "photos"), "--out", str(tmp_path / "deck"))
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "deck").glob("*.png"))) == 6
    done = run_croupier("vision", "scan", str(tmp_path / "photos" / "QS.png"), "--deck", str(tmp_path / "deck"))
    assert done.returncode == 0 and "QS" in done.stdout, done.stdout + done.stderr
    done = run_croupier("vision", "scan", str(tmp_path / "photos" / "QS.png"), "--deck", str(tmp_path / "nothing"))
    assert done.returncode == 2 and "not an enrolled deck" in done.stderr


def deck_faces_or_project() -> dict:
    from simulators.card_faces import all_faces

    return dict(deck_faces("kde:nicu-white")) if deck_available("kde:nicu-white") else dict(all_faces())
