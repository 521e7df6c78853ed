"""The loss benchmark's sweep (``croupier bench dealer --loss``): it stops at the first rate that misses 99 %."""

from __future__ import annotations

import pytest

from benchmarks.dealer_loss import loss_limit


@pytest.mark.slow
def test_the_figure_is_the_last_rate_before_the_first_that_misses():
    # A clean line deals every time; a line that drops half its bytes never gets a handshake
    # through; the rate after it is never tried.
    figure = loss_limit("poley", deals=2, seed=5, jobs=2, rates=(0.0, 0.5, 0.01))
    assert [r.rate for r in figure.rates] == [0.0, 0.5]
    clean, hopeless = figure.rates
    assert (clean.deals, clean.complete) == (2, 2)
    assert hopeless.complete == 0 and any("no answer from the dealing machine" in why for why in hopeless.why_not)
    assert figure.highest_rate == 0.0
    assert figure.command == "croupier bench dealer --loss --game poley --deals 2 --seed 5 --jobs 2"
