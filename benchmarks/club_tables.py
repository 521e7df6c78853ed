"""The club end to end, from real tables: ``croupier bench club``.

N tables, each the controller's own runtime (``TableController``, its SQLite journal with the
outbox, and its publisher thread, as ``croupier serve`` runs them; no devices: the events of
matches the engine-only players played, all five games), publish through a real Mosquitto to
``croupier club serve`` in its own process, which keeps everything in a real PostgreSQL and
answers the club's page. The servers start in a temporary folder, as the tests start them
(``benchmarks/club_servers.py``); the tables run in this process. Two measurements:

- **into PostgreSQL**: every table plays ``hands`` hands while its publisher is not running (a
  club whose network went down), so its journal's outbox holds them; then every publisher starts
  at once, and the events (and all messages) a second are counted from that moment to the last
  row committed in PostgreSQL: the whole path from the tables' journals to the club's record;
- **at live pace** (``benchmarks/club_page.py``): every table plays one event every ``pace_s``
  seconds while a page watches the club's live updates (a WebSocket client on ``/api/live``);
  each event's delay from its journal time to the first update naming it, and to its row in
  PostgreSQL (the transaction that stored it).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
import psycopg

from benchmarks import club_servers as servers
from benchmarks.club_page import Stored, delays_ms, live
from controller.club_link.outbox import queued_in
from controller.runtime import Runtime
from controller.settings import Settings
from engine.games import get_game
from engine.log import dumps, events_of_hand
from simulators.table import SimulatedTable

GAMES: list[tuple[str, int | None]] = [("poley", None), ("shelem", None), ("fifty-six", None), ("bid-whist", None),
                                       ("nap", 5)]  # fmt: skip
WAIT_S = 600.0  # the longest any stage may take before the run gives up, saying which
Progress = Callable[[str], None]


class ClubBenchError(RuntimeError):
    """The measurement cannot run here (a server missing) or a stage did not finish; says which."""


@dataclass(frozen=True)
class ClubFigures:
    tables: int
    hands: int  # per table, in the run into PostgreSQL
    events: int  # the tables' events in that run
    messages: int  # every message they made (a match's, each event's, each hand's reveal and result)
    journal_events_per_s: float  # how fast the tables journaled them (all of them in this one process)
    drain_s: float  # from every publisher starting to the last row committed
    events_per_s: float
    messages_per_s: float
    pace_s: float
    live_s: float
    live_events: int
    page_p50_ms: float  # journal time -> a page's live update names the event
    page_p95_ms: float
    page_max_ms: float
    row_p50_ms: float  # journal time -> its row committed in PostgreSQL
    row_p95_ms: float
    updates_per_s: float  # the live updates the page received
    lost: int  # events journaled that no live update named (must be 0)
    load_average: float  # the machine's 1-minute load as the run ended
    cores: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def command(self) -> str:
        return (f"croupier bench club --tables {self.tables} --hands {self.hands} --live-s {self.live_s:g} "
                f"--pace-s {self.pace_s:g}")  # fmt: skip


def missing() -> str | None:
    """What this machine lacks to run the measurement, in words; None if nothing."""
    if servers.mosquitto_bin() is None or shutil.which("mosquitto_passwd") is None:
        return "Mosquitto is not installed (apt-get install mosquitto)"
    if servers.postgres_bin() is None:
        return "PostgreSQL's server is not installed (apt-get install postgresql)"
    return None


# --- the tables ----------------------------------------------------------------------------------


@dataclass
class Played:
    """A match the engine-only players played: its table log, and where each hand's events end."""

    log: dict[str, Any]
    ends: list[int]  # ends[k]: the events of the first k hands (ends[0] = 0)


def played(game: str, players: int | None, seed: int, hands: int) -> Played:
    sim = SimulatedTable(get_game(game), players=players, seed=seed)
    sim.play(hands)
    ends = [0]
    for hand in sim.match.hands:
        ends.append(ends[-1] + len(list(events_of_hand(hand))))
    return Played(json.loads(dumps(sim.log())), ends)


def long_enough(game: tuple[str, int | None], seed: int, events: int) -> Played:
    """A match of at least ``events`` events if it lasts that long (more hands until it has them)."""
    hands = 1
    while True:
        match = played(*game, seed=seed, hands=hands)
        if len(match.log["events"]) >= events or len(match.ends) <= hands:  # enough, or the match ended
            return match
        hands += 1


class Table:
    """One table: the controller's runtime with its journal, outbox and publisher."""

    def __init__(self, folder: Path, broker: servers.Broker, name: str) -> None:
        club = {"broker": broker.url, "club": servers.CLUB, "table": name, "password": servers.password_of(name),
                "reconnect_max_s": 0.5}  # fmt: skip
        self.name = name
        self.runtime = Runtime.open(Settings(store={"path": folder / f"{name}.db"}, club=club), "token")  # type: ignore[arg-type]
        self.runtime.controller.start()  # its publisher is started by publish()
        self.publishing = False
        self.match = 0

    def start_match(self, match: Played) -> None:
        log = match.log
        started = self.runtime.start_match(log["game"], log.get("players"), log.get("options") or {}, None)
        self.match = started.result(WAIT_S)

    def submit(self, event: dict[str, Any]) -> Any:
        return self.runtime.submit(event)

    def publish(self) -> None:
        assert self.runtime.club is not None
        self.runtime.club.start()
        self.publishing = True

    def queued(self) -> int:
        return queued_in(self.runtime.journal.path)

    def close(self) -> list[tuple[str, dict[str, Any]]]:
        """Stop the table; its latest match's events with their journal times."""
        self.runtime.controller.stop()
        if self.publishing and self.runtime.club is not None:
            self.runtime.club.stop()
        timed = self.runtime.journal.timed_events(self.match) if self.match else []
        self.runtime.journal.close()
        return timed


# --- the club service and its database ------------------------------------------------------------


@contextlib.contextmanager
def club_service(broker: servers.Broker, dsn: str, folder: Path) -> Iterator[str]:
    """``croupier club serve`` in its own process, answering and subscribed; its page's URL."""
    (folder / "password").write_text(servers.CLUB_PASSWORD + "\n")
    port = servers.free_port()
    command = [sys.executable, "-m", "controller", "club", "serve", "--club", servers.CLUB, "--broker", broker.url,
               "--username", servers.CLUB_USER, "--database", dsn, "--port", str(port),
               "--token-file", str(folder / "token")]  # fmt: skip
    env = {**os.environ, "CROUPIER_CLUB_PASSWORD_FILE": str(folder / "password")}
    with (folder / "serve.log").open("ab") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait(lambda: _subscribed(process, url, folder), "croupier club serve to answer, subscribed", 120)
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _subscribed(process: subprocess.Popen, url: str, folder: Path) -> bool:
    if process.poll() is not None:
        raise ClubBenchError(f"croupier club serve stopped: {(folder / 'serve.log').read_text()[-2000:]}")
    try:
        return bool(httpx.get(f"{url}/api/health", timeout=5).json()["broker"])
    except httpx.HTTPError:
        return False


def wait(condition: Callable[[], bool], what: str, timeout_s: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise ClubBenchError(f"waited {timeout_s:g} s for {what}")
        time.sleep(0.02)


def _rows(dsn: str, match: int) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM messages WHERE match = %s", (match,)).fetchone()
    return int(row[0]) if row else 0


def _stored(dsn: str, match: int) -> Stored:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT table_name, max(seq), count(*) FILTER (WHERE kind = 'event') FROM messages WHERE match = %s"
            " GROUP BY table_name",
            (match,),
        ).fetchall()
    return Stored(sum(int(r[2]) for r in rows), {str(r[0]): int(r[1]) for r in rows})


def _event_times(dsn: str, match: int) -> list[tuple[str, int, int, float]]:
    """Each event message of the match: its table, match, seq and journal time (epoch s)."""
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT table_name, match, seq, extract(epoch FROM at) FROM messages WHERE match = %s AND kind = 'event'",
            (match,),
        ).fetchall()
    return [(str(t), int(m), int(s), float(at)) for t, m, s, at in rows]


def _row_delays_ms(dsn: str, match: int) -> list[float]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT extract(epoch FROM received_at - at) * 1000 FROM messages WHERE match = %s AND kind = 'event'",
            (match,),
        ).fetchall()
    return sorted(float(r[0]) for r in rows)


@contextlib.contextmanager
def _servers(names: list[str]) -> Iterator[tuple[str, servers.Broker, Path]]:
    folders = [Path(tempfile.mkdtemp(prefix=f"croupier-{p}-")) for p in ("pg", "mqtt", "club")]
    try:
        with servers.postgres(folders[0]) as pg, servers.mosquitto(folders[1], names) as broker:
            with psycopg.connect(pg.dsn(), autocommit=True) as conn:
                conn.execute("CREATE DATABASE bench")
            yield pg.dsn("bench"), broker, folders[2]
    finally:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)


# --- into PostgreSQL -----------------------------------------------------------------------------


@dataclass
class Drain:
    events: int
    messages: int
    journal_s: float
    drain_s: float


def into_postgres(tables: list[Table], matches: list[Played], dsn: str, progress: Progress) -> Drain:
    """Every table plays its match with its publisher stopped; then all publish at once."""
    for table, match in zip(tables, matches, strict=True):
        table.start_match(match)
    events = sum(len(m.log["events"]) for m in matches)
    progress(f"{len(tables)} tables journal {events} events, their publishers stopped...")
    start = time.monotonic()
    futures = [table.submit(e) for table, m in zip(tables, matches, strict=True) for e in m.log["events"]]
    for future in futures:
        result = future.result(WAIT_S)
        assert result.outcome.accepted, result.outcome.reason
    journal_s = time.monotonic() - start
    messages = sum(t.queued() for t in tables)
    progress(f"{len(tables)} publishers send {messages} messages from their outboxes at once...")
    start = time.monotonic()
    for table in tables:
        table.publish()
    wait(lambda: _rows(dsn, 1) >= messages, f"{messages} messages in PostgreSQL")
    return Drain(events, messages, journal_s, time.monotonic() - start)


# --- the whole run -------------------------------------------------------------------------------


def measure(tables: int = 50, hands: int = 8, live_s: float = 60.0, pace_s: float = 1.0,
            progress: Progress = lambda text: None) -> ClubFigures:  # fmt: skip
    why = missing()
    if why is not None:
        raise ClubBenchError(why)
    names = [f"t{i}" for i in range(1, tables + 1)]
    progress("the engine-only players play every table's matches...")
    burst = [played(*GAMES[i % 5], seed=i, hands=hands) for i in range(tables)]
    slow = [long_enough(GAMES[i % 5], 1000 + i, max(1, int(live_s / pace_s))) for i in range(tables)]
    with _servers(names) as (dsn, broker, folder), tempfile.TemporaryDirectory(prefix="croupier-tables-") as journals:
        progress("starting Mosquitto, PostgreSQL and croupier club serve...")
        with club_service(broker, dsn, folder) as url:
            opened: list[Table] = []
            try:
                opened += [Table(Path(journals), broker, name) for name in names]
                drain = into_postgres(opened, burst, dsn, progress)
                paced = live(opened, slow, url, pace_s, live_s, progress, WAIT_S, lambda: _stored(dsn, 2))
                rows = _row_delays_ms(dsn, 2)
                events = _event_times(dsn, 2)
            finally:
                for t in opened:
                    t.close()
    page, lost = delays_ms(paced.seen, events)
    lost += paced.played - len(events)  # journaled but never stored
    nan = float("nan")
    return ClubFigures(
        tables, hands, drain.events, drain.messages, drain.events / drain.journal_s, drain.drain_s,
        drain.events / drain.drain_s, drain.messages / drain.drain_s, pace_s, live_s, paced.played,
        statistics.median(page) if page else nan, _p95(page), page[-1] if page else nan,
        statistics.median(rows) if rows else nan, _p95(rows), paced.seen.updates / paced.elapsed_s,
        lost, os.getloadavg()[0], os.cpu_count() or 0,
    )  # fmt: skip


def _p95(values: list[float]) -> float:
    return values[int(0.95 * (len(values) - 1))] if values else float("nan")
