"""Twenty real tables (the controller's runtime, journal, outbox and publisher; the events of the
engine-only players, all five games) play at once through a real Mosquitto into `croupier club
serve` (its own process) and a real PostgreSQL, while parts fail during play: one table is cut off
from the broker for a while (what it sends is lost, then its connection dropped and refused, as
when its Wi-Fi goes) and then reconnects, the broker restarts mid-hand, and the club service is
killed with SIGKILL and started again. Afterwards every message each table queued is stored once,
in the table's order; each match's replay from PostgreSQL is the table's own journal and result;
and the page's standings are those of the tables' own results.

The default run plays one hand a table through one round of the faults; the campaign
(``-m club_campaign``) plays CLUB_CAMPAIGN_HANDS hands a table (default 4) through
CLUB_CAMPAIGN_CYCLES rounds of them (default 3)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import pytest

from benchmarks.club_servers import TABLES, Broker, free_port, stop
from benchmarks.club_tables import GAMES, Played, played
from club.standings import Placed, side_names, standings
from controller.club_link.outbox import queued_in
from controller.runtime import Runtime
from engine.log import referee_text
from engine.seat_names import SeatNames
from tests.club.mqtt import wait_until
from tests.club.proxy import Relay
from tests.club.service import club_service
from tests.club_link.club import WAIT_S, club_settings

CUT = "t7"  # the table cut off from the broker for a while
STEPS = 10  # each round of faults is spread over this many steps of play
# What happens after each step of a round (the others only play), with play between the two
# halves of every fault. Each strikes at the worst moment: the cut table loses what it sends for
# a step before its connection drops (so it has messages in flight, never acknowledged), and the
# club service is killed holding messages it has taken from the broker and not yet committed
# (the test holds its database's writes, as a slow disk would, until it has some).
SCRIPT = {1: ["silence"], 2: ["cut", "broker down"], 3: ["broker up"], 4: ["hold the club's writes"],
          5: ["kill the club"], 6: ["start the club"], 8: ["mend"]}  # fmt: skip


@dataclass
class Table:
    name: str
    runtime: Runtime
    match: Played
    seats: tuple[str, ...]
    number: int = 0  # the journal's match number
    played: int = 0  # events played so far

    @property
    def mid_hand(self) -> bool:
        return self.played not in self.match.ends

    def queued(self) -> int:
        return queued_in(self.runtime.journal.path)

    def sent_keys(self) -> list[tuple[int, int]]:
        """Every (match, seq) the table ever queued for the club, from its journal."""
        with sqlite3.connect(self.runtime.journal.path) as db:
            rows = db.execute("SELECT match_id, last FROM outbox_seq").fetchall()
        return sorted((match, seq) for match, last in rows for seq in range(1, last + 1))


class Club:
    """`croupier club serve` in its own process, that the campaign kills and starts again."""

    def __init__(self, broker: Broker, database: str, folder: Path) -> None:
        self.broker, self.database, self.folder, self.port = broker, database, folder, free_port()
        self.starts = 0
        self.start()

    def start(self) -> None:
        self._context = club_service(self.broker, self.database, self.folder, self.port)
        self.process = self._context.__enter__()
        self.starts += 1

    def kill(self) -> None:
        """SIGKILL, while it holds messages it has not committed; then its database goes on."""
        wait_until(self.writing, what="the club to be writing messages")
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)
        self._holding.close()  # its transaction rolled back: the lock is gone
        self._context.__exit__(None, None, None)

    def stop(self) -> None:
        self._context.__exit__(None, None, None)

    def hold_writes(self) -> None:
        """Hold the club's writes to its messages until :meth:`kill` (a lock on the table)."""
        self._holding = psycopg.connect(self.database)
        self._holding.execute("LOCK TABLE messages IN SHARE MODE")  # in a transaction, held until it ends

    def writing(self) -> bool:
        """Whether the club waits to write messages it has taken from the broker."""
        with psycopg.connect(self.database, autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND query LIKE 'INSERT INTO messages%'"
            ).fetchone()
        return bool(row and row[0])

    def get(self, path: str) -> object:
        answer = httpx.get(f"http://127.0.0.1:{self.port}{path}", timeout=60)
        answer.raise_for_status()
        return answer.json()


def open_tables(tables: list[Table], tmp: Path, broker: Broker, relay: Relay, hands: int) -> None:
    for i, name in enumerate(TABLES):
        game, players = GAMES[i % len(GAMES)]
        match = played(game, players, seed=300 + i, hands=hands)
        settings = club_settings(tmp, broker, name)
        if name == CUT:  # its way to the broker goes through the relay
            assert settings.club is not None
            settings = settings.model_copy(update={"club": settings.club.model_copy(update={"broker": relay.url})})
        runtime = Runtime.open(settings, "token")
        runtime.start()
        count = match.log["players"]
        seats = SeatNames.of(count, [f"{name}-p{s}" for s in range(count)]).names
        runtime.seat(seats, False).result(WAIT_S)  # names of their own: each side an entrant of its own
        table = Table(name, runtime, match, seats)
        log = match.log
        table.number = runtime.start_match(log["game"], log.get("players"), log.get("options") or {}, None).result(
            WAIT_S
        )
        tables.append(table)


def play_to(tables: list[Table], share: float) -> None:
    """Every table plays on, all at once, up to ``share`` of its match."""
    futures = []
    for table in tables:
        events = table.match.log["events"]
        upto = round(share * len(events))
        futures += [table.runtime.submit(e) for e in events[table.played : upto]]
        table.played = max(table.played, upto)
    for future in futures:
        result = future.result(WAIT_S)
        assert result.outcome.accepted, result.outcome.reason


def faults(tables: list[Table], broker: Broker, club: Club, relay: Relay) -> dict[str, Callable[[], None]]:
    cut = next(t for t in tables if t.name == CUT)
    publisher = cut.runtime.club.publisher  # type: ignore[union-attr]

    def silence() -> None:
        wait_until(lambda: publisher.connected, what=f"{CUT}'s publisher to reach the broker through the relay")
        relay.silence()

    def cut_off() -> None:
        relay.cut()
        wait_until(lambda: not publisher.connected, what=f"{CUT}'s publisher to lose the broker")

    def broker_down() -> None:
        assert any(t.mid_hand for t in tables)
        stop(broker.process)  # SIGTERM: Mosquitto keeps its sessions and queues on disk

    def kill() -> None:
        assert any(t.mid_hand for t in tables)
        club.kill()

    def mend() -> None:
        assert cut.queued() > 0 and not publisher.connected  # it played on, keeping what it could not send
        relay.mend()

    return {"silence": silence, "cut": cut_off, "broker down": broker_down, "broker up": broker.start,
            "hold the club's writes": club.hold_writes, "kill the club": kill, "start the club": club.start,
            "mend": mend}  # fmt: skip


def stored(database: str) -> list[tuple[str, int, int]]:
    """Each stored message's (table, match, seq), in the order of the tables' seq."""
    with psycopg.connect(database) as conn:
        return conn.execute("SELECT table_name, match, seq FROM messages ORDER BY 1, 2, 3").fetchall()


def stored_out_of_order(database: str) -> list[tuple[str, int, int]]:
    """Messages stored in an earlier transaction than a message the table queued before them."""
    with psycopg.connect(database) as conn:
        return conn.execute(
            "SELECT table_name, match, seq FROM ("
            " SELECT table_name, match, seq, received_at,"
            "  max(received_at) OVER (PARTITION BY table_name ORDER BY match, seq ROWS UNBOUNDED PRECEDING) AS latest"
            " FROM messages) m WHERE received_at < latest"
        ).fetchall()


def campaign(broker: Broker, database: str, tmp: Path, hands: int, cycles: int) -> None:
    relay = Relay(broker.port)
    club = Club(broker, database, tmp)
    tables: list[Table] = []
    try:
        open_tables(tables, tmp, broker, relay, hands)
        actions = faults(tables, broker, club, relay)
        total = STEPS * cycles
        for step in range(total):
            play_to(tables, (step + 1) / total)
            for action in SCRIPT.get(step % STEPS, []):
                actions[action]()
        for table in tables:
            wait_until(lambda table=table: table.queued() == 0, what=f"{table.name}'s outbox to empty")
        expected = sorted((t.name, match, seq) for t in tables for match, seq in t.sent_keys())
        wait_until(lambda: len(stored(database)) >= len(expected), what="every message in PostgreSQL")
        check_the_record(club, tables, database, expected)
        assert relay.connections >= 1 + cycles  # the cut table connected again after each cut
        assert club.starts == 1 + cycles
    finally:
        for table in tables:
            table.runtime.stop()
            table.runtime.journal.close()
        club.stop()
        relay.close()


def check_the_record(club: Club, tables: list[Table], database: str, expected: list[tuple[str, int, int]]) -> None:
    assert stored(database) == expected  # every message once: none lost, none doubled
    assert stored_out_of_order(database) == []  # and each table's stored in its order
    assert club.get("/api/rejected") == []
    own = []
    for table in tables:
        log = table.runtime.export(table.number).result(WAIT_S)
        assert log["events"] == table.match.log["events"]  # the table's journal holds what was played
        report = referee_text(json.dumps(log)).report()
        record = club.get(f"/api/tables/{table.name}/matches/{table.number}")
        assert record["state"] == "ok", (table.name, record)  # type: ignore[index]
        assert record["report"] == report, table.name  # type: ignore[index]
        assert club.get(f"/api/tables/{table.name}/matches/{table.number}/log")["events"] == log["events"]  # type: ignore[index]
        sides = side_names(list(table.seats), len(report["match"]["score"]))
        own.append(Placed(table.name, table.number, log["game"], sides, report["match"]))
    assert club.get("/api/standings") == [line.to_json() for line in standings(own)]


def test_twenty_tables_play_on_through_a_cut_table_a_broker_restart_and_a_killed_club(broker, database, tmp_path):
    campaign(broker, database, tmp_path, hands=1, cycles=1)


@pytest.mark.club_campaign
def test_the_club_campaign(broker, database, tmp_path):
    hands = int(os.environ.get("CLUB_CAMPAIGN_HANDS", "4"))
    cycles = int(os.environ.get("CLUB_CAMPAIGN_CYCLES", "3"))
    campaign(broker, database, tmp_path, hands=hands, cycles=cycles)
