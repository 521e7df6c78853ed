"""Scoring the reader on labelled photographs (benchmarks.real_photos): right, wrong, duplicate,
and wrong where no index is labelled (a phantom or a card the labels left out)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.real_photos import PhotoScore, score_photo
from engine.cards import card
from vision.cards import Recognition
from vision.photo_set import Photo

PHOTO = Photo(
    "IMG_test",
    "phone",
    Path("unused.jpg"),
    ((card("7C"), (100, 100, 130, 150)), (card("7C"), (300, 400, 330, 450)), (card("QH"), (500, 100, 530, 150))),
)


def found(code: str | None, *centres) -> Recognition:
    return Recognition(None if code is None else card(code), 0.9, np.zeros((4, 2)), centres[0], tuple(centres))


def test_reads_are_right_wrong_duplicate_or_unknown():
    score = PhotoScore()
    reads = [found("7C", (115, 125)), found("7C", (315, 425)), found("QD", (515, 125)), found(None, (50, 50))]
    score_photo(score, PHOTO, reads)
    assert (score.cards, score.right, score.duplicates, score.wrong, score.unknown) == (2, 1, 1, 1, 1)
    assert score.missed_examples == ["IMG_test: QH"]


def test_a_wrong_read_where_no_index_is_labelled_is_counted_apart_and_still_wrong():
    score = PhotoScore()
    score_photo(score, PHOTO, [found("QD", (515, 125)), found("AS", (20, 620))])
    assert score.wrong == 2 and score.wrong_unboxed == 1
    assert score.precision == 0.0
    assert score.to_json()["wrong_unboxed"] == 1
    assert "AS at (20, 620) (truth there: none)" in score.wrong_examples[1]
