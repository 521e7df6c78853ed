"""The corner reader (vision.networks.CORNER): a third look at each index the reader found, in a
window wide enough to hold the card's edges around it. It only ever lowers a read's heat."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import pytest

from vision.index_crops import WITH_CORNER, write_spec
from vision.indices import IndexDetector, with_shipped
from vision.networks import CORNER, ModelError, model_path
from vision.scales import scale_for

PHOTOS = Path(__file__).parent / "photos"


def test_the_shipped_corner_reader_is_read_in_its_own_window():
    assert IndexDetector().readers.corner_crop == WITH_CORNER
    assert with_shipped().readers.corner_crop == WITH_CORNER
    assert IndexDetector(read_corner=False).readers.corner is None


def test_a_corner_reader_given_is_the_one_read_and_a_broken_window_file_is_refused(tmp_path):
    given = tmp_path / "corner.onnx"
    shutil.copy(model_path(CORNER), given)
    write_spec(given, WITH_CORNER)
    measured = with_shipped(corner=given)
    assert measured.readers.corner is not None and measured.readers.corner.path == str(given)
    given.with_suffix(".json").write_text("{not json")
    with pytest.raises(ModelError, match="crop window"):
        with_shipped(corner=given)


def _reads(detector: IndexDetector, image, height: float):
    return detector.detect(image, scale_for(height))


@pytest.mark.parametrize("name", ["IMG_20220921_194248", "WIN_20240627_12_06_16_Pro"])
def test_the_corner_reader_only_lowers_a_reads_heat_and_keeps_the_real_indices(name):
    image = cv2.imread(str(PHOTOS / f"{name}.jpg"), cv2.IMREAD_COLOR)
    boxes = json.loads((PHOTOS / f"{name}.json").read_text())["indices"]
    height = sorted(b["box"][3] - b["box"][1] for b in boxes)[len(boxes) // 2]
    # Without the check of red ink, which is asked only of reads that may count: a read the
    # corner reader makes too faint to count is not checked, and may keep more heat than the same
    # read checked and taken away without the corner reader.
    with_it = _reads(IndexDetector(check_ink=False), image, height)
    without = {_at(r): r for r in _reads(IndexDetector(read_corner=False, check_ink=False), image, height)}
    assert {_at(r) for r in with_it} == set(without)  # the same places, read alike
    assert all(a.heat <= without[_at(a)].heat + 1e-6 and a.card == without[_at(a)].card for a in with_it)
    # Every labelled index the reader alone was sure of, the corner reader leaves sure.
    for b in boxes:
        x0, y0, x1, y1 = b["box"]
        for a in with_it:
            c = without[_at(a)]
            if x0 <= c.centre[0] <= x1 and y0 <= c.centre[1] <= y1 and c.heat >= 0.5:
                assert a.heat >= 0.5, (b["card"], a.heat, c.heat)


def _at(read) -> tuple[int, int]:
    return round(read.centre[0]), round(read.centre[1])
