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


def test_overlapping_regions_merge_and_apart_ones_do_not():
    merged = changes.merge_overlapping([(0, 0, 10, 10), (5, 5, 20, 20), (50, 50, 60, 60)])
    assert sorted(merged) == [(0, 0, 20, 20), (50, 50, 60, 60)]
