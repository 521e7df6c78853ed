"""The camera simulator: real pixels where the truth says the cards are, repeatable, frames only."""

from __future__ import annotations

import numpy as np
import pytest

from engine.cards import card, cards
from simulators.camera import Arm, CameraView, PlacedCard, Scene, SimulatedCamera, render
from simulators.scenes import SceneStyle, random_scene, tilted_view
from vision.mat import MatLayout, find_mat, zone_of


@pytest.fixture(scope="module")
def view() -> CameraView:
    return tilted_view(np.random.default_rng(11), (1280, 720), "wood", MatLayout.create(4, "a2"))


def patch_mean(frame: np.ndarray, point) -> np.ndarray:
    x, y = (round(v) for v in point)
    return frame[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3).mean(axis=0)


def test_cards_lie_where_the_truth_says_and_in_the_zone_the_mat_reports(view):
    layout = view.mat
    scene = Scene(
        cards=(PlacedCard(card("2C"), (297, 355), 10), PlacedCard(card("AS"), (120, 210), -15, face_up=False))
    )
    frame, truth = render(view, scene)
    assert [t.zone for t in truth] == ["seat 1", "seat 2"]
    # A two has no ink at its centre: white paper there; a back is blue.
    paper, back = patch_mean(frame, truth[0].centre_px), patch_mean(frame, truth[1].centre_px)
    assert paper.min() > 200
    assert back[0] > back[2] + 40
    # Just outside the card's corner lies the green mat.
    corner = truth[0].corners_px[0] + (truth[0].corners_px[0] - np.array(truth[0].centre_px)) * 0.08
    felt = patch_mean(frame, corner)
    assert felt[1] > felt[2] + 20
    pose = find_mat(frame, layout)
    assert pose is not None
    assert [zone_of(pose, layout, t.centre_px).name for t in truth] == ["seat 1", "seat 2"]


def test_overlap_and_arms_reduce_the_visible_fraction(view):
    scene = Scene(cards=(PlacedCard(card("KH"), (280, 210)), PlacedCard(card("QH"), (310, 210))))
    _, truth = render(view, scene)
    assert truth[0].visible < 0.7 and truth[1].visible == pytest.approx(1.0)
    covering = Scene(cards=scene.cards, arms=(Arm((640, 800), truth[1].centre_px, 60),))
    _, truth = render(view, covering)
    assert truth[1].visible < 0.9


@pytest.mark.parametrize("table", ["felt", "wood", "pale"])
def test_scenes_are_repeatable_and_differ_with_the_seed(view, table):
    rng_view = tilted_view(np.random.default_rng(1), (640, 360), table, view.mat)
    style = SceneStyle(glare=True, arms=1, face_down=1)
    scene = random_scene(np.random.default_rng(5), rng_view, cards("AS KD 7C 2H 9S TD"), style)
    a, _ = render(rng_view, scene, seed=3)
    b, _ = render(rng_view, scene, seed=3)
    c, _ = render(rng_view, scene, seed=4)
    assert a.shape == (360, 640, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_random_scenes_fan_a_trick_in_the_centre_keeping_an_index_corner_in_view(view):
    rng = np.random.default_rng(2)
    scene = random_scene(rng, view, cards("AS KD 7C 2H 9S"), SceneStyle(overlap=True))
    _, truth = render(view, scene)
    centre = [t for t in truth if t.zone == "centre"]
    assert len(centre) >= 2
    assert all(t.visible > 0.25 for t in truth)
    assert {t.zone for t in truth} - {"centre"} <= {"seat 1", "seat 2", "seat 3", "seat 4"}


def test_the_camera_yields_frames_only_and_keeps_the_truth_aside(view):
    scenes = [Scene(cards=(PlacedCard(card("5D"), (297, 100 + 40 * i)),)) for i in range(3)]
    camera = SimulatedCamera(view, scenes, seed=1)
    frames = list(camera)
    assert len(frames) == 3 and all(isinstance(f, np.ndarray) for f in frames)
    assert camera.read() is None
    assert [t[0].centre_px[1] for t in camera.truths] == sorted(t[0].centre_px[1] for t in camera.truths)
