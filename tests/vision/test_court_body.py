"""A court card's index unsure between its letter and a number (kde:standard's K against a 10,
at 0.6-0.9): both corners read the letter, and the body stands as its witness when it shows a
picture or one large blob (a pale picture's figure, as a king is seen at 720p), since neither is
a number's pips. A body that shows pips is no witness for a court card."""

from __future__ import annotations

import pytest

from engine.cards import card
from tests.vision.benchmark_scenes import recognised
from vision.reader import _body_fits


@pytest.mark.parametrize(("seed", "index"), [(1, 3), (11, 22)])
def test_a_king_unsure_against_a_10_is_read_by_its_picture(seed, index):
    # Was "rank unsure (KC or 10), body ace".
    found, _ = recognised("kde:standard", seed, (1280, 720), index)
    assert "KC" in {str(rec.card) for rec in found}, found


@pytest.mark.parametrize("seen", ["picture", "ace"])
def test_a_picture_or_one_large_blob_fits_a_court_card(seen):
    assert _body_fits(card("KC"), seen)


@pytest.mark.parametrize("seen", ["10", "2", ""])
def test_pips_or_nothing_do_not_fit_a_court_card(seen):
    assert not _body_fits(card("KC"), seen)


def test_a_number_card_fits_only_its_own_count():
    assert _body_fits(card("TC"), "10")
    assert not _body_fits(card("TC"), "ace")
    assert not _body_fits(card("TC"), "picture")
    assert _body_fits(card("AC"), "ace")
