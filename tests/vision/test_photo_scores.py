"""Scoring the reader on labelled photographs (benchmarks.real_photos): right, wrong, duplicate,
and wrong where no index is labelled (a phantom or a card the labels left out)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from benchmarks.real_photos import PhotoScore, lost_where, score_photo
from engine.cards import card
from vision.cards import Recognition
from vision.index_reads import IndexRead
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


def test_a_read_of_an_index_the_labels_left_out_is_set_aside_and_nothing_else_is():
    # The AS's corner at (20, 620) has no label; an eye found it plain.
    photo = Photo(PHOTO.name, PHOTO.source, PHOTO.path, PHOTO.boxes, ((card("AS"), (20.0, 620.0)),))
    score = PhotoScore()
    score_photo(score, photo, [found("7C", (115, 125)), found("AS", (30, 610))])
    assert (score.cards, score.right, score.wrong, score.left_out) == (2, 1, 0, 1)
    assert score.precision == 1.0 and score.to_json()["left_out"] == 1
    score = PhotoScore()  # another card read there, or the AS read far from it, is wrong
    score_photo(score, photo, [found("AH", (20, 620)), found("AS", (20, 560))])
    assert (score.wrong, score.left_out) == (2, 0)


def test_a_joker_read_as_either_joker_is_the_photo_s_joker():
    # The photographed deck's two jokers look alike and its labels call them LJ.
    joker = Photo("IMG_joker", "phone", Path("unused.jpg"), ((card("LJ"), (100, 100, 200, 130)),))
    score = PhotoScore()
    score_photo(score, joker, [found("BJ", (150, 115)), found("LJ", (150, 115))])
    assert (score.right, score.duplicates, score.wrong) == (1, 1, 0)
    score = PhotoScore()
    score_photo(score, PHOTO, [found("BJ", (115, 125))])  # no joker in the photo: wrong
    assert (score.right, score.wrong) == (0, 1)


def test_a_photo_without_colour_is_grey_though_jpeg_leaves_its_channels_a_little_apart():
    import cv2

    from benchmarks.real_photos import colour_of
    from vision.ink import without_colour

    rng = np.random.default_rng(2)
    picture = rng.integers(0, 255, (48, 64, 3), dtype=np.uint8)
    picture[10:30, 10:30] = (40, 40, 220)  # a red heart's ink
    grey = without_colour(picture)
    _ok, data = cv2.imencode(".jpg", grey, [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert colour_of(PHOTO, cv2.imdecode(data, cv2.IMREAD_COLOR)) == "grey"
    assert colour_of(PHOTO, picture) == "colour"


def test_the_grey_options_of_the_photo_benchmark_go_with_by_colour():
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.real_photos", "train", "--made-grey"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "--made-grey and --fuse-grey-suit go with --by-colour" in done.stderr


def index(code: str, centre, heat: float, p: float = 0.95) -> IndexRead:
    return IndexRead(centre, 40.0, 20.0, 0.0, card(code), heat * p, heat, ((card(code), p), (card("2D"), 1 - p)))


def test_a_card_not_named_is_lost_where_its_best_read_says():
    # The 7C is read right at both corners, the QH faintly (alone, under the presence a lone index
    # needs, and not all but certain of the QH): the QH is lost as too faint, though read as itself.
    reads = [index("7C", (115, 125), 0.9), index("7C", (315, 425), 0.9), index("QH", (515, 125), 0.4, p=0.9)]
    assert lost_where(PHOTO, reads) == [
        ("faint, read as itself", "IMG_test: QH (heat 0.40 = 0.40 found x 1.00 index; QH 0.90, 2D 0.10)")
    ]
    surely_misread = [index("7C", (115, 125), 0.9), index("QD", (515, 125), 0.9)]
    assert [how for how, _ in lost_where(PHOTO, surely_misread)] == ["there, misread"]
    assert [how for how, _ in lost_where(PHOTO, [])] == ["no read at all", "no read at all"]


def test_a_faint_read_says_whether_the_detector_or_the_reader_found_it_faint():
    # The QH's heat 0.4 is the detector's 0.8 times the reader's 0.5 chance that an index is there.
    doubted = dataclasses.replace(index("QH", (515, 125), 0.4, p=0.9), presence=0.5)
    reads = [index("7C", (115, 125), 0.9), index("7C", (315, 425), 0.9), doubted]
    assert lost_where(PHOTO, reads) == [
        ("faint, read as itself", "IMG_test: QH (heat 0.40 = 0.80 found x 0.50 index; QH 0.90, 2D 0.10)")
    ]


def test_a_sure_read_where_no_box_lies_and_no_left_out_index_is_listed_is_unboxed():
    from benchmarks.real_photos import unboxed_reads

    photo = Photo(PHOTO.name, PHOTO.source, PHOTO.path, PHOTO.boxes, ((card("7C"), (700.0, 300.0)),))
    reads = [
        index("7C", (115, 125), 0.9),  # in the 7C's box
        index("QH", (535, 155), 0.9),  # beside the QH's box, within half its size
        index("7C", (705, 295), 0.9),  # the listed corner the labels left out
        index("AS", (20, 620), 0.45),  # not sure an index is there
        index("AS", (20, 600), 0.6),
    ]
    assert [(str(r.card), r.centre) for r in unboxed_reads(photo, reads)] == [("AS", (20, 600))]
