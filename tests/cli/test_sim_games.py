"""`croupier sim` plays Shelem and Bid Whist matches to their end; the log replays the same."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_croupier


@pytest.mark.parametrize("game", ["shelem", "bid-whist"])
def test_sim_plays_to_the_end_and_the_log_replays(tmp_path, game):
    log = tmp_path / "match.json"
    done = run_croupier(
        "sim", "--engine-only", "--game", game, "--headless", "--json", "--seed", "7", "--log", str(log)
    )
    assert done.returncode == 0, done.stderr
    live = json.loads(done.stdout)
    assert live["match"]["over"] and live["match"]["winner"] in (0, 1)
    replayed = run_croupier("referee", "--json", str(log))
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == live


@pytest.mark.parametrize("game", ["shelem", "bid-whist"])
def test_sim_hands(game):
    done = run_croupier("sim", "--engine-only", "--game", game, "--headless", "--json", "--hands", "3", "--seed", "1")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["hands"]) <= 3
