"""The two sides together: real tables (the controller's runtime, its journal, outbox and
publisher, no devices) play matches of all five games at once through a real Mosquitto; the club
service's intake keeps them in a real PostgreSQL, and each match's replay from there is the
table's own log and result, and its status shows on the club's page."""

from __future__ import annotations

import json

import pytest

from engine.log import referee_text
from tests.club.mqtt import wait_until
from tests.club_link.club import club_settings, engine_log, play, runtimes, start_match

GAMES = [("poley", None), ("shelem", None), ("fifty-six", None), ("bid-whist", None), ("nap", 5)]


@pytest.fixture
def tables(tmp_path, broker):
    with runtimes() as open_runtime:
        yield lambda name: open_runtime(club_settings(tmp_path, broker, name))


def test_real_tables_of_all_five_games_reach_the_club_and_replay_to_their_own_logs(club, tables):
    logs = {f"t{i}": engine_log(game, 1, seed=40 + i, players=players) for i, (game, players) in enumerate(GAMES, 1)}
    for name, log in logs.items():  # every table plays its match, all publishing at once
        runtime = tables(name)
        start_match(runtime, log)
        play(runtime, log["events"])
    for name, log in logs.items():
        wait_until(
            lambda name=name: (
                club.get(f"/api/tables/{name}/matches").json()
                and club.get(f"/api/tables/{name}/matches").json()[-1]["hands"] == 1
            ),
            what=f"{name}'s hand refereed by the club",
        )
        record = club.get(f"/api/tables/{name}/matches").json()[-1]
        match = club.get(f"/api/tables/{name}/matches/{record['match']}").json()
        assert match["state"] == "ok", match
        assert match["report"] == referee_text(json.dumps(log)).report()
        exported = club.get(f"/api/tables/{name}/matches/{record['match']}/log").json()
        assert exported["events"] == log["events"]
    wait_until(
        lambda: (
            all(t["online"] and t["game"] for t in club.get("/api/tables").json())
            and len(club.get("/api/tables").json()) == len(logs)
        ),
        what="every table's status",
    )
    assert club.get("/api/rejected").json() == []
