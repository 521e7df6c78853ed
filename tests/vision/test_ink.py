"""The check of red reads' ink (vision/ink.py): a red card's index shows red ink, washed out or
under a warm lamp, and a black one none; a heart printed black, in a frame with colour, is no
card, while the check leaves red cards and grey frames alone."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.cards import card
from simulators.card_faces import render_face
from vision.index_reads import SURE
from vision.indices import IndexDetector
from vision.ink import has_colour, red_ink_share, shows_red, without_colour
from vision.scan import photo_reads, scan

FELT = (40, 110, 30)  # BGR


def index_crop(code: str) -> np.ndarray:
    """The top-left index of one of the project's faces, at the reader's crop size (32 x 40)."""
    face = render_face(card(code))
    return cv2.resize(face[5:75, 0:56], (32, 40), interpolation=cv2.INTER_AREA)


def washed_out(image: np.ndarray, share: float = 0.65) -> np.ndarray:
    """As under a lamp's glare: ``share`` of the way to white."""
    return (image * (1 - share) + 255 * share).astype(np.uint8)


def under_a_warm_lamp(image: np.ndarray) -> np.ndarray:
    return (image * np.array([0.6, 0.85, 1.0])).astype(np.uint8)  # BGR: less blue, a little less green


def printed_black(face: np.ndarray) -> np.ndarray:
    """A face whose red ink is black: each reddish pixel made a dark grey."""
    b, g, r = (face[..., i].astype(int) for i in range(3))
    out = face.copy()
    reddish = r - np.maximum(b, g) > 40
    out[reddish] = (face.mean(axis=2)[reddish] // 3).astype(np.uint8)[:, None]
    return out


def on_felt(face: np.ndarray, width: int = 170) -> np.ndarray:
    height = int(face.shape[0] * width / face.shape[1])
    image = np.full((480, 640, 3), FELT, np.uint8)
    image[100 : 100 + height, 220 : 220 + width] = cv2.resize(face, (width, height), interpolation=cv2.INTER_AREA)
    return image


def named(image: np.ndarray, check_ink: bool = True) -> set[str]:
    return {str(r.card) for r in scan(image, detector=IndexDetector(check_ink=check_ink)) if r.card is not None}


@pytest.mark.parametrize("code", ["7D", "KH", "2H", "QD"])
def test_a_red_index_shows_red_ink_washed_out_or_under_a_warm_lamp(code):
    crop = index_crop(code)
    assert shows_red(crop)
    assert shows_red(washed_out(crop))
    assert shows_red(under_a_warm_lamp(crop))


@pytest.mark.parametrize("code", ["7S", "KC", "2C", "QS"])
def test_a_black_index_shows_none_washed_out_or_under_a_warm_lamp(code):
    crop = index_crop(code)
    assert red_ink_share(crop) == 0.0
    assert not shows_red(washed_out(crop))
    assert not shows_red(under_a_warm_lamp(crop))


def test_a_grey_frame_has_no_colour_and_the_felt_has():
    table = on_felt(render_face(card("7S")))
    assert has_colour(table)
    assert not has_colour(without_colour(table))


@pytest.mark.parametrize("code", ["KH", "9H"])
def test_a_heart_printed_black_is_no_card_in_a_frame_with_colour(code):
    red = on_felt(render_face(card(code)))
    black = on_felt(printed_black(render_face(card(code))))
    assert named(red) == {code}  # the check takes no red card's read away
    assert named(black) == set()
    assert named(black, check_ink=False) == {code}  # the reader alone reads the heart by its shape
    assert named(without_colour(black)) == {code}  # a grey frame says nothing of ink: not checked


def test_a_read_the_check_takes_away_still_counts_as_an_index_for_sizes():
    black = on_felt(printed_black(render_face(card("KH"))))
    checked = [r for r in photo_reads(IndexDetector(), black) if r.index_heat >= SURE]
    assert checked, "the indices are still there"
    assert all(r.heat < SURE and r.ink < 1 for r in checked if r.card == card("KH"))
    assert any(r.card == card("KH") for r in checked)


def test_the_red_ink_benchmark_sorts_reads_by_the_card_under_them_and_the_card_named():
    from benchmarks.red_ink import report, shares
    from vision.index_reads import IndexRead

    def read(code: str) -> IndexRead:
        return IndexRead((0.0, 0.0), 30.0, 20.0, 0.0, card(code), 0.9, 0.9, ((card(code), 0.9),))

    red, black = index_crop("7D"), index_crop("7S")
    found = [(card("7D"), read("7D"), red), (card("7S"), read("7D"), black), (card("7S"), read("7S"), black)]
    found.append((card("7S"), read("8D"), red))  # another card's index over it: not of its rank
    sorted_ = shares(iter(found), same_rank=True)
    assert len(sorted_["red read right"]) == 1 and sorted_["red read right"][0] > 0.05
    assert sorted_["black read red"] == [0.0] and sorted_["black"] == [0.0]
    line = report("project", sorted_)
    assert "black read red   1: 1 under NO_RED" in line and "0 under NO_RED" in line


def test_a_read_certain_of_a_red_card_without_red_ink_keeps_its_index_heat():
    from vision.index_reads import RANKS, Peak

    detector = IndexDetector()
    p_rank = np.full(len(RANKS), 1e-9, np.float32)
    p_rank[RANKS.index("K")] = 1.0
    p_suit = np.array([1e-9, 1e-9, 1.0, 1e-9, 1e-9, 1e-9], np.float32)  # hearts, all but certain
    peak = Peak((50.0, 50.0), 30.0, 20.0, 0.0, 0.9, p_rank, p_suit)
    row = np.zeros(len(RANKS) + 1 + len(p_suit), np.float32)  # the reader's logits: KH, surely
    row[RANKS.index("K")] = row[len(RANKS) + 1 + 2] = 30.0
    read = detector.readers.fused(peak, row, 0.0, shows_red_ink=lambda: False)
    assert read.card == card("KH") and read.heat < 1e-5  # no card at all
    assert read.index_heat == pytest.approx(0.9, rel=1e-3)  # but an index all the same
    assert detector.readers.fused(peak, row, 0.0, shows_red_ink=lambda: True).heat == pytest.approx(0.9, rel=1e-3)


def test_a_grey_frame_cannot_tell_the_jokers_apart_but_the_prior_can():
    # The project's two jokers, like most designs', differ only by colour: red "JK", black "JK".
    for code, other in (("BJ", "LJ"), ("LJ", "BJ")):
        table = on_felt(render_face(card(code)))
        assert named(table) == {code}
        assert named(without_colour(table)) == set(), "a grey joker named either way is a guess"
        only_this = {card(code)} | {card(c) for c in ("7S", "KH")}
        assert {str(r.card) for r in scan(without_colour(table), allowed=only_this) if r.card} == {code}
        assert card(other) not in {r.card for r in scan(without_colour(table), allowed={card(other), card(code)})}


def test_in_a_grey_frame_the_suit_is_the_readers_and_in_colour_both_networks_weigh():
    """A plain diamond in a grey photo: the detector, sure of a heart (it tells them by their ink,
    at a quarter of the reader's detail), outweighed the reader's diamond. Without colour the
    reader's suit stands alone; with colour the two are multiplied (the real grey photos of a 6D
    and an AD in tests/vision/photos are read so, by tests/vision/test_reader_real.py)."""
    from vision.index_reads import RANKS, Peak

    p_rank = np.full(len(RANKS), 1e-3, np.float32)
    p_rank[RANKS.index("A")] = 1.0
    p_suit = np.array([0.02, 0.04, 0.93, 0.01, 0.0, 0.0], np.float32)  # the detector: a heart
    peak = Peak((50.0, 50.0), 30.0, 20.0, 0.0, 0.9, p_rank, p_suit)
    row = np.zeros(len(RANKS) + 1 + len(p_suit), np.float32)
    row[RANKS.index("A")] = 10.0
    row[len(RANKS) + 1 :] = np.log([0.01, 0.89, 0.11, 0.01, 1e-4, 1e-4])  # the reader: a diamond, less sure
    grey_read = IndexDetector().readers.fused(peak, row, 0.0, colour=False)
    assert grey_read.card == card("AD")
    assert IndexDetector().readers.fused(peak, row, 0.0, colour=True).card == card("AH")
    assert IndexDetector(fuse_grey_suit=True).readers.fused(peak, row, 0.0, colour=False).card == card("AH")


def test_an_image_without_colour_keeps_its_shape_and_brightness_and_loses_its_colour():
    picture = np.zeros((48, 64, 3), np.uint8)
    picture[10:30, 10:30] = (40, 40, 220)  # a red heart's ink
    assert has_colour(picture)
    made_grey = without_colour(picture)
    assert made_grey.shape == picture.shape and not has_colour(made_grey)
    assert (made_grey[..., 0] == made_grey[..., 2]).all() and 0 < made_grey[20, 20, 0] < 220
