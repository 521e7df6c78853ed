"""The project's own faces: one distinct, point-symmetric face per card, jokers by colour."""

from __future__ import annotations

import numpy as np

from engine.cards import CARDS, card
from simulators.card_faces import FACE_H, FACE_W, card_mask, render_back, render_face


def test_every_card_has_its_own_face_at_the_canonical_size():
    faces = [render_face(c) for c in CARDS]
    assert all(f.shape == (FACE_H, FACE_W, 3) and f.dtype == np.uint8 for f in faces)
    digests = {f.tobytes() for f in faces}
    assert len(digests) == len(CARDS)


def test_faces_are_point_symmetric_in_their_indices():
    # The bottom-right index is the top-left one turned 180 degrees: either corner can be read.
    face = render_face(card("QH")).astype(int)
    top_left = face[:90, :45]
    bottom_right = face[::-1, ::-1][:90, :45]
    assert np.abs(top_left - bottom_right).mean() < 2


def test_red_suits_and_the_big_joker_are_red_the_others_black():
    def redness(code: str) -> float:
        index = render_face(card(code))[:90, :45].astype(int)
        ink = index.sum(axis=2) < 500
        return float((index[..., 2] - index[..., 0])[ink].mean())

    assert all(redness(c) > 100 for c in ("AH", "7D", "BJ"))
    assert all(redness(c) < 20 for c in ("AS", "7C", "LJ"))


def test_number_cards_show_their_pips():
    import cv2

    for code, pips in (("2S", 2), ("6C", 6), ("9D", 9), ("TH", 10)):
        body = render_face(card(code))[40:310, 50:200]
        ink = (cv2.cvtColor(body, cv2.COLOR_BGR2GRAY) < 128).astype(np.uint8)
        _, _, stats, _ = cv2.connectedComponentsWithStats(ink)
        assert sum(1 for s in stats[1:] if s[cv2.CC_STAT_AREA] > 300) == pips, code


def test_the_back_and_the_rounded_outline():
    back = render_back()
    assert back.shape == (FACE_H, FACE_W, 3)
    mask = card_mask()
    assert mask[0, 0] == 0 and mask[FACE_H // 2, FACE_W // 2] == 255
