"""The journal's hash chain.

Every record the journal keeps (a match begun, an event) is numbered in the order it was
written (its ``entry``, from 1) and carries two hashes: ``prev``, the hash of the record before
it, and ``hash``, SHA-256 of ``prev`` and the record's own content. A record whose content
changed (a flipped bit in a page, an edit) no longer matches its hash; a record missing from
the middle breaks the link; and the last record's number and hash, kept outside the database
(``ack.py``), show a journal that went back to an earlier state. Because each record carries
its ``prev``, each can be checked on its own, which is what lets a salvage keep every intact
record of a damaged journal.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

GENESIS = "0" * 64  # the ``prev`` of the first record
MATCH_COLUMNS = ("id", "game", "players", "options", "start", "created")
EVENT_COLUMNS = ("match_id", "seq", "event", "at")
CHAIN_COLUMNS = ("entry", "prev", "hash")


@dataclass(frozen=True, slots=True)
class MatchRow:
    """A match as the ``matches`` table holds it (options and start as their JSON text)."""

    id: Any
    game: Any
    players: Any
    options: Any
    start: Any
    created: Any


@dataclass(frozen=True, slots=True)
class EventRow:
    """An event as the ``events`` table holds it (the event as its JSON text)."""

    match_id: Any
    seq: Any
    event: Any
    at: Any


Row = MatchRow | EventRow


@dataclass(frozen=True, slots=True)
class Record:
    """One row with its place in the chain (``None`` where a journal has no chain yet)."""

    row: Row
    entry: Any = None
    prev: Any = None
    hash: Any = None

    def intact(self) -> bool:
        """Whether the row is what was written: its hash is its ``prev`` and its content's."""
        return isinstance(self.prev, str) and isinstance(self.hash, str) and self.hash == link(self.prev, self.row)

    def describe(self) -> str:
        """The record in words, for a message: 'match 2' or 'event 37 of match 2'."""
        if isinstance(self.row, MatchRow):
            return f"match {self.row.id}"
        return f"event {self.row.seq} of match {self.row.match_id}"


def link(prev: str, row: Row) -> str:
    """The hash of a record that follows ``prev``."""
    return hashlib.sha256(f"{prev}\n{_canonical(row)}".encode()).hexdigest()


def _canonical(row: Row) -> str:
    # Damaged rows may hold any SQLite value (bytes, a float): they must hash, not raise.
    fields = [getattr(row, name) for name in row.__slots__]  # type: ignore[union-attr]
    kind = "match" if isinstance(row, MatchRow) else "event"
    return json.dumps([kind, *fields], default=repr, ensure_ascii=False)


def match_record(values: tuple[Any, ...]) -> Record:
    """A record from ``SELECT entry, prev, hash, <MATCH_COLUMNS>``."""
    return Record(MatchRow(*values[3:]), *values[:3])


def event_record(values: tuple[Any, ...]) -> Record:
    """A record from ``SELECT entry, prev, hash, <EVENT_COLUMNS>``."""
    return Record(EventRow(*values[3:]), *values[:3])


def select(table: str) -> str:
    """The query of a table's records, chain first, in the order they were written."""
    columns = MATCH_COLUMNS if table == "matches" else EVENT_COLUMNS
    return f"SELECT {', '.join(CHAIN_COLUMNS + columns)} FROM {table} ORDER BY entry"


def records(db: sqlite3.Connection) -> Iterator[Record]:
    """Every record of a chained journal in the order it was written (raises sqlite3 errors)."""
    matches = map(match_record, db.execute(select("matches")))
    events = map(event_record, db.execute(select("events")))
    return heapq.merge(matches, events, key=_order)


def _order(record: Record) -> int:
    return record.entry if isinstance(record.entry, int) else -1
