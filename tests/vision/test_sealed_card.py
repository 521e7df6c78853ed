"""A single card whose court picture (not paper: it is saturated) comes near its edge: the paper
mask's opening cuts the thin strip of paper between the two, and the card's blob is a frame of
paper around a bay of picture, half of it paper. With the mouths of its bays closed
(vision/detect.py, ``_sealed``), it fills its outline as a card notched by its ink does, and
is taken for one card (``_single_card``, ``notched``)."""

from __future__ import annotations

import cv2
import numpy as np

from tests.vision.benchmark_scenes import missed, recognised
from vision import detect


def _frame_of_paper(mouth: int) -> tuple[np.ndarray, np.ndarray]:
    """A card-sized frame of paper (60 x 84 work pixels, 8 thick) around a bay of picture that
    opens to the outside through a gap ``mouth`` pixels wide in its left side: the mask and
    the blob's outline."""
    mask = np.zeros((120, 100), np.uint8)
    cv2.rectangle(mask, (20, 18), (79, 101), 255, -1)
    cv2.rectangle(mask, (28, 26), (71, 93), 0, -1)
    cv2.rectangle(mask, (20, 40), (27, 39 + mouth), 0, -1)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return mask, max(contours, key=cv2.contourArea)


def test_a_card_around_a_bay_with_a_narrow_mouth_is_one_card():
    mask, outline = _frame_of_paper(mouth=4)
    assert detect._single_card(outline, mask) is None  # half of its outline is paper
    corners = detect._single_card(outline, mask, notched=True)
    assert corners is not None
    assert np.allclose(np.sort(corners[:, 0])[[0, -1]], [20, 79], atol=2)


def test_a_bay_with_a_wide_mouth_is_no_card():
    # A gap as wide as a third of the card's side is no cut strip of paper: the shape is a C.
    mask, outline = _frame_of_paper(mouth=30)
    assert detect._single_card(outline, mask, notched=True) is None


def test_kde_standards_king_of_spades_at_720p_is_read():
    # Seed 16, scene 14 (a pale table): the KS lay alone and got no outline at all.
    assert missed(*recognised("kde:standard", 16, (1280, 720), 14), ["KS"]) == []
