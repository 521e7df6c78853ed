"""`croupier club serve` killed with SIGKILL while the tables publish, and started again, loses
nothing and doubles nothing: it acknowledges a message to the broker only once it is committed."""

from __future__ import annotations

import signal
import threading

import httpx
import psycopg

from benchmarks.club_servers import CLUB, free_port
from simulators.club_messages import play
from tests.club.mqtt import publish, wait_until
from tests.club.service import club_service


def stored_keys(dsn: str) -> list[tuple[str, int, int]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT table_name, match, seq FROM messages ORDER BY 1, 2, 3").fetchall()


def test_the_club_service_killed_and_started_again_loses_nothing(broker, database, tmp_path):
    matches = [play(CLUB, f"t{i}", game, seed=i, hands=2) for i, game in enumerate(["fifty-six", "bid-whist"], 1)]
    expected = sorted((m.table, m.match, msg["seq"]) for m in matches for msg in m.messages)
    port = free_port()
    with club_service(broker, database, tmp_path, port) as first:
        tables = [threading.Thread(target=publish, args=(broker, m.table, m.payloads())) for m in matches]
        for t in tables:
            t.start()
        wait_until(lambda: len(stored_keys(database)) >= 20, what="the first messages stored")
        first.send_signal(signal.SIGKILL)
        first.wait(30)
        for t in tables:  # the tables go on publishing to the broker while the club is down
            t.join()
    with club_service(broker, database, tmp_path, port):
        wait_until(lambda: len(stored_keys(database)) >= len(expected), what="every message stored")
        assert stored_keys(database) == expected
        answer = httpx.get(f"http://127.0.0.1:{port}/api/tables/t1/matches/1", timeout=30).json()
    assert answer["state"] == "ok" and answer["report"] == matches[0].report
    assert (tmp_path / "serve.log").read_text().count(f"croupier club {CLUB}: broker") == 2  # it started twice
