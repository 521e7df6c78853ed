"""The club's view of its record: tables live, matches refereed, standings, rounds and exports.

What the page and the command line ask for, read from PostgreSQL. A match is replayed again only
when a message of it has arrived since (the replays are kept by the number of messages stored)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import psycopg

from club import rounds, store
from club.db import connect
from club.exports import results_csv
from club.replay import MatchRecord, rebuild
from club.seating import SeatingAnnouncer
from club.settings import ClubSettings
from club.standings import Placed, side_names, standings

KEPT_REPLAYS = 1000  # a whole Fifty-Six match's replay is some hundreds of kilobytes
KEPT_CONNECTIONS = 8  # idle connections to the database kept at most: more than a few pages ask at once


class NotFound(LookupError):
    """No such table, match or round; the message says which."""


@dataclass(frozen=True, slots=True)
class RoundRequest:
    method: str
    entrants: list[str] | None = None  # None: the last round's
    tables: list[str] | None = None
    seats: int | None = None
    sides: int | None = None


class Club:
    def __init__(self, settings: ClubSettings) -> None:
        self.settings = settings
        self.name = settings.club
        # The latest replays, by match: a replay is kept while no message of its match arrives.
        self._replays: OrderedDict[tuple[str, int], tuple[int, MatchRecord]] = OrderedDict()
        self._lock = threading.Lock()
        self._idle: list[psycopg.Connection] = []  # connections kept between requests
        self.seating = SeatingAnnouncer(settings)  # tells each table its next seating, through the broker

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """A connection to the database, kept for the next request when this one is done: a new
        connection for each request starts a PostgreSQL backend every time, which was most of
        the slow tail of the page's requests with 50 tables at live pace."""
        conn = self._kept() or connect(self.settings.database, autocommit=True)
        try:
            yield conn
        finally:
            self._keep(conn)

    def _kept(self) -> psycopg.Connection | None:
        """A kept connection that still answers (the database may have restarted since), or None."""
        while True:
            with self._lock:
                if not self._idle:
                    return None
                conn = self._idle.pop()
            try:
                conn.execute("SELECT 1")
                return conn
            except psycopg.Error:
                conn.close()

    def _keep(self, conn: psycopg.Connection) -> None:
        idle = not conn.closed and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        with self._lock:
            if idle and len(self._idle) < KEPT_CONNECTIONS:
                self._idle.append(conn)
                return
        conn.close()

    def close(self) -> None:
        """Close the kept connections (the service is stopping)."""
        with self._lock:
            idle, self._idle = self._idle, []
        self.seating.close()
        for conn in idle:
            conn.close()

    # --- matches --------------------------------------------------------------------------------

    def records(self, conn: psycopg.Connection, table: str | None = None) -> list[MatchRecord]:
        return [self._record(conn, key) for key in store.match_keys(conn, self.name, table)]

    def _record(self, conn: psycopg.Connection, key: store.MatchKey) -> MatchRecord:
        with self._lock:
            known = self._replays.get((key.table, key.match))
            if known is not None:
                self._replays.move_to_end((key.table, key.match))
        if known is not None and known[0] == key.messages:
            return known[1]
        record = rebuild(key.table, key.match, store.match_messages(conn, self.name, key.table, key.match))
        with self._lock:
            self._replays[(key.table, key.match)] = (key.messages, record)
            while len(self._replays) > KEPT_REPLAYS:  # the least recently asked for goes first
                self._replays.popitem(last=False)
        return record

    def match(self, table: str, match: int) -> MatchRecord:
        with self.connection() as conn:
            keys = [k for k in store.match_keys(conn, self.name, table) if k.match == match]
            if not keys:
                raise NotFound(f"no match {match} of table {table}")
            return self._record(conn, keys[0])

    # --- tables ---------------------------------------------------------------------------------

    def tables(self) -> list[dict[str, Any]]:
        """Every table: its status now, its flags, and its latest match as refereed."""
        with self.connection() as conn:
            statuses, flags = store.statuses(conn, self.name), store.flags(conn, self.name)
            latest: dict[str, MatchRecord] = {}
            for record in self.records(conn):
                latest[record.table] = record  # in match order: the last one stays
            names = store.known_tables(conn, self.name)
        return [_table_view(name, statuses.get(name, {}), flags.get(name), latest.get(name)) for name in names]

    def table_views(self, names: list[str]) -> list[dict[str, Any]]:
        """These tables only, as ``tables`` gives them (the page's live updates)."""
        with self.connection() as conn:
            statuses, flags = store.statuses(conn, self.name), store.flags(conn, self.name)
            latest = {name: self.records(conn, name) for name in names}
        return [
            _table_view(name, statuses.get(name, {}), flags.get(name), latest[name][-1] if latest[name] else None)
            for name in names
        ]

    def flag(self, table: str, reason: str) -> None:
        with self.connection() as conn:
            store.set_flag(conn, self.name, table, reason)

    def unflag(self, table: str) -> None:
        with self.connection() as conn:
            if not store.clear_flag(conn, self.name, table):
                raise NotFound(f"table {table} is not flagged")

    # --- standings and rounds -------------------------------------------------------------------

    def placed(self) -> list[tuple[Placed, MatchRecord]]:
        """Every match with a hand refereed, and who sat on each side (the round's seating, if any)."""
        with self.connection() as conn:
            records = self.records(conn)
            all_rounds = store.load_rounds(conn, self.name)
        in_round = _rounds_of(records, all_rounds)
        out = []
        for record in records:
            if record.standing is None or record.hands_revealed == 0 or record.game is None:
                continue
            sides = len(record.standing["score"])
            number, entrants = in_round.get((record.table, record.match), (None, side_names(record.seats, sides)))
            out.append((Placed(record.table, record.match, record.game, entrants, record.standing, number), record))
        return out

    def standings(self) -> list[dict[str, Any]]:
        return [line.to_json() for line in standings([p for p, _ in self.placed()])]

    def results_csv(self) -> str:
        return results_csv(self.placed())

    def start_round(self, request: RoundRequest) -> store.StoredRound:
        with self.connection() as conn:
            before = store.load_rounds(conn, self.name)
        plan = _plan(request, before[-1] if before else None)
        plan = rounds.Plan(plan.method, plan.entrants, plan.tables, plan.sides, plan.seats, _met(before))
        number = len(before) + 1
        if plan.method == "rotation":
            seating = rounds.rotation(plan, number)
        else:
            seating = rounds.swiss(plan, [line["entrant"] for line in self.standings()])
        new = store.StoredRound(
            number,
            plan.method,
            plan.seats,
            plan.sides,
            list(plan.entrants),
            list(plan.tables),
            None,
            {t: list(g) for t, g in seating.tables.items()},
        )
        with self.connection() as conn:
            saved = store.save_round(conn, self.name, new)
        self.seating.announce(saved, before[-1] if before else None)
        return saved

    def rounds(self) -> list[store.StoredRound]:
        with self.connection() as conn:
            return store.load_rounds(conn, self.name)

    def next_seating(self, table: str) -> dict[str, Any]:
        """Who sits where at this table in the latest round."""
        all_rounds = self.rounds()
        if not all_rounds:
            raise NotFound("no round has been started")
        last = all_rounds[-1]
        group = last.seating.get(table)
        if group is None:
            raise NotFound(f"table {table} has no seats in round {last.number}")
        seats = [
            {"seat": seat, "side": side, "entrant": entrant}
            for side, entrant in enumerate(group)
            for seat in rounds.seats_of_side(side, last.sides, last.seats)
        ]
        return {
            "round": last.number,
            "method": last.method,
            "table": table,
            "seats": sorted(seats, key=lambda s: s["seat"]),
        }


def _plan(request: RoundRequest, last: store.StoredRound | None) -> rounds.Plan:
    def given(value: Any, name: str, default: Any = None) -> Any:
        if value is not None:
            return value
        if last is not None:
            return getattr(last, name)
        if default is None:
            raise rounds.RoundError(f"the first round needs its {name}")
        return default

    return rounds.Plan(
        request.method,
        tuple(given(request.entrants, "entrants")),
        tuple(given(request.tables, "tables")),
        given(request.sides, "sides", 2),
        given(request.seats, "seats", 4),
    )


def _met(before: list[store.StoredRound]) -> frozenset[frozenset[str]]:
    return rounds.met_before([rounds.Seating({t: tuple(g) for t, g in r.seating.items()}) for r in before])


def _rounds_of(
    records: list[MatchRecord], all_rounds: list[store.StoredRound]
) -> dict[tuple[str, int], tuple[int, tuple[str, ...]]]:
    """Each round's match at each of its tables: the table's first match started after the round was."""
    started = {(r.table, r.match): r.started for r in records if r.started is not None}
    out: dict[tuple[str, int], tuple[int, tuple[str, ...]]] = {}
    for i, r in enumerate(all_rounds):
        until = all_rounds[i + 1].started_at if i + 1 < len(all_rounds) else None
        for table, group in r.seating.items():
            candidates = sorted(
                (at, match)
                for (t, match), at in started.items()
                if t == table and at >= r.started_at and (until is None or at < until)
            )
            if candidates:
                out[(table, candidates[0][1])] = (r.number, tuple(group))
    return out


def _table_view(name: str, status: dict[str, Any], flag: str | None, record: MatchRecord | None) -> dict[str, Any]:
    flags = [f"flagged by the club: {flag}"] if flag else []
    if status.get("held"):
        flags.append("held: the table waits for a device that cannot go on (its page says why)")
    if record is not None:
        flags += [f"match {record.match}: {m}" for m in record.mismatches]
    return {
        "table": name,
        "online": status.get("online", True) if status else None,  # None: no status has come yet
        "game": status.get("game") or (record.game if record else None),
        "match": status.get("match") or (record.match if record else None),
        "hand": status.get("hand"),
        "to_act": status.get("to_act"),
        "paused": bool(status.get("paused")),
        "held": bool(status.get("held")),
        "score": status.get("score"),
        "at": status.get("at"),
        "flags": flags,
        "refereed": record.summary() if record is not None else None,
    }
