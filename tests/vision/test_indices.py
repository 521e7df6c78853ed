"""The index detector's reads (vision.indices): one read per index, however many heat-map peaks."""

from __future__ import annotations

import itertools
import math

import numpy as np

from engine.cards import card
from simulators.camera import Scene, SimulatedCamera
from simulators.scenes import tilted_view, trick_scenes
from vision.indices import IndexRead, suppress
from vision.mat import MatLayout
from vision.scan import default_detector


def at(x: float, y: float, score: float, height: float = 24.0, heat: float | None = None) -> IndexRead:
    return IndexRead((x, y), height, 14.0, 0.0, card("QS"), score, score if heat is None else heat)


def test_of_two_reads_closer_than_the_share_of_an_index_the_surer_stays():
    reads = [at(100, 100, 0.6), at(104, 103, 0.9), at(100, 150, 0.5)]
    assert suppress(reads, apart=0.25) == [reads[1], reads[2]]  # 5 px apart: one index; 50 px: two
    assert suppress(reads[:2], apart=0.1) == [reads[1], reads[0]]  # 5 px is more than 0.1 of 24 px
    assert suppress(reads[:2], weights=[2.0, 1.0]) == [reads[0]]  # the weight decides, not the score


def test_an_index_read_at_two_sizes_is_one_and_a_sure_read_stays_over_an_unsure_one():
    # The project's KC at 26 px, and the same index seen 47 px tall at a coarser scale, 16 px off:
    # they overlap, so they are one index (two indices side by side in a fan are of a size).
    small, large = at(598, 327, 0.4, height=26.5, heat=0.64), at(614, 332, 0.3, height=47.0, heat=0.6)
    assert suppress([small, large], weights=[0.3, 0.6]) == [large]  # the weight decides between sure ones
    unsure = at(614, 332, 0.3, height=47.0, heat=0.4)  # not sure an index lies there at all
    assert suppress([small, unsure], weights=[0.3, 0.6]) == [small]
    side_by_side = [at(100, 100, 0.9), at(116, 100, 0.8)]  # a fan: 16 px apart, 24 px tall, both kept
    assert suppress(side_by_side) == side_by_side


def test_the_detector_reads_each_index_once_where_its_heat_map_has_two_peaks():
    # A trick on the pale table (tests/vision/test_tracker.py's third), its last card read again
    # where it lies: the 2C's lower index made two peaks 5 px apart, and the second, read as a
    # lone index, made an unknown card beside the 2C.
    plays = [card(c) for c in ("7S", "KS", "TH", "2C")]
    layout = MatLayout.create(4, "a2")
    view = tilted_view(np.random.default_rng(8), (1280, 720), "pale", layout)
    rng = np.random.default_rng(108)
    rng.choice(52, 4, replace=False)  # the draw that chose the plays
    light = {"light_falloff": 0.3, "light_angle": 1.0, "blur_sigma": 0.6, "noise_sigma": 3.0}
    frames = list(SimulatedCamera(view, trick_scenes(rng, layout, plays, Scene(**light)), seed=8))
    x0, y0, x1, y1 = 826, 259, 985, 460
    reads = default_detector().detect(frames[22][y0:y1, x0:x1], 1.246)
    assert len(reads) == 2, reads  # the 2C's two indices
    for a, b in itertools.combinations(reads, 2):
        assert math.dist(a.centre, b.centre) > 0.25 * min(a.height, b.height), (a, b)
