"""Finding and trusting an index beside a court card's picture: aisleriot:anglo's hollow Q sits
against the picture's dashed frame, whose dashes lie just under the rank, where the suit is
looked for; and a hollow Q reads partly as the O of a joker's word, which is no rank. A Q whose
tail or bowl touches the frame's corner is one blob with the frame: the frame's lines, dashed,
are taken out of the ink (vision.reader._frame_lines)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from benchmarks.vision_scenes import Score, scenes
from vision.decks import deck_available, deck_faces
from vision.reader import GenericReader
from vision.scan import recognise


def test_a_q_beside_the_pictures_dashed_frame_is_read():
    if not deck_available("aisleriot:anglo"):
        pytest.skip("aisleriot:anglo is not installed")
    label, frame, truth = list(scenes(6, (1280, 720), seed=11, deck=dict(deck_faces("aisleriot:anglo"))))[5]
    found = recognise(frame, GenericReader())
    score = Score()
    score.add(found, truth, label)
    assert score.wrong == []
    assert "QS" in {str(rec.card) for rec in found}, found


@pytest.mark.parametrize(
    ("seed", "index", "card"),
    [
        (11, 0, "QD"),  # a single card: its near Q and the frame's corner one blob, no index found
        (11, 17, "QD"),  # a single card: both Qs against the frame (read O and Q, neither close)
        (11, 12, "QC"),  # under another card: its one index in view ran into the frame's corner
    ],
)
def test_a_q_touching_the_pictures_dashed_frame_is_read(seed, index, card):
    from tests.vision.test_body_chooses import assert_reads

    assert_reads(seed, index, card)


def _corner(ink: np.ndarray) -> tuple:
    from vision.reader import _components

    return np.array([230.0, 230.0, 230.0]), (ink * 200).astype(np.uint8), ink, _components(ink)


def _dashed_frame(ink: np.ndarray, x: int, y: int) -> None:
    """A picture's dashed frame whose top-left corner is at (x, y): dashes of 6, gaps of 3."""
    h, w = ink.shape
    ink[y : y + 3, x : x + 3] = 1
    for x0 in range(x + 3, w, 9):
        ink[y : y + 3, x0 + 3 : x0 + 9] = 1
    for y0 in range(y + 3, h, 9):
        ink[y0 + 3 : y0 + 9, x : x + 3] = 1


def test_a_glyph_touching_a_dashed_frame_is_cut_from_it():
    """A ring-shaped rank (a hollow Q's bowl) whose side touches the corner of a dashed frame:
    one blob with the frame, no index; without the frame's lines, the ring over its suit."""
    from vision.reader import _index_in, _index_off_the_frame

    ink = np.zeros((157, 72), np.uint8)
    cv2.ellipse(ink, (19, 27), (8, 10), 0, 0, 360, 1, 3)  # x 9..29, y 15..39
    cv2.fillPoly(ink, [np.array([[18, 48], [26, 56], [18, 64], [10, 56]], np.int32)], 1)
    _dashed_frame(ink, 30, 27)  # its corner beside the ring's right side
    corner = _corner(ink)
    plain = _index_in(corner[3], corner[1], corner[0])
    assert plain is None or plain[0][2] > 31  # the rank's box runs into the frame
    found = _index_off_the_frame(corner)
    assert found is not None
    rank_box, suit_box = found[:2]
    assert rank_box[0] == 9 and rank_box[2] == 30 and 14 <= rank_box[1] <= 15, rank_box
    assert suit_box[0] == 10 and suit_box[2] == 27, suit_box


def test_a_stroke_beside_a_neighbours_mass_is_no_line():
    """A glyph's thin diagonal stroke (a Q's tail) touching a neighbour card's dark mass: the
    closing would join them into a long horizontal run, but a mass makes no line."""
    from vision.reader import _frame_lines

    ink = np.zeros((157, 72), np.uint8)
    ink[25:46, 30:] = 1  # the mass, to the patch's edge
    cv2.line(ink, (6, 30), (30, 37), 1, 2)  # the stroke, touching it
    lines = _frame_lines(ink)
    assert lines is None or not lines[:, :30].any()


def test_a_rank_beside_a_pictures_corner_is_also_read_alone():
    """Anglo's K beside the corner of its picture's frame (the KC in the far seat at 720p): the
    frame's corner piece, as tall as a rank and just right of it, was taken for the rank's
    neighbour on its line (a 10's 0 beside its 1), and the index read nothing. The rank nearest
    the corner is looked at alone too."""
    from vision.reader import _index_glyphs, _index_in

    ink = np.zeros((157, 72), np.uint8)
    ink[13:40, 8:12] = 1  # a K's stem ...
    cv2.line(ink, (11, 27), (26, 13), 1, 3)  # ... and its arms
    cv2.line(ink, (11, 27), (26, 39), 1, 3)
    ink[24:50, 30:33] = 1  # the frame's corner piece beside it, as tall as a rank
    ink[24:27, 30:42] = 1
    cv2.circle(ink, (17, 54), 7, 1, -1)  # the suit below
    corner = _corner(ink)
    plain = _index_in(corner[3], corner[1], corner[0])
    # The rank's box runs into the frame's corner, down past the suit's top: no suit below it.
    assert plain is None or plain[0][2] > 30
    alone = _index_in(corner[3], corner[1], corner[0], alone=True)
    assert alone is not None and alone[0][2] <= 29 and alone[1][1] >= 46, alone[:2]
    boxes = [found[:2] for found in _index_glyphs(np.zeros((157, 72, 3), np.uint8), corner)]
    assert alone[:2] in boxes  # one of the ways the corner is read
    ink[:, 30:] = 0  # no frame beside the K: the rank alone is the plain index, not looked at twice
    corner = _corner(ink)
    assert _index_in(corner[3], corner[1], corner[0]) is not None
    assert _index_in(corner[3], corner[1], corner[0], alone=True) is None
