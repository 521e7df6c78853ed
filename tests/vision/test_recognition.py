"""Detection and identification on rendered scenes with ground truth: precision first."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from benchmarks.vision_scenes import Score, scenes
from engine.cards import CARDS, card
from simulators.camera import Arm, PlacedCard, Scene, render
from simulators.card_faces import all_faces, render_back, render_face
from simulators.scenes import SceneStyle, tilted_view
from tests.conftest import run_croupier
from vision.classify import ACCEPT, IndexTemplates, read_card
from vision.detect import CANONICAL_H, CANONICAL_W, pad_canonical
from vision.mat import MatLayout
from vision.scan import recognise


@pytest.fixture(scope="module")
def templates() -> IndexTemplates:
    return IndexTemplates.from_faces(all_faces())


def canonical(face: np.ndarray) -> np.ndarray:
    small = cv2.resize(face, (90, 126), interpolation=cv2.INTER_AREA)  # as small as at 1280 x 720
    return pad_canonical(cv2.resize(small, (CANONICAL_W, CANONICAL_H), interpolation=cv2.INTER_LINEAR))


def test_every_face_reads_as_itself_either_way_up(templates):
    for c in CARDS:
        face = canonical(render_face(c))
        for view in (face, face[::-1, ::-1]):
            read = read_card(np.ascontiguousarray(view), templates)
            assert read.card == c and read.confidence >= ACCEPT, (c, read)


def test_a_back_or_blank_paper_is_unknown(templates):
    assert read_card(canonical(render_back()), templates).card is None
    assert read_card(pad_canonical(np.full((CANONICAL_H, CANONICAL_W, 3), 240, np.uint8)), templates).card is None


@pytest.mark.parametrize(
    ("index_of", "body_of"), [("AS", "4S"), ("4S", "AS"), ("6H", "9H"), ("9D", "6D"), ("8C", "6C")]
)
def test_the_body_vetoes_an_index_it_contradicts(templates, index_of, body_of):
    # A card whose indices say one rank and whose pips say another is never reported.
    face = render_face(card(body_of))
    index = render_face(card(index_of))
    face[:95, :45] = index[:95, :45]
    face[-95:, -45:] = index[-95:, -45:]
    read = read_card(canonical(face), templates)
    assert read.card is None and "body" in read.detail


@pytest.mark.parametrize(("size", "count", "min_recall"), [((1280, 720), 12, 0.9), ((1920, 1080), 6, 0.8)])
def test_rotated_overlapping_scenes_under_glare_read_without_a_wrong_card(templates, size, count, min_recall):
    score = Score()
    for label, frame, truth in scenes(count, size, seed=size[0]):
        score.add(recognise(frame, templates), truth, label)
    assert score.wrong == []  # a wrong card is a false accusation at the table
    assert score.precision == 1.0
    assert score.recall >= min_recall, score


def test_single_cards_in_the_seats_zones_are_all_read(templates):
    score = Score()
    for label, frame, truth in scenes(6, (1280, 720), seed=7, style=SceneStyle(overlap=False, face_down=1)):
        score.add(recognise(frame, templates), truth, label)
    assert score.wrong == []
    assert score.recall >= 0.95, score


def test_arms_glare_and_backs_never_make_a_card(templates):
    rng = np.random.default_rng(3)
    view = tilted_view(rng, (1280, 720), "pale", None)
    backs = tuple(PlacedCard(card("AS"), (150 + 90 * i, 200), 10 * i, face_up=False) for i in range(4))
    arm = Arm((0, 700), (600, 300), 55)
    scene = Scene(cards=backs, arms=(arm,), light_falloff=0.4, blur_sigma=0.8, noise_sigma=3)
    frame, _ = render(view, scene)
    assert [r.card for r in recognise(frame, templates) if r.card is not None] == []


def test_the_two_jokers_are_told_apart_by_colour(templates):
    view = tilted_view(np.random.default_rng(4), (1280, 720), "felt", MatLayout.create(4, "a2"))
    scene = Scene(cards=(PlacedCard(card("BJ"), (297, 350), 8), PlacedCard(card("LJ"), (297, 70), -6)))
    frame, _ = render(view, scene)
    found = sorted(str(r.card) for r in recognise(frame, templates))
    assert found == ["BJ", "LJ"]


def test_croupier_vision_scan_prints_one_json_line_per_image(tmp_path):
    view = tilted_view(np.random.default_rng(5), (1280, 720), "wood", None)
    scene = Scene(cards=(PlacedCard(card("QS"), (200, 200), 15), PlacedCard(card("7D"), (400, 220), -20)))
    frame, truth = render(view, scene)
    paths = [tmp_path / "a.png", tmp_path / "b.jpg"]
    for path in paths:
        cv2.imwrite(str(path), frame)
    done = run_croupier("vision", "scan", *map(str, paths), "--json")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 2
    for line, path in zip(lines, paths, strict=True):
        doc = json.loads(line)
        assert doc["image"] == str(path)
        assert sorted(c["card"] for c in doc["cards"]) == ["7D", "QS"]
        for found in doc["cards"]:
            assert set(found) == {"card", "center", "corners", "confidence"}
            assert len(found["corners"]) == 4 and all(len(p) == 2 for p in found["corners"])
            assert 0.0 <= found["confidence"] <= 1.0
            true = next(t for t in truth if str(t.card) == found["card"])
            assert np.hypot(*np.subtract(found["center"], true.centre_px)) < 6


def test_croupier_vision_scan_refuses_what_is_not_an_image(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a picture")
    for path in (text, tmp_path / "missing.png"):
        done = run_croupier("vision", "scan", str(path), "--json")
        assert done.returncode == 2 and done.stdout == ""
        assert len(done.stderr.strip().splitlines()) == 1


def test_croupier_bench_vision_prints_speed_and_accuracy_as_json():
    done = run_croupier("bench", "vision", "--frames", "2", "--scenes", "1", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    cases = {(tuple(f["size"]), f["cards"]) for f in doc["speed"]}
    assert cases == {(size, n) for size in ((1280, 720), (1920, 1080)) for n in (0, 4, 8)}
    assert all(f["median_ms"] > 0 for f in doc["speed"])
    # The thread's CPU time of the same frames: never more than the wall-clock time (1 ms of slack
    # for the two clocks' reading order and resolution).
    assert all(0 < f["cpu_median_ms"] <= f["median_ms"] + 1 for f in doc["speed"])
    assert all(f["cpu_p95_ms"] <= f["p95_ms"] + 1 for f in doc["speed"])
    project = next(a for a in doc["accuracy"] if a["deck"] == "project")
    assert project["templates"] == "enrolled" and project["wrong"] == 0 and project["precision"] == 1.0
