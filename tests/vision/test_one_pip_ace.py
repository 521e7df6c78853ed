"""An ace's one pip may be no larger than any other card's (kde:standard's AD): the body then
reads "1", not "ace". One pip is an ace's body all the same, as no other card shows one
(vision/reader.py, ``_shows_rank``): it tells an ace from a 4 its index was unsure against."""

from __future__ import annotations

import pytest

from engine.cards import card
from tests.vision.benchmark_scenes import missed, recognised
from vision.reader import _body_fits, _shows_rank


@pytest.mark.parametrize("seen", ["ace", "1"])
def test_one_pip_large_or_not_fits_an_ace(seen):
    assert _body_fits(card("AD"), seen)
    assert _shows_rank(seen, "A")


@pytest.mark.parametrize("seen", ["2", "4", "picture", ""])
def test_more_pips_a_picture_or_nothing_do_not_fit_an_ace(seen):
    assert not _body_fits(card("AD"), seen)


def test_one_pip_is_no_other_rank():
    assert not any(_shows_rank("1", label) for label in ("2", "4", "10", "K"))
    assert not _body_fits(card("4D"), "1")


def test_kde_standards_ace_of_diamonds_unsure_against_a_4_is_read():
    # Seed 19, 720p, scene 5: one index read an A at 0.68 against a 4, the other surely; the body
    # showed one pip, "1", and the read was refused: "rank unsure (AD or 4), body 1".
    assert missed(*recognised("kde:standard", 19, (1280, 720), 5), ["AD"]) == []
