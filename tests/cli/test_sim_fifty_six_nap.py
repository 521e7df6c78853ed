"""`croupier sim` plays Fifty-Six and Nap; its log replays to the same result."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_croupier


@pytest.mark.parametrize(
    ("game", "extra"), [("fifty-six", []), ("nap", []), ("nap", ["--players", "6"]), ("nap", ["--players", "2"])]
)
def test_sim_log_replays_to_the_same_result(tmp_path, game, extra):
    log = tmp_path / "log.json"
    done = run_croupier(
        "sim",
        "--engine-only",
        "--game",
        game,
        *extra,
        "--headless",
        "--hands",
        "6",
        "--seed",
        "7",
        "--json",
        "--log",
        str(log),
    )
    assert done.returncode == 0, done.stderr
    live = json.loads(done.stdout)
    assert len(live["hands"]) == 6 or live["match"]["over"]
    replayed = run_croupier("referee", "--json", str(log))
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == live


def test_sim_refuses_a_player_count_the_game_does_not_have():
    done = run_croupier("sim", "--engine-only", "--game", "fifty-six", "--players", "4", "--headless", "--hands", "1")
    assert done.returncode == 2 and "6" in done.stderr
