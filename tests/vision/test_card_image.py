"""A card cut out of a frame (vision.card_image): the outline its indices give, refined to the
card's own edges, so that two captures of one card warp alike."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.cards import card
from simulators.camera import PlacedCard, Scene, render
from simulators.scenes import tilted_view
from vision.card_image import alone_by_its_edges, refined_outline, sole_card, upright_face
from vision.cards import INDEX_AT, Recognition


def photographed(table: str, turn: float, seed: int):
    view = tilted_view(np.random.default_rng(seed), (640, 360), table, None, extent_mm=(200.0, 140.0))
    frame, truth = render(view, Scene(cards=(PlacedCard(card("8H"), (100, 70), turn),), noise_sigma=2))
    return frame, truth[0].corners_px.astype(np.float32)


def off_by(corners: np.ndarray, degrees: float, shift: tuple[float, float]) -> np.ndarray:
    """An outline as the indices might give it: turned a few degrees about its centre, moved."""
    a = np.radians(degrees)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    centre = corners.mean(axis=0)
    return (corners - centre) @ rot.T + centre + np.array(shift, np.float32)


@pytest.mark.parametrize(("table", "turn", "seed"), [("wood", 8.0, 1), ("felt", -11.0, 2), ("pale", 3.0, 3)])
def test_an_outline_a_few_degrees_and_pixels_off_comes_to_the_cards_edges(table, turn, seed):
    frame, truth = photographed(table, turn, seed)
    rough = off_by(truth, 7.0, (4.0, -3.0))
    refined = refined_outline(frame, rough)

    def error(corners: np.ndarray) -> float:  # the farthest corner from the true one, in pixels
        return float(np.linalg.norm(corners - truth, axis=1).max())

    assert error(refined) < 3.0 < error(rough), (error(refined), error(rough))


def test_an_outline_with_no_card_under_it_stands():
    frame = np.full((360, 640, 3), 90, np.uint8)
    rough = np.array([[280, 120], [360, 120], [360, 232], [280, 232]], np.float32)
    assert np.array_equal(refined_outline(frame, rough), rough)


def test_the_same_frame_gives_the_same_outline():
    # GrabCut's colour models start from k-means on OpenCV's random generator: seeded, two
    # captures of one still frame warp alike.
    frame, truth = photographed("felt", 6.0, 4)
    rough = off_by(truth, 7.0, (4.0, -3.0))
    assert np.array_equal(refined_outline(frame, rough), refined_outline(frame, rough))


def lone_index_on(frame: np.ndarray, truth: np.ndarray, turn_error: float, size: float) -> Recognition:
    """The card as :func:`vision.cards.join` makes it from its top-left index alone: the outline
    drawn from the index's up direction (``turn_error`` degrees off) and size (``size`` of the
    card's own height)."""
    right, down = truth[1] - truth[0], truth[3] - truth[0]
    index = truth[0] + INDEX_AT[0] * right + INDEX_AT[1] * down
    guess = off_by(truth, turn_error, (0.0, 0.0))
    guess = guess[0] + (guess - guess[0]) * size
    guess += index - (guess[0] + INDEX_AT[0] * (guess[1] - guess[0]) + INDEX_AT[1] * (guess[3] - guess[0]))
    centre = guess.mean(axis=0)
    return Recognition(None, 0.3, guess, (float(centre[0]), float(centre[1])), ((float(index[0]), float(index[1])),))


@pytest.mark.parametrize(("table", "turn", "error", "size"), [("wood", 8.0, 20.0, 0.8), ("felt", -11.0, -25.0, 1.2)])
def test_a_card_alone_with_one_index_found_is_outlined_by_its_own_edges(table, turn, error, size):
    frame, truth = photographed(table, turn, 5)
    lone = lone_index_on(frame, truth, error, size)
    outlined = alone_by_its_edges(frame, lone)
    assert outlined is not None
    assert float(np.linalg.norm(outlined.corners - truth, axis=1).max()) < 4.0, outlined.corners
    assert sole_card(frame, [lone]) is not None and sole_card(frame, [lone, lone]) is None


def test_a_card_with_something_over_a_corner_or_no_index_in_a_corner_is_not_outlined_by_its_edges():
    frame, truth = photographed("wood", 8.0, 5)
    lone = lone_index_on(frame, truth, 10.0, 1.0)
    covered = frame.copy()
    cv2.circle(covered, tuple(int(v) for v in truth[2]), 22, (60, 120, 200), -1)  # a fingertip on the far corner
    assert alone_by_its_edges(covered, lone) is None
    middle = (truth[0] + truth[1]) / 2 + 0.3 * (truth[3] - truth[0])  # a "index" in the card's middle
    inside = Recognition(None, 0.3, lone.corners + (middle - lone.index_centres[0]), lone.center, (tuple(middle),))
    assert alone_by_its_edges(frame, inside) is None


def test_a_card_s_face_stands_the_way_up_it_was_photographed_whichever_index_the_outline_began_at():
    frame, truth = photographed("wood", 8.0, 5)
    centre = truth.mean(axis=0)
    as_read = Recognition(None, 0.9, truth, (float(centre[0]), float(centre[1])))
    turned = Recognition(None, 0.9, np.roll(truth, 2, axis=0), as_read.center)
    assert np.array_equal(upright_face(frame, as_read), upright_face(frame, turned))
