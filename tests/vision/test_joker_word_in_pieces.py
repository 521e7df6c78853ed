"""A joker's word turned on its side and run together (anglo's JOKER, a script face), blurred at
720p into two or three pieces one under the other, "JOKE" and "R" or "JO" and "KER" (vision/
reader.py, ``_word_in_pieces``): no piece is the word's size, and none is a letter of its own.
Each piece letter-wide and touching the next (or a pixel or two from it), together the word's
size and written-like, they are the word. A dashed frame's dashes are thinner than a letter."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.benchmark_scenes import missed, recognised
from vision.reader import _word_column

ANGLO_JOKERS_AT_720P = [
    (15, 28, "LJ"),  # alone on the wood, in full view: neither corner's word was read
    (3, 22, "LJ"),  # atop a pile
    (16, 21, "LJ"),
    (13, 26, "LJ"),  # under others
]


@pytest.mark.parametrize(("seed", "index", "card"), ANGLO_JOKERS_AT_720P)
def test_anglos_joker_at_720p_is_read_from_its_word_in_pieces(seed, index, card):
    assert missed(*recognised("aisleriot:anglo", seed, (1280, 720), index), [card]) == []


def test_a_dashed_frame_beside_a_cut_off_word_is_no_word():
    # Seed 7, scene 3: an outline that cut the big joker's red word off at the corner's edge
    # showed the dashes of anglo's frame one under the other, taken for a black word: a little
    # joker that disputed the big joker's place.
    assert missed(*recognised("aisleriot:anglo", 7, (1280, 720), 3), ["BJ"]) == []


def _corner(pieces: list[tuple[int, int, int, int]], dashes: list[tuple[int, int, int, int]] = ()) -> np.ndarray:
    """A corner patch (157 x 72, as the reader cuts it) on white paper with black ink: for each
    piece (x, y, width, height), strokes down and across it, written-like, filling its box; for
    each dash, a bar."""
    patch = np.full((157, 72, 3), 235, np.uint8)
    for x, y, w, h in pieces:
        cv2.line(patch, (x + 1, y + 1), (x + 1, y + h - 2), (20, 20, 20), 2)  # a stroke down the piece,
        for bar in range(y + 3, y + h - 3, 8):  # and letters' strokes across it
            cv2.line(patch, (x + 1, bar), (x + w - 2, bar + 2), (20, 20, 20), 2)
    for x, y, w, h in dashes:
        cv2.rectangle(patch, (x, y), (x + w - 1, y + h - 1), (20, 20, 20), -1)
    return patch


def test_two_letter_wide_pieces_one_under_the_other_are_a_black_word():
    assert _word_column(_corner([(7, 13, 14, 36), (8, 50, 12, 22)])) is False


def test_pieces_far_apart_or_alone_are_no_word():
    assert _word_column(_corner([(7, 13, 14, 36), (8, 56, 12, 22)])) is None  # 6 px apart
    assert _word_column(_corner([(7, 13, 14, 20)])) is None  # one piece, short of a word


def test_a_frames_dashes_under_a_piece_are_no_word():
    # As seed 7's (above): one piece 11 wide, then two dashes 5 wide, each touching the next.
    assert _word_column(_corner([(16, 21, 11, 25)], dashes=[(18, 47, 5, 24), (20, 72, 5, 20)])) is None
    # Letter-wide, they would be a word.
    assert _word_column(_corner([(16, 21, 11, 25), (18, 47, 10, 24), (20, 72, 10, 20)])) is False
