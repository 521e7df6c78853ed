"""Loading the real photo set (vision.photo_set): its labels, their corrections, the split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cards import card
from vision.photo_set import CORRECTIONS, LEFT_OUT, Correction, LeftOut, PhotoSetError, default_root, load, split


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


def test_an_index_the_labels_left_out_goes_with_its_photo_and_one_a_label_names_is_refused(tmp_path):
    root = write_set(tmp_path, {"IMG_1": [("4S", [0, 0, 10, 20])], "IMG_2": [("9H", [0, 0, 10, 20])]})
    first, second = load(root, corrections=(), left_out=(LeftOut("IMG_1", "AS", (400, 580)),))
    assert first.left_out == ((card("AS"), (400.0, 580.0)),) and second.left_out == ()
    with pytest.raises(PhotoSetError, match=r"IMG_1\.json: 4S is listed as left out, but a label names it"):
        load(root, corrections=(), left_out=(LeftOut("IMG_1", "4S", (5, 10)),))
    with pytest.raises(PhotoSetError, match="IMG_2: left-out index 'XX'"):
        load(root, corrections=(), left_out=(LeftOut("IMG_2", "XX", (5, 10)),))


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
        assert card(entry.card) in [c for c, _ in photos[entry.photo].left_out]
