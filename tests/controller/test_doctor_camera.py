"""``croupier doctor``'s camera checks on recorded frame folders (``folder:PATH``), read by the
table's own vision code: a good camera passes; black frames, a frame without the mat, a zone
without a card, no frames and no camera each fail with their message."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.doctor.camera_checks import CameraRig, check_camera
from controller.doctor.findings import Status
from controller.doctor.person import NobodyThere
from engine.cards import Card
from simulators.camera import PlacedCard, Scene, render
from simulators.scenes import tilted_view
from vision.indices import IndexDetector
from vision.mat import MatLayout
from vision.sources import open_source

LAYOUT = MatLayout.create(4, "a2")
SIZE = (1280, 720)
CARDS = ("AS", "KH", "7D", "QC")


class PersonWhoPlacedThem:
    """The cards are already in the recorded frames: the person says they are down, and knows them."""

    def __init__(self, cards=CARDS):
        self.cards = cards

    def place_cards(self, zones):
        return True

    def read_right(self, reads):
        return reads == {f"seat {n + 1}": card for n, card in enumerate(self.cards)}


def table_frame(with_mat=True, seats=(0, 1, 2, 3), seed=0):
    """A rendered frame of the table from above: a card in the middle of each seat's zone named."""
    view = tilted_view(np.random.default_rng(seed), SIZE, "felt", LAYOUT if with_mat else None)
    zones = [z for z in LAYOUT.zones if z.seat is not None]
    placed = []
    for seat in seats:
        x0, y0, x1, y1 = zones[seat].box_mm
        placed.append(PlacedCard(Card.from_str(CARDS[seat]), ((x0 + x1) / 2, (y0 + y1) / 2), 5.0))
    frame, _ = render(view, Scene(cards=tuple(placed), blur_sigma=0.6, noise_sigma=3.0), seed=seed)
    return frame


def recorded(folder: Path, frames) -> str:
    folder.mkdir()
    for n, frame in enumerate(frames):
        cv2.imwrite(str(folder / f"{n:03d}.png"), frame)
    return f"folder:{folder}"


def camera_findings(spec, person=None, wait_s=120.0):
    rig = CameraRig(spec, SIZE, LAYOUT, lambda: open_source(spec, SIZE), IndexDetector, live=False)
    return {f.check: f for f in check_camera(rig, person or PersonWhoPlacedThem(), wait_s)}


@pytest.fixture(scope="module")
def good_frame():
    return table_frame()


def test_a_camera_that_sees_the_mat_and_a_card_in_each_zone_passes(tmp_path, good_frame):
    findings = camera_findings(recorded(tmp_path / "good", [good_frame] * 4))
    assert {name: f.status for name, f in findings.items()} == {
        "opens": Status.PASS,
        "resolution": Status.PASS,
        "frame rate": Status.PASS,
        "exposure": Status.PASS,
        "focus": Status.PASS,
        "mat in view": Status.PASS,
        "zones fit": Status.PASS,
        "cards read": Status.PASS,
    }
    assert findings["cards read"].detail == "seat 1: AS, seat 2: KH, seat 3: 7D, seat 4: QC"
    assert findings["resolution"].detail == "1280x720"


def test_black_frames_fail_the_exposure_and_stop_there(tmp_path):
    findings = camera_findings(recorded(tmp_path / "black", [np.zeros((720, 1280, 3), np.uint8)] * 4))
    assert list(findings) == ["opens", "resolution", "frame rate", "exposure"]
    exposure = findings["exposure"]
    assert (exposure.status, exposure.detail) == (Status.FAIL, "the frames are black (brightest pixel 0 of 255)")
    assert exposure.fix.startswith("take the lens cap off")


def test_frames_without_the_mat_fail_with_no_markers_in_view(tmp_path):
    findings = camera_findings(recorded(tmp_path / "no-mat", [table_frame(with_mat=False)] * 3))
    mat = findings["mat in view"]
    assert (mat.status, mat.detail) == (
        Status.FAIL,
        "the mat is not in view (fewer than two of its corner markers are seen)",
    )
    assert "zones fit" not in findings and "cards read" not in findings


def test_cards_read_as_others_than_were_put_down_fail(tmp_path, good_frame):
    person = PersonWhoPlacedThem(("AS", "KH", "7D", "QS"))  # the person put the queen of spades down
    cards = camera_findings(recorded(tmp_path / "good", [good_frame] * 3), person)["cards read"]
    assert (cards.status, cards.detail) == (
        Status.FAIL,
        "read seat 1: AS, seat 2: KH, seat 3: 7D, seat 4: QC, which are not the cards put down",
    )


def test_a_zone_without_a_card_fails_and_is_named(tmp_path):
    findings = camera_findings(recorded(tmp_path / "three", [table_frame(seats=(0, 1, 3))] * 3))
    cards = findings["cards read"]
    assert (cards.status, cards.detail) == (Status.FAIL, "seat 3: no card seen")


def test_nobody_to_place_the_cards_skips_that_check_only(tmp_path, good_frame):
    findings = camera_findings(recorded(tmp_path / "good", [good_frame] * 3), person=NobodyThere())
    assert findings["zones fit"].status is Status.PASS
    assert findings["cards read"].status is Status.SKIP


def test_no_frames_and_no_camera_fail(tmp_path):
    empty = camera_findings(recorded(tmp_path / "empty", []))
    assert list(empty) == ["opens", "delivers frames"]
    assert empty["delivers frames"].detail == f"folder:{tmp_path / 'empty'} gave no frame"
    missing = camera_findings(f"folder:{tmp_path / 'nowhere'}")
    assert list(missing) == ["opens"] and missing["opens"].status is Status.FAIL
    assert missing["opens"].detail == f"folder:{tmp_path / 'nowhere'}: {tmp_path / 'nowhere'}: no such folder"
