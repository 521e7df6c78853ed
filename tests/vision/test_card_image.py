"""A card cut out of a frame (vision.card_image): the outline its indices give, refined to the
card's own edges, so that two captures of one card warp alike."""

from __future__ import annotations

import numpy as np
import pytest

from engine.cards import card
from simulators.camera import PlacedCard, Scene, render
from simulators.scenes import tilted_view
from vision.card_image import refined_outline


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
