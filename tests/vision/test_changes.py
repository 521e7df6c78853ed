"""Which parts of a frame changed (vision.changes): pure, on frames made here."""

from __future__ import annotations

import numpy as np

from vision import changes


def frame_with(patch_at: tuple[int, int] | None, noise_seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(noise_seed)
    frame = np.clip(rng.normal(90, 4, (720, 1280, 3)), 0, 255).astype(np.uint8)  # felt and camera noise
    if patch_at is not None:
        x, y = patch_at
        frame[y : y + 120, x : x + 90] = 240  # a card put down
    return frame


def test_camera_noise_alone_is_no_change():
    a, b = changes.glance(frame_with(None, 1)), changes.glance(frame_with(None, 2))
    assert changes.unchanged(b, a)
    assert changes.changed_regions(b, a, 50, (720, 1280)) == []


def test_a_card_put_down_is_one_region_around_it_grown_by_the_margin():
    before = changes.glance(frame_with(None, 1))
    after = changes.glance(frame_with((600, 300), 2))
    assert not changes.unchanged(after, before)
    (box,) = changes.changed_regions(after, before, 48, (720, 1280))
    x0, y0, x1, y1 = box
    assert x0 <= 600 - 40 and y0 <= 300 - 40 and x1 >= 690 + 40 and y1 >= 420 + 40
    assert x1 - x0 < 300 and y1 - y0 < 330  # not the whole frame


def test_nothing_settled_means_the_whole_frame_and_a_read_region_settles():
    now = changes.glance(frame_with((100, 100), 3))
    assert changes.changed_regions(now, None, 48, (720, 1280)) == [(0, 0, 1280, 720)]
    settled = changes.settle(changes.glance(frame_with(None, 1)), now, (0, 0, 400, 400))
    assert changes.changed_regions(now, settled, 48, (720, 1280)) == []


def test_regions_merge_where_one_box_holds_no_more_pixels_than_the_two():
    merged = changes.merge_where_cheaper([(0, 0, 10, 10), (4, 1, 14, 11), (50, 50, 60, 60)])
    assert sorted(merged) == [(0, 0, 14, 11), (50, 50, 60, 60)]  # 154 pixels for 200: one box


def test_regions_that_overlap_at_a_corner_stay_apart_when_one_box_would_be_larger():
    apart = [(0, 0, 10, 10), (8, 8, 18, 18)]  # one box around both: 324 pixels, for 200
    assert sorted(changes.merge_where_cheaper(apart)) == apart


def test_cards_put_down_far_apart_are_read_as_regions_of_their_own():
    before = changes.glance(frame_with(None, 1))
    now = frame_with((100, 100), 2)
    now[500:620, 1000:1090] = 240  # a second card, far from the first
    regions = changes.changed_regions(changes.glance(now), before, 48, now.shape)
    assert len(regions) == 2
    assert sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in regions) < 0.2 * 1280 * 720
