"""The observer learns its deck's index size, and a wrong size never blinds it."""

from __future__ import annotations

import numpy as np
import pytest

from engine.cards import card
from vision.cards import Recognition
from vision.index_reads import IndexRead
from vision.mat import MatLayout
from vision.observe import _SIZE_FROM, Observer
from vision.scales import scale_for
from vision.scan import INDEX_SHARE

CARD_H = 120.0


def read(centre: tuple[float, float], height: float, heat: float = 0.9) -> IndexRead:
    return IndexRead(centre, height, 0.4 * height, 0.0, card("9C"), heat, heat, ())


def recognised(*centres: tuple[float, float], named: bool = True) -> Recognition:
    return Recognition(card("9C") if named else None, 0.9, np.zeros((4, 2)), centres[0], centres)


class Recording:
    """A detector that answers from a script and notes the scale and index height it was asked for."""

    def __init__(self, answers: list[list[IndexRead]]) -> None:
        self.answers, self.asked = answers, []

    def detect_each(self, looks):
        found = []
        for look in looks:
            self.asked.append((round(look.scale, 4), look.index_height))
            found.append(self.answers.pop(0) if self.answers else [])
        return found


def observer(answers: list[list[IndexRead]] | None = None) -> Observer:
    return Observer(MatLayout.create(4, "a2"), detector=Recording(answers or []))  # type: ignore[arg-type]


def test_the_index_size_is_learned_from_whole_cards_only():
    seen = observer()
    pair = [read((10, 10), 46), read((60, 100), 46)]
    # A lone index, an unnamed card, or reads from an earlier frame teach nothing: a glyph in a
    # picture is read alone, and a card kept from before would be counted again every frame.
    seen._learn_index_size([recognised((10, 10))], pair, CARD_H)
    seen._learn_index_size([recognised((10, 10), (60, 100), named=False)], pair, CARD_H)
    seen._learn_index_size([recognised((10, 10), (60, 100))], [], CARD_H)
    assert seen._index_share() is None and not seen._index_shares
    for _ in range(_SIZE_FROM // 2):
        seen._learn_index_size([recognised((10, 10), (60, 100))], pair, CARD_H)
    assert seen._index_share() == pytest.approx(46 / CARD_H)


def test_the_detector_runs_at_the_learned_size_and_the_reader_is_told_it():
    seen = observer([[read((40, 40), 46)]])
    seen._index_shares.extend([0.38] * _SIZE_FROM)
    seen._detect(np.zeros((200, 200, 3), np.uint8), [(0, 0, 200, 200)], CARD_H)
    assert seen.detector.asked == [(round(scale_for(0.38 * CARD_H), 4), pytest.approx(0.38 * CARD_H))]


def test_a_region_where_the_learned_size_finds_nothing_is_looked_at_again_at_the_default_size():
    # A size learned wrongly (a small one, from a picture's glyphs) runs the detector at too
    # large a scale: the deck's real indices are then too large to be found at all.
    seen = observer([[read((10, 10), 20, heat=0.3)], [read((10, 10), 46)]])
    seen._index_shares.extend([0.16] * _SIZE_FROM)
    [found] = seen._detect(np.zeros((200, 200, 3), np.uint8), [(50, 20, 250, 220)], CARD_H)
    assert seen.detector.asked == [
        (round(scale_for(0.16 * CARD_H), 4), pytest.approx(0.16 * CARD_H)),
        (round(scale_for(INDEX_SHARE * CARD_H), 4), None),
    ]
    assert [r.centre for r in found] == [(60, 30)]  # in the frame's pixels


def test_only_the_regions_where_the_learned_size_found_nothing_are_looked_at_again():
    seen = observer([[read((40, 40), 46)], [read((10, 10), 20, heat=0.3)], [read((10, 10), 46)]])
    seen._index_shares.extend([0.16] * _SIZE_FROM)
    found = seen._detect(np.zeros((200, 200, 3), np.uint8), [(0, 0, 90, 90), (100, 100, 190, 190)], CARD_H)
    assert len(seen.detector.asked) == 3  # both regions, then the second again
    assert [[r.centre for r in reads] for reads in found] == [[(40, 40)], [(110, 110)]]


def test_a_learned_size_near_the_default_is_looked_at_once():
    seen = observer()
    seen._index_shares.extend([INDEX_SHARE * 1.1] * _SIZE_FROM)
    seen._detect(np.zeros((200, 200, 3), np.uint8), [(0, 0, 200, 200)], CARD_H)
    assert len(seen.detector.asked) == 1


SHAPE = (720, 1280, 3)


def test_an_index_read_in_two_overlapping_regions_is_kept_once_as_read_deeper_inside_one():
    from vision.observe import _deepest

    left, right = (100, 100, 300, 300), (280, 100, 480, 300)  # overlapping from x 280 to 300
    as_left_saw_it = read((295, 200), 20, heat=0.95)  # 5 px in from the left region's edge
    as_right_saw_it = read((296, 200), 20, heat=0.9)  # 16 px in from the right region's edge
    kept = _deepest([(left, [as_left_saw_it]), (right, [as_right_saw_it])], SHAPE)
    assert kept == [as_right_saw_it]
    another = read((400, 200), 20)
    assert len(_deepest([(left, [as_left_saw_it]), (right, [another])], SHAPE)) == 2


def test_an_old_read_in_a_region_s_outer_band_stays_and_a_new_read_of_it_there_is_dropped():
    from vision.observe import _renewed

    box = (100, 100, 300, 300)
    in_band, in_core, outside = read((105, 200), 20), read((200, 200), 20), read((500, 500), 20)
    again_in_band, new_in_core = read((106, 200), 20, heat=0.95), read((210, 210), 20)
    reads = _renewed([in_band, in_core, outside], [again_in_band, new_in_core], [box], band=20, shape=SHAPE)
    assert set(reads) == {in_band, outside, new_in_core}  # the card in the core was read again


def test_a_region_at_the_frame_s_edge_has_no_band_there():
    from vision.observe import _renewed

    box = (0, 100, 300, 300)  # along the frame's left edge: a read there was cut by the frame, not the region
    at_frame_edge = read((5, 200), 20)
    assert _renewed([at_frame_edge], [], [box], band=20, shape=SHAPE) == []


def test_an_index_cut_off_by_the_frames_edge_is_no_index():
    # Taught as an index only when most of it is in view, the network reads a cut-off corner as a
    # whole one; the card it belongs to is read from its other corner, if that is in view.
    seen = observer([[read((100, 100), 46), read((100, 5), 46)]])
    [found] = seen._detect(np.zeros((200, 200, 3), np.uint8), [(0, 0, 200, 200)], CARD_H)
    assert [r.centre for r in found] == [(100, 100)]
