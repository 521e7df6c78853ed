"""One referee: each match rebuilt from PostgreSQL and replayed with the engine gives the table's
own log and scores; a table that publishes a result the replay does not give is flagged; the
exports (CSV, and a table log that `croupier referee` replays to the same scores)."""

from __future__ import annotations

import csv
import io
import json
import random
import subprocess
import sys
import threading
from pathlib import Path

from fastapi.testclient import TestClient

from benchmarks.club_servers import CLUB
from club.standings import Placed, side_names, standings
from simulators.club_messages import play
from tests.club.mqtt import publish, wait_until

ROOT = Path(__file__).resolve().parents[2]
GAMES = ["poley", "shelem", "fifty-six", "bid-whist", "nap"]


def wait_stored(client: TestClient, count: int) -> None:
    wait_until(lambda: client.get("/api/health").json()["messages"] >= count, what=f"{count} messages stored")


def test_twenty_tables_of_all_five_games_at_once_each_match_replayed_and_the_standings(broker, club):
    matches = [
        play(CLUB, f"t{i}", GAMES[i % 5], seed=20 + i, hands=2, seats=[f"p{i}-{s}" for s in range(6)])
        for i in range(1, 21)
    ]
    rng = random.Random(7)
    tables = []
    for m in matches:  # each table's messages, some twice, in the order a reconnecting table might send them
        payloads = m.payloads()
        sent = payloads + rng.sample(payloads, 10)
        rng.shuffle(sent)
        tables.append(threading.Thread(target=publish, args=(broker, m.table, sent)))
    for t in tables:
        t.start()
    for t in tables:
        t.join()
    wait_stored(club, sum(len(m.messages) for m in matches))
    for m in matches:
        record = club.get(f"/api/tables/{m.table}/matches/1").json()
        assert record["state"] == "ok", (m.game, record)
        assert record["report"] == m.report, m.game  # every hand, violation and the match, as the table's referee
        assert club.get(f"/api/tables/{m.table}/matches/1/log").json() == m.log, m.game
    own = [  # the standings the tables' own results give
        Placed(
            m.table, 1, m.game, side_names(m.messages[0]["seats"], len(m.report["match"]["score"])), m.report["match"]
        )
        for m in matches
    ]
    assert club.get("/api/standings").json() == [line.to_json() for line in standings(own)]
    assert club.get("/api/health").json()["messages"] == sum(len(m.messages) for m in matches)


def test_a_table_whose_result_differs_from_the_replay_is_flagged(broker, club):
    honest, dishonest = play(CLUB, "t1", "shelem", seed=3, hands=2), play(CLUB, "t2", "shelem", seed=4, hands=2)
    result = next(m for m in dishonest.messages if m["kind"] == "result" and m["hand"] == 2)
    result["score"] = {"score": [s + 5 for s in result["score"]["score"]]}  # five points the replay does not give
    for m in (honest, dishonest):
        publish(broker, m.table, m.payloads())
    wait_stored(club, len(honest.messages) + len(dishonest.messages))
    tables = {t["table"]: t for t in club.get("/api/tables").json()}
    assert tables["t1"]["flags"] == [] and tables["t1"]["refereed"]["state"] == "ok"
    assert tables["t2"]["refereed"]["state"] == "flagged"
    assert len(tables["t2"]["flags"]) == 1 and tables["t2"]["flags"][0].startswith(
        "match 1: hand 2: the table published"
    )
    assert club.get("/api/tables/t2/matches/1").json()["report"] == dishonest.report  # the replay's, not the table's


def test_a_hand_in_play_is_shown_by_its_public_events_and_not_refereed_yet(broker, club):
    m = play(CLUB, "t3", "bid-whist", seed=5, hands=2)
    cut = next(i for i, msg in enumerate(m.messages) if msg["kind"] == "event" and msg["hand"] == 2) + 5
    publish(broker, m.table, m.payloads()[:cut])  # hand 2 is being played: its deal is still hidden
    wait_stored(club, cut)
    record = club.get("/api/tables/t3/matches/1").json()
    assert record["hands"] == 1 and record["state"] == "ok"
    assert len(record["in_play"]) == 5 and record["in_play"][0]["type"] == "deal"
    assert "hands" not in record["in_play"][0]


def test_the_exports_csv_and_a_table_log_croupier_referee_replays_to_the_same_scores(broker, club, tmp_path):
    m = play(CLUB, "t5", "fifty-six", seed=6, hands=2)
    publish(broker, m.table, m.payloads())
    wait_stored(club, len(m.messages))
    log = tmp_path / "t5.json"
    log.write_bytes(club.get("/api/tables/t5/matches/1/log").content)
    replayed = subprocess.run(
        [sys.executable, "-m", "controller", "referee", str(log), "--json"], cwd=ROOT, capture_output=True, text=True
    )
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == m.report
    rows = list(csv.DictReader(io.StringIO(club.get("/api/results.csv").text)))
    assert [(r["table"], r["side"], r["entrant"], r["score"]) for r in rows] == [
        ("t5", str(side), name, str(m.report["match"]["score"][side]))
        for side, name in enumerate(["anna & carl & emil", "ben & dora & fay"])
    ]
    assert {r["game"] for r in rows} == {"fifty-six"} and {r["hands"] for r in rows} == {"2"}
