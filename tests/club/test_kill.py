"""`croupier club serve` killed with SIGKILL while the tables publish, and started again, loses
nothing and doubles nothing: it acknowledges a message to the broker only once it is committed."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg

from benchmarks.club_servers import CLUB, CLUB_PASSWORD, CLUB_USER, Broker, free_port
from simulators.club_messages import play
from tests.club.mqtt import publish, wait_until

ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def club_service(broker: Broker, database: str, tmp: Path, port: int) -> Iterator[subprocess.Popen]:
    """`croupier club serve` in its own process, answering and subscribed."""
    (tmp / "password").write_text(CLUB_PASSWORD + "\n")
    env = {**os.environ, "CROUPIER_CLUB_PASSWORD_FILE": str(tmp / "password")}
    command = [sys.executable, "-m", "controller", "club", "serve", "--club", CLUB, "--broker", broker.url]
    command += ["--username", CLUB_USER, "--database", database, "--port", str(port)]
    command += ["--token-file", str(tmp / "token")]
    log = (tmp / "serve.log").open("ab")
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: _subscribed(process, port), what="the club service to answer, subscribed")
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(30)
        log.close()


def _subscribed(process: subprocess.Popen, port: int) -> bool:
    assert process.poll() is None, f"croupier club serve exited with {process.returncode}"
    try:
        return bool(httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=5).json()["broker"])
    except httpx.HTTPError:
        return False


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
