"""The club's record in PostgreSQL: what the intake writes and what the page, replay and exports read.

Every write of the intake is one transaction per batch: messages keyed by (club, table, match,
seq) with ON CONFLICT DO NOTHING, so a message received twice or late changes nothing."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.types.json import Jsonb


@dataclass(frozen=True, slots=True)
class Accepted:
    """A message of an ``events`` topic that keeps the contract."""

    table: str
    match: int
    seq: int
    kind: str
    hand: int | None
    at: Any  # datetime
    body: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Status:
    table: str
    body: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Refused:
    topic: str
    payload: bytes
    reason: str


Record = Accepted | Status | Refused


@dataclass(frozen=True, slots=True)
class Stored:
    """One stored message as the readers see it."""

    seq: int
    kind: str
    hand: int | None
    body: dict[str, Any]


def write(conn: psycopg.Connection, club: str, records: Sequence[Record]) -> int:
    """Write a batch in one transaction; return how many messages were new."""
    messages = [r for r in records if isinstance(r, Accepted)]
    with conn.transaction(), conn.cursor() as cur:
        new = _insert_messages(cur, club, messages) if messages else 0
        if new < len(messages):  # some were here already: the same message again, or another under its key?
            records = [*records, *_conflicts(cur, club, messages)]
        for record in records:  # statuses in the order they came: the last one says how the table is now
            if isinstance(record, Status):
                _merge_status(cur, club, record)
            elif isinstance(record, Refused):
                _insert_refused(cur, record)
    return new


def _insert_messages(cur: psycopg.Cursor, club: str, messages: list[Accepted]) -> int:
    # One statement for the batch, sent in a pipeline: a row at a time, each waiting for its answer,
    # was the intake's bottleneck (benchmarks/club.py).
    cur.executemany(
        "INSERT INTO messages (club, table_name, match, seq, kind, hand, at, body)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
        [(club, m.table, m.match, m.seq, m.kind, m.hand, m.at, Jsonb(m.body)) for m in messages],
    )
    return cur.rowcount


def _conflicts(cur: psycopg.Cursor, club: str, messages: list[Accepted]) -> list[Refused]:
    """The messages whose key the club already holds for a different message (a table whose journal
    was started afresh numbers its matches from 1 again): refused, the one held kept."""
    keys = [(m.table, m.match, m.seq) for m in messages]
    held = {
        (t, match, seq): body
        for t, match, seq, body in cur.execute(
            "SELECT table_name, match, seq, body FROM messages WHERE club = %s"
            " AND (table_name, match, seq) IN (SELECT * FROM unnest(%s::text[], %s::int[], %s::int[]))",
            (club, [k[0] for k in keys], [k[1] for k in keys], [k[2] for k in keys]),
        ).fetchall()
    }
    return [
        Refused(
            f"croupier/{club}/{m.table}/events",
            json.dumps(m.body, sort_keys=True).encode(),
            f"table {m.table} sent another message as match {m.match} seq {m.seq} (a journal started afresh?):"
            " the one received first is kept",
        )
        for m in messages
        if held.get((m.table, m.match, m.seq), m.body) != m.body
    ]


def _merge_status(cur: psycopg.Cursor, club: str, s: Status) -> None:
    # Merged, not replaced: a table's offline last will ({"online": false}) keeps its game and score.
    cur.execute(
        "INSERT INTO table_status (club, table_name, body) VALUES (%s, %s, %s)"
        " ON CONFLICT (club, table_name) DO UPDATE"
        " SET body = table_status.body || excluded.body, received_at = now()",
        (club, s.table, Jsonb(s.body)),
    )


def _insert_refused(cur: psycopg.Cursor, r: Refused) -> None:
    digest = hashlib.sha256(r.payload).hexdigest()
    cur.execute(
        "INSERT INTO rejected (topic, digest, payload, reason) VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
        (r.topic, digest, r.payload, r.reason),
    )


# --- reading ------------------------------------------------------------------------------------


def message_count(conn: psycopg.Connection, club: str) -> int:
    row = conn.execute("SELECT count(*) FROM messages WHERE club = %s", (club,)).fetchone()
    return int(row[0]) if row else 0


def match_messages(conn: psycopg.Connection, club: str, table: str, match: int) -> list[Stored]:
    rows = conn.execute(
        "SELECT seq, kind, hand, body FROM messages WHERE club = %s AND table_name = %s AND match = %s ORDER BY seq",
        (club, table, match),
    ).fetchall()
    return [Stored(*row) for row in rows]


@dataclass(frozen=True, slots=True)
class MatchKey:
    table: str
    match: int
    messages: int  # how many are stored: a replay is redone only when this changes
    started: Any  # the match message's `at`, None while it has not arrived


def match_keys(conn: psycopg.Connection, club: str, table: str | None = None) -> list[MatchKey]:
    rows = conn.execute(
        "SELECT table_name, match, count(*), min(at) FILTER (WHERE kind = 'match') FROM messages"
        " WHERE club = %s AND (%s::text IS NULL OR table_name = %s) GROUP BY table_name, match"
        " ORDER BY table_name, match",
        (club, table, table),
    ).fetchall()
    return [MatchKey(*row) for row in rows]


def statuses(conn: psycopg.Connection, club: str) -> dict[str, dict[str, Any]]:
    rows = conn.execute("SELECT table_name, body FROM table_status WHERE club = %s", (club,)).fetchall()
    return {table: body for table, body in rows}


def flags(conn: psycopg.Connection, club: str) -> dict[str, str]:
    rows = conn.execute("SELECT table_name, reason FROM table_flags WHERE club = %s", (club,)).fetchall()
    return {table: reason for table, reason in rows}


def set_flag(conn: psycopg.Connection, club: str, table: str, reason: str) -> None:
    with conn.transaction():
        conn.execute(
            "INSERT INTO table_flags (club, table_name, reason) VALUES (%s, %s, %s)"
            " ON CONFLICT (club, table_name) DO UPDATE SET reason = excluded.reason, flagged_at = now()",
            (club, table, reason),
        )


def clear_flag(conn: psycopg.Connection, club: str, table: str) -> bool:
    with conn.transaction():
        cur = conn.execute("DELETE FROM table_flags WHERE club = %s AND table_name = %s", (club, table))
    return cur.rowcount > 0


def rejected(conn: psycopg.Connection, limit: int = 100) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT topic, reason, received_at FROM rejected ORDER BY id DESC LIMIT %s", (limit,)
    ).fetchall()
    return [{"topic": t, "reason": r, "received_at": at.isoformat()} for t, r, at in rows]


def known_tables(conn: psycopg.Connection, club: str) -> list[str]:
    rows = conn.execute(
        "SELECT table_name FROM messages WHERE club = %s UNION SELECT table_name FROM table_status WHERE club = %s"
        " ORDER BY 1",
        (club, club),
    ).fetchall()
    return [row[0] for row in rows]


def all_seqs(conn: psycopg.Connection, club: str) -> Iterable[tuple[str, int, int]]:
    """Every stored (table, match, seq), in order: what the tests and benchmarks count."""
    return conn.execute(
        "SELECT table_name, match, seq FROM messages WHERE club = %s ORDER BY 1, 2, 3", (club,)
    ).fetchall()


# --- rounds -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredRound:
    number: int
    method: str
    seats: int
    sides: int
    entrants: list[str]
    tables: list[str]
    started_at: Any  # datetime
    seating: dict[str, list[str]]  # table -> entrant per side


def save_round(conn: psycopg.Connection, club: str, r: StoredRound) -> StoredRound:
    """Store a new round numbered after the last (a concurrent start fails on the key); return it."""
    with conn.transaction():
        row = conn.execute(
            "INSERT INTO rounds (club, number, method, seats, sides, entrants, tables)"
            " SELECT %s, coalesce(max(number), 0) + 1, %s, %s, %s, %s, %s FROM rounds WHERE club = %s"
            " RETURNING number, started_at",
            (club, r.method, r.seats, r.sides, Jsonb(r.entrants), Jsonb(r.tables), club),
        ).fetchone()
        assert row is not None
        for table, group in r.seating.items():
            for side, entrant in enumerate(group):
                conn.execute(
                    "INSERT INTO seatings (club, round, table_name, side, entrant) VALUES (%s, %s, %s, %s, %s)",
                    (club, row[0], table, side, entrant),
                )
    return StoredRound(row[0], r.method, r.seats, r.sides, r.entrants, r.tables, row[1], r.seating)


def load_rounds(conn: psycopg.Connection, club: str) -> list[StoredRound]:
    """Every round of the club, first first."""
    heads = conn.execute(
        "SELECT number, method, seats, sides, entrants, tables, started_at FROM rounds WHERE club = %s ORDER BY number",
        (club,),
    ).fetchall()
    seats = conn.execute(
        "SELECT round, table_name, side, entrant FROM seatings WHERE club = %s ORDER BY round, table_name, side",
        (club,),
    ).fetchall()
    seating: dict[int, dict[str, list[str]]] = {}
    for number, table, _side, entrant in seats:
        seating.setdefault(number, {}).setdefault(table, []).append(entrant)
    return [StoredRound(*head, seating.get(head[0], {})) for head in heads]
