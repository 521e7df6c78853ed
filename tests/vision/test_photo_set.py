"""Loading the real photo set (vision.photo_set): its labels, their corrections, the split."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine.cards import card
from vision.photo_set import (
    CORRECTIONS,
    DATASET_ENV,
    LEFT_OUT,
    Correction,
    LeftOut,
    PhotoSetError,
    default_root,
    held_out,
    index_height,
    load,
    photos_of,
    split,
    training_crop,
    training_photos,
)


def write_set(root: Path, labels: dict[str, list[tuple[str, list[float]]]]) -> Path:
    (root / "labels").mkdir(parents=True)
    for name, indices in labels.items():
        data = {"image": f"images/{name}.jpg", "indices": [{"card": c, "box": b} for c, b in indices]}
        (root / "labels" / f"{name}.json").write_text(json.dumps(data))
    return root


def test_a_correction_names_the_card_printed_on_its_box_and_leaves_the_others(tmp_path):
    root = write_set(tmp_path, {"WIN_1": [("4S", [0, 0, 10, 20]), ("4S", [50, 50, 60, 70]), ("9H", [1, 1, 2, 2])]})
    (photo,) = load(root, corrections=(Correction("WIN_1", 1, "4S", "3S"),))
    assert [str(c) for c, _ in photo.boxes] == ["4S", "3S", "9H"]
    assert photo.boxes[1][1] == (50.0, 50.0, 60.0, 70.0)
    assert photo.source == "webcam"


def test_a_correction_that_no_longer_fits_its_label_file_is_refused(tmp_path):
    root = write_set(tmp_path, {"IMG_1": [("4S", [0, 0, 10, 20])]})
    with pytest.raises(PhotoSetError, match=r"IMG_1\.json: correction of box 0 expects 4C, the label file has 4S"):
        load(root, corrections=(Correction("IMG_1", 0, "4C", "3C"),))
    with pytest.raises(PhotoSetError, match="correction of box 3 expects 4S, the label file has no such box"):
        load(root, corrections=(Correction("IMG_1", 3, "4S", "3S"),))


def test_an_index_the_labels_left_out_goes_with_its_photo_and_one_in_a_box_is_refused(tmp_path):
    root = write_set(tmp_path, {"IMG_1": [("4S", [0, 0, 10, 20])], "IMG_2": [("9H", [0, 0, 10, 20])]})
    first, second = load(root, corrections=(), left_out=(LeftOut("IMG_1", "AS", (400, 580)),))
    assert first.left_out == first.unboxed == ((card("AS"), (400.0, 580.0)),) and second.unboxed == ()
    with pytest.raises(PhotoSetError, match=r"IMG_1\.json: 4S at \(5, 10\) is listed as left out, but lies in a box"):
        load(root, corrections=(), left_out=(LeftOut("IMG_1", "4S", (5, 10)),))
    with pytest.raises(PhotoSetError, match="IMG_2: left-out index 'XX'"):
        load(root, corrections=(), left_out=(LeftOut("IMG_2", "XX", (5, 10)),))


def test_the_other_corner_of_a_labelled_card_is_taught_but_not_set_aside_in_scoring(tmp_path):
    # A read of the 4S is right wherever its index: only a card no label names is set aside.
    root = write_set(tmp_path, {"IMG_1": [("4S", [0, 0, 10, 20]), ("9H", [100, 100, 120, 124])]})
    (photo,) = load(root, corrections=(), left_out=(LeftOut("IMG_1", "4S", (300, 400)),))
    assert photo.unboxed == ((card("4S"), (300.0, 400.0)),) and photo.left_out == ()
    # Taught in a box of the photo's median box size (15 x 22 px) about its point.
    assert photo.taught_boxes() == (*photo.boxes, (card("4S"), (292.5, 389.0, 307.5, 411.0)))


def test_a_training_crop_teaches_the_indices_the_labels_left_out(tmp_path):
    root = write_set(tmp_path, {"IMG_1": [("4S", [100, 100, 120, 130])]})
    (photo,) = load(root, corrections=(), left_out=(LeftOut("IMG_1", "9H", (300, 200)),))
    image = np.full((480, 640, 3), 200, np.uint8)
    _, marks = training_crop(np.random.default_rng(0), photo, image, 256)
    assert sorted(str(c) for _, _, c, _ in marks) == ["4S", "9H"]


def test_a_joker_word_across_the_card_is_scaled_by_its_height_only_when_asked():
    word, index = (100, 100, 330, 170), (100, 100, 130, 150)  # Joker written across: 230 x 70
    assert index_height(card("LJ"), word) == 230 and index_height(card("LJ"), word, joker_word=True) == 70
    assert index_height(card("4S"), index, joker_word=True) == index_height(card("4S"), index) == 50


def test_a_training_crop_of_a_photo_of_jokers_alone_shows_their_words_at_an_index_s_height(tmp_path):
    root = write_set(tmp_path, {"IMG_1": [("LJ", [100, 100, 330, 170]), ("LJ", [120, 500, 350, 570])]})
    (photo,) = load(root, corrections=())
    image = np.full((640, 480, 3), 200, np.uint8)
    for seed in range(20):
        by_width = training_crop(np.random.default_rng(seed), photo, image, 256)[1]
        by_height = training_crop(np.random.default_rng(seed), photo, image, 256, joker_word=True)[1]
        for (_, small, _, _), (_, taught, _, _) in zip(by_width, by_height, strict=True):
            # The word's letters as tall as the indices the detector is taught (13-52 px, with a
            # margin of 0.85), not a word as wide as them.
            assert 13 / 0.85 <= taught <= 52 / 0.85
            assert taught == pytest.approx(small * 230 / 70)


def test_a_label_that_is_not_a_card_is_refused_with_its_file(tmp_path):
    root = write_set(tmp_path, {"IMG_1": [("1Z", [0, 0, 10, 20])]})
    with pytest.raises(PhotoSetError, match=r"IMG_1\.json"):
        load(root, corrections=())


def test_a_missing_set_says_where_it_was_looked_for(tmp_path):
    with pytest.raises(PhotoSetError, match="no photo set at"):
        load(tmp_path / "nowhere")


def test_the_split_keeps_runs_of_consecutive_photos_together(tmp_path):
    names = {f"IMG_2022092119{m:02d}00": [("2C", [0, 0, 1, 1])] for m in range(20)}
    train, validation = split(load(write_set(tmp_path, names), corrections=()))
    assert [p.name[-4:-2] for p in train] == [f"{m:02d}" for m in (*range(8), *range(16, 20))]
    assert [p.name[-4:-2] for p in validation] == [f"{m:02d}" for m in range(8, 16)]


def test_the_training_half_holds_out_every_third_run_of_each_source(tmp_path, monkeypatch):
    # 48 phone photos: runs 0, 2 and 4 of eight make the training half, and of those the third is held out.
    names = {f"IMG_2022092119{m:02d}00": [("2C", [0, 0, 1, 1])] for m in range(48)}
    names |= {f"WIN_20240627_12_{m:02d}_00_Pro": [("3D", [0, 0, 1, 1])] for m in range(48)}
    root = write_set(tmp_path, names)
    train, _ = split(load(root, corrections=()))
    taught, held = held_out(train)
    minutes = [int(p.name[-4:-2]) for p in held if p.source == "phone"]
    assert minutes == list(range(32, 40))
    assert sorted(int(p.name.split("_")[3]) for p in held if p.source == "webcam") == list(range(32, 40))
    assert {p.name for p in taught} | {p.name for p in held} == {p.name for p in train}
    assert not {p.name for p in taught} & {p.name for p in held}
    # What a training given --hold-out is taught, and what --half held-out reads.
    monkeypatch.setenv(DATASET_ENV, str(root))
    assert {p.name for p in training_photos(hold_out=True)} == {p.name for p in taught}
    assert {p.name for p in training_photos()} == {p.name for p in train}
    assert [p.name for p in photos_of("held-out")] == [p.name for p in held]
    with pytest.raises(PhotoSetError, match=r"unknown half 'test' of the real photographs .*held-out"):
        photos_of("test")


@pytest.mark.skipif(
    not (default_root() / "labels").is_dir(), reason="the shared photo set is not beside the repository"
)
def test_every_shipped_correction_fits_the_shared_set():
    photos = {p.name: p for p in load()}
    for c in CORRECTIONS:
        assert photos[c.photo].boxes[c.index][0] == card(c.printed)


@pytest.mark.skipif(
    not (default_root() / "labels").is_dir(), reason="the shared photo set is not beside the repository"
)
def test_every_left_out_index_is_of_a_photo_in_the_shared_set():
    photos = {p.name: p for p in load()}
    for entry in LEFT_OUT:
        assert (card(entry.card), entry.at) in photos[entry.photo].unboxed
