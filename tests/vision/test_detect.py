"""Card detection on rendered scenes: fanned tricks, glare, three tables, two frame sizes; no
phantom outlines; reads reused only for cards that did not change."""

from __future__ import annotations

from dataclasses import replace
from itertools import islice

import cv2
import numpy as np
import pytest

from benchmarks.vision_scenes import TABLES, Score, scenes
from engine.cards import CARDS, card
from simulators.camera import Arm, CameraView, CardTruth, PlacedCard, Scene, render
from simulators.card_faces import all_faces
from simulators.scenes import random_glare, tilted_view
from tests.vision.benchmark_scenes import missed, recognised
from vision.classify import CardRead, IndexTemplates
from vision.decks import deck_available, deck_faces
from vision.detect import CardQuad, _card_size, find_cards
from vision.mat import MatLayout, find_mat, marker_parts
from vision.observe import Observer
from vision.reader import GenericReader
from vision.scan import ReadMemo, Recognition, recognise

SIZES = ((1280, 720), (1920, 1080))


@pytest.fixture(scope="module")
def templates() -> IndexTemplates:
    return IndexTemplates.from_faces(all_faces())


def card_size_px(view: CameraView) -> tuple[float, float]:
    """The card's size in pixels at the middle of the table, as the mat's scale gives it."""
    points = np.array([[[297.0, 210.0], [307.0, 210.0], [297.0, 220.0]]])
    a, b, c = cv2.perspectiveTransform(points, view.table_to_frame)[0]
    px_per_mm = (np.linalg.norm(b - a) + np.linalg.norm(c - a)) / 20
    return (63.5 * px_per_mm, 88.9 * px_per_mm)


def fanned_trick(i: int, size: tuple[int, int]) -> tuple[CameraView, np.ndarray, list[CardTruth]]:
    """Three or four cards fanned in the middle of the table (each shows one index corner at
    least), the whole trick turned, glare in every other scene, one card face down aside."""
    rng = np.random.default_rng(500 + i)
    table = TABLES[i % 3]
    view = tilted_view(rng, size, table, MatLayout.create(4, "a2") if table == "felt" else None)
    n = 3 + i % 2
    cards = [CARDS[k] for k in rng.choice(len(CARDS), n + 1, replace=False)]
    cx, cy, turn = 297 + rng.uniform(-20, 20), 210 + rng.uniform(-10, 10), rng.uniform(-20, 20)
    placed = []
    for k, c in enumerate(cards[:n]):
        dx = (k - (n - 1) / 2) * rng.uniform(34, 42)
        centre = (cx + dx * np.cos(np.deg2rad(turn)), cy + dx * np.sin(np.deg2rad(turn)) + rng.uniform(-8, 8))
        placed.append(PlacedCard(c, centre, turn + rng.uniform(-12, 12)))
    placed.append(PlacedCard(cards[n], (120, 330), rng.uniform(-20, 20), face_up=False))
    glare = (random_glare(rng, size),) if i % 2 == 0 else ()
    scene = Scene(cards=tuple(placed), glare=glare, light_falloff=0.3, blur_sigma=0.6, noise_sigma=3)
    frame, truth = render(view, scene, seed=i)
    return view, frame, truth


def on_a_face_up_card(rec: Recognition, truth: list[CardTruth]) -> bool:
    """The outline's centre lies near a face-up card's centre (unknown reads included)."""
    for t in truth:
        width = float(np.linalg.norm(t.corners_px[1] - t.corners_px[0]))
        if t.face_up and np.hypot(*np.subtract(rec.center, t.centre_px)) < 0.35 * width + 4:
            return True
    return False


@pytest.mark.parametrize(("size", "min_recall"), [(SIZES[0], 0.7), (SIZES[1], 0.68)])
def test_fanned_tricks_of_three_or_four_cards_are_split_and_read(templates, size, min_recall):
    # Measured on these eight scenes (28 face-up cards): 71 % at 720p and at 1080p; before the
    # pile candidates along the outline's runs, the middle cards of a fan were not found at all.
    score = Score()
    for i in range(8):
        view, frame, truth = fanned_trick(i, size)
        found = recognise(frame, templates, card_size_px(view))
        score.add(found, truth, f"fan {i}")
        assert all(on_a_face_up_card(r, truth) for r in found), f"fan {i}: an outline on no card"
    assert score.wrong == []  # a wrong card is a false accusation at the table
    assert score.recall >= min_recall, score


@pytest.mark.parametrize(("size", "count", "min_recall"), [(SIZES[0], 12, 0.85), (SIZES[1], 6, 0.9)])
def test_no_outline_is_reported_where_no_face_up_card_lies(templates, size, count, min_recall):
    # Every reported outline, read or not, lies on a face-up card: backs, glare, the mat's
    # markers and the wood's grain make none. (Recall measured on these scenes: 88 % / 93 %.)
    score = Score()
    for label, frame, truth in scenes(count, size, seed=size[1]):
        found = recognise(frame, templates)
        score.add(found, truth, label)
        assert all(on_a_face_up_card(r, truth) for r in found), label
    assert score.wrong == []
    assert score.recall >= min_recall, score


@pytest.mark.parametrize("table", TABLES)
def test_backs_and_an_arm_make_no_outline(table):
    view = tilted_view(np.random.default_rng(3), (1280, 720), table, None)
    backs = tuple(PlacedCard(card("AS"), (150 + 90 * i, 200), 10 * i, face_up=False) for i in range(4))
    scene = Scene(cards=backs, arms=(Arm((0, 700), (600, 300), 55),), light_falloff=0.4, blur_sigma=0.8)
    frame, _ = render(view, scene)
    assert find_cards(frame) == []
    assert find_cards(frame, card_size_px(view)) == []


def still_cards(seed: int = 0) -> tuple[CameraView, Scene]:
    view = tilted_view(np.random.default_rng(seed), (1280, 720), "felt", MatLayout.create(4, "a2"))
    cards = (PlacedCard(card("QS"), (297, 70), 8), PlacedCard(card("7D"), (297, 350), -12))
    return view, Scene(cards=cards, light_falloff=0.3, blur_sigma=0.6, noise_sigma=3)


def test_a_still_card_is_read_once_and_a_swapped_one_again(templates):
    view, scene = still_cards()
    memo = ReadMemo()
    first = recognise(render(view, scene, seed=1)[0], templates, memo=memo)
    assert sorted(str(r.card) for r in first) == ["7D", "QS"] and memo.misses == 2
    again = recognise(render(view, scene, seed=2)[0], templates, memo=memo)  # only the noise differs
    assert sorted(str(r.card) for r in again) == ["7D", "QS"]
    assert (memo.hits, memo.misses) == (2, 2)
    # The seven swapped for another card at exactly the same place: read again, not remembered.
    swapped = (scene.cards[0], PlacedCard(card("4C"), scene.cards[1].centre_mm, scene.cards[1].angle_deg))
    later = recognise(render(view, replace(scene, cards=swapped), seed=3)[0], templates, memo=memo)
    assert sorted(str(r.card) for r in later) == ["4C", "QS"]
    assert memo.misses == 3


def test_the_observer_reuses_a_still_frame_and_sees_a_new_card(templates):
    view, scene = still_cards(1)
    observer = Observer(MatLayout.create(4, "a2"), templates)
    first = observer.observe(render(view, scene, seed=1)[0])
    assert sorted(str(o.card) for o in first.cards) == ["7D", "QS"]
    for seed in (2, 3, 4):
        assert observer.observe(render(view, scene, seed=seed)[0]).cards == first.cards
    assert observer.reused == 3
    added = replace(scene, cards=(*scene.cards, PlacedCard(card("KH"), (80, 210), 5)))
    observer.observe(render(view, added, seed=5)[0])  # new there since the last frame: put off
    seen = observer.observe(render(view, added, seed=6)[0])
    assert sorted(str(o.card) for o in seen.cards) == ["7D", "KH", "QS"]
    assert observer.reused == 3


def test_the_observer_works_again_only_where_the_frame_changed(templates):
    """A hand moving over one side of the table: the cards elsewhere keep their outlines and
    reads; a card placed, taken away or swapped where the frame changed is seen (a new blob
    once it holds still for a frame)."""
    view, scene = still_cards(2)
    observer = Observer(MatLayout.create(4, "a2"), templates)
    names = lambda seen: sorted(str(o.card) for o in seen.cards)  # noqa: E731
    assert names(observer.observe(render(view, scene, seed=1)[0])) == ["7D", "QS"]
    reads, kept = observer.memo.misses, observer.memo.blobs_kept
    # The hand reaches to the left seat, far from both cards: the frame is not still, but the
    # cards' blobs are unchanged, so neither is worked on nor read again.
    left = cv2.perspectiveTransform(np.array([[[80.0, 210.0]]]), view.table_to_frame)[0, 0]
    arm = Arm((0.0, float(left[1]) + 60), (float(left[0]), float(left[1])), 50)
    assert names(observer.observe(render(view, replace(scene, arms=(arm,)), seed=2)[0])) == ["7D", "QS"]
    assert observer.reused == 0 and observer.memo.blobs_kept >= kept + 2 and observer.memo.misses == reads
    # It leaves a card there and goes: the place changed since the last frame (the hand left),
    # so the new blob is left for a frame (its zone has motion over it); once still, the card is
    # found and read, and the others still are not.
    placed = (*scene.cards, PlacedCard(card("KH"), (80, 210), 5))
    assert names(observer.observe(render(view, replace(scene, cards=placed), seed=3)[0])) == ["7D", "QS"]
    assert observer.memo.put_off + observer.memo.skipped == 1
    assert names(observer.observe(render(view, replace(scene, cards=placed), seed=6)[0])) == ["7D", "KH", "QS"]
    assert observer.memo.misses == reads + 1
    # The queen taken away, then the seven swapped for another card at the same place.
    taken = placed[1:]
    assert names(observer.observe(render(view, replace(scene, cards=taken), seed=4)[0])) == ["7D", "KH"]
    swapped = (PlacedCard(card("4C"), taken[0].centre_mm, taken[0].angle_deg), taken[1])
    # (The swap is motion over its zone: the card there is read in the next frame, once quiet; the
    # tracker ignores a busy zone meanwhile.)
    swapping = observer.observe(render(view, replace(scene, cards=swapped), seed=5)[0])
    assert names(swapping) == ["KH"] and observer.memo.misses == reads + 1
    assert all(o.zone not in swapping.busy for o in swapping.cards) and len(swapping.busy) >= 1
    assert names(observer.observe(render(view, replace(scene, cards=swapped), seed=7)[0])) == ["4C", "KH"]
    assert observer.memo.misses == reads + 2


def test_an_arm_over_a_marker_does_not_start_a_search_for_the_mat(templates):
    # The first marker covered by an arm reaching in from the frame's left edge: it changed, the
    # other three did not, so the mat has not moved (two points of a flat mat where they were).
    view, scene = still_cards(2)
    layout = MatLayout.create(4, "a2")
    observer = Observer(layout, templates, pose_every=1)
    observer.observe(render(view, scene, seed=1)[0])
    pose = observer._pose
    marker = pose.to_frame(next(iter(layout.marker_corners_mm().values()))).mean(axis=0)
    arm = Arm((0.0, float(marker[1])), (float(marker[0]) + 60, float(marker[1])), 120)
    before, spots = observer._mat_glance
    frame = render(view, replace(scene, arms=(arm,)), seed=2)[0]
    seen = observer.observe(frame)
    glance = observer._last_glance
    changed = [int(cv2.absdiff(glance[s], before[s]).max()) > 10 for s in spots]
    assert changed.count(True) == 1, changed  # the arm covers that marker only
    assert observer.markers_skipped == 1 and observer._search is None and observer._pose is pose
    assert sorted(str(o.card) for o in seen.cards) == ["7D", "QS"]


def test_the_mat_is_looked_for_only_when_its_markers_change(templates):
    view, scene = still_cards(2)
    layout = MatLayout.create(4, "a2")
    observer = Observer(layout, templates, pose_every=1)
    first = observer.observe(render(view, scene, seed=1)[0])
    centres = {str(o.card): o.centre_mm for o in first.cards}
    left = cv2.perspectiveTransform(np.array([[[80.0, 210.0]]]), view.table_to_frame)[0, 0]
    arm = Arm((0.0, float(left[1]) + 60), (float(left[0]), float(left[1])), 50)
    observer.observe(render(view, replace(scene, arms=(arm,)), seed=2)[0])
    assert observer.markers_skipped == 1  # the hand is far from every marker
    # The camera moved: the markers are not where they were, so the whole frame is searched for
    # them, one part per frame; the mat is found again, and the cards stay on it.
    moved = tilted_view(np.random.default_rng(7), (1280, 720), "felt", layout)
    before = observer._pose
    observer.observe(render(moved, scene, seed=3)[0])  # (its new blobs are put off a frame)
    assert observer.markers_skipped == 1
    for i in range(marker_parts((720, 1280))):
        assert observer._pose is before  # not found until every part has been searched
        observer.observe(render(moved, scene, seed=4 + i)[0])
    assert observer._pose is not before
    whole = find_mat(render(moved, scene, seed=4)[0], layout)
    corners = np.array([[0.0, 0.0], [594.0, 420.0], [300.0, 100.0]])
    assert np.abs(observer._pose.to_frame(corners) - whole.to_frame(corners)).max() < 1.0
    found = observer._pose
    seen = observer.observe(render(moved, scene, seed=20)[0])
    assert observer._pose is found and observer._search is None  # found, and not looked for again
    assert sorted(str(o.card) for o in seen.cards) == ["7D", "QS"]
    for o in seen.cards:
        assert np.hypot(*np.subtract(o.centre_mm, centres[str(o.card)])) < 10


def test_a_card_inside_a_ring_of_pale_table_is_a_blob_of_its_own():
    # A pale table all round the mat is one blob of card pixels with the mat as its hole: a hole
    # larger than a card is table, not card (a court card's picture is filled), so the card lying
    # on the mat, inside the hole, is found on its own.
    from vision.detect import paper

    view = tilted_view(np.random.default_rng(26), (1280, 720), "pale", MatLayout.create(4, "a2"))
    light = {"light_falloff": 0.3, "light_angle": 1.0, "blur_sigma": 0.6, "noise_sigma": 3.0}
    frame, _ = render(view, Scene(cards=(PlacedCard(card("KS"), (297.0, 340.0), 5.0),), **light), seed=26)
    size = card_size_px(view)
    ring = paper(frame)  # without the card size every hole is filled: one blob, the mat in it
    assert len(ring.blobs) == 1
    blobs = paper(frame, card_size_px=size).blobs
    card_area = size[0] * size[1] * 0.75**2  # work pixels (a 1280-wide frame is worked at 960)
    assert sum(1 for b in blobs if abs(b.area / card_area - 1) < 0.15) == 1
    assert any(rec.card == card("KS") for rec in recognise(frame, IndexTemplates.from_faces(all_faces()), size))


class _FirstLookUnknown:
    """The generic reader, except that the first time it reads one card it leaves it unknown:
    as it did when an index lay a pixel or two outside where the reader looks through the
    outline as found (anglo's AD in seed 11's scene 16, kde:standard's KC in scene 19, until
    session 7's reader read them at once). Keeps what it was shown of that card."""

    def __init__(self, target):
        self.target, self.inner, self.looks = target, GenericReader(), []

    def read(self, warped, body_visible=True):
        read = self.inner.read(warped, body_visible)
        if read.card == self.target:
            self.looks.append(warped)
            if len(self.looks) == 1:
                return CardRead(None, 0.0, "first look")
        return read


def test_a_single_card_read_unknown_is_read_again_through_a_moved_outline():
    # A card read unknown is read again at the same place through the memo, through the outline
    # moved a little (the same pixels through the same outline would read the same way again).
    if not deck_available("kde:standard"):
        pytest.skip("kde:standard is not installed")
    _, frame, truth = next(islice(scenes(20, (1280, 720), seed=11, deck=dict(deck_faces("kde:standard"))), 19, None))
    king = next(t for t in truth if t.card == card("KC"))
    reader, memo = _FirstLookUnknown(card("KC")), ReadMemo()

    def at_the_king() -> list[Recognition]:
        return [r for r in recognise(frame, reader, memo=memo) if np.hypot(*np.subtract(r.center, king.centre_px)) < 20]

    assert [r.card for r in at_the_king()] == [None]
    assert [r.card for r in at_the_king()] == [card("KC")]
    first, second = reader.looks[:2]
    assert first.shape == second.shape and not np.array_equal(first, second)  # through a moved outline


def _outline(short: float, long_: float, x: float = 0.0) -> CardQuad:
    return CardQuad(np.array([[x, 0], [x + short, 0], [x + short, long_], [x, long_]], np.float64), True)


def test_the_card_size_is_the_one_the_single_cards_agree_on_both_ways():
    # Two cards nearly aligned make a blob of a card's shape, its long side within a fifth of the
    # single cards' but its short side not: it is no card of the size (kde:standard, seed 4, 720p,
    # scene 20: a 5C over a 6D, 111 x 135 px among cards of 80 x 110, took the size, and no single
    # card was then card-sized).
    singles = [_outline(80.8, 110.5), _outline(80.0, 112.4, 200), _outline(79.6, 108.4, 400)]
    short, long_ = _card_size(None, [*singles, _outline(110.8, 135.2, 600)])
    assert short == pytest.approx(79.6, abs=0.5) and long_ == pytest.approx(108.4, abs=0.5)


def test_a_pair_of_nearly_aligned_cards_leaves_the_single_cards_read():
    found, truth = recognised("kde:standard", 4, (1280, 720), 20)
    assert len([t for t in truth if t.face_up]) == 5
    assert missed(found, truth) == []
