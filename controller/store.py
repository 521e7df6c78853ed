"""The journal: every event of every match, in SQLite, appended before anything is published.

Events are stored exactly as the table log writes them (``docs/table-log.md``), so a match
exports as a table log and its state is what the referee makes of that log. The database
runs in WAL mode with full synchronisation: an event the table has acknowledged survives a
power cut. The schema carries a version, and opening an older database migrates it.

Nothing is served from a journal that is not what was written (``controller/journal/``): every
record (a match begun, an event) is chained to the one before by its hash; the journal is
checked, read-only, before it is opened; after every write a record of what was acknowledged is
kept beside it, so a journal that went back to an earlier state is refused, not resumed; and a
copy is made at the end of every hand. A write the disk refuses raises
:class:`JournalUnavailable` and records nothing; a damaged journal raises :class:`JournalDamaged`
with the way to salvage it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller.club_link import outbox
from controller.journal.ack import Acknowledged, write_ack
from controller.journal.chain import CHAIN_COLUMNS, EVENT_COLUMNS, GENESIS, MATCH_COLUMNS, EventRow, MatchRow, Row, link
from controller.journal.check import inspect, unavailable
from controller.journal.copy import HandEndCopies
from controller.journal.errors import JournalDamaged, JournalError, JournalShortened, JournalUnavailable, way_out
from controller.journal.files import ack_path, copy_path
from engine.log import FORMAT, VERSION

__all__ = ["Journal", "JournalDamaged", "JournalError", "JournalShortened", "JournalUnavailable", "MatchRecord"]

SCHEMA_VERSION = 3
SQLITE_FULL = 13

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class MatchRecord:
    id: int
    game: str
    players: int
    options: dict[str, Any]
    start: dict[str, Any] | None
    events: int
    created: str


def _create_v1(db: sqlite3.Connection) -> None:
    # One statement at a time: executescript() would commit the migration's transaction.
    db.execute(
        """
        CREATE TABLE matches (
            id INTEGER PRIMARY KEY,
            game TEXT NOT NULL,
            players INTEGER NOT NULL,
            options TEXT NOT NULL,
            start TEXT,
            created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
        )
        """
    )
    db.execute(
        """
        CREATE TABLE events (
            match_id INTEGER NOT NULL REFERENCES matches(id),
            seq INTEGER NOT NULL,
            event TEXT NOT NULL,
            at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
            PRIMARY KEY (match_id, seq)
        )
        """
    )


def _chain_v2(db: sqlite3.Connection) -> None:
    """Give the journal an identity, and number and chain the records it already holds."""
    db.execute("CREATE TABLE identity (id TEXT NOT NULL)")
    db.execute("INSERT INTO identity (id) VALUES (?)", (secrets.token_hex(16),))
    for table in ("matches", "events"):
        db.execute(f"ALTER TABLE {table} ADD COLUMN entry INTEGER")
        db.execute(f"ALTER TABLE {table} ADD COLUMN prev TEXT")
        db.execute(f"ALTER TABLE {table} ADD COLUMN hash TEXT")
        db.execute(f"CREATE UNIQUE INDEX {table}_entry ON {table} (entry)")
    entry, head = 0, GENESIS
    for values in db.execute(f"SELECT {', '.join(MATCH_COLUMNS)} FROM matches ORDER BY id").fetchall():
        entry, head = entry + 1, _chain_row(db, MatchRow(*values), entry + 1, head)
        events = f"SELECT {', '.join(EVENT_COLUMNS)} FROM events WHERE match_id = ? ORDER BY seq"
        for event in db.execute(events, (values[0],)).fetchall():
            entry, head = entry + 1, _chain_row(db, EventRow(*event), entry + 1, head)


def _chain_row(db: sqlite3.Connection, row: Row, entry: int, prev: str) -> str:
    digest = link(prev, row)
    if isinstance(row, MatchRow):
        db.execute("UPDATE matches SET entry = ?, prev = ?, hash = ? WHERE id = ?", (entry, prev, digest, row.id))
    else:
        where = "match_id = ? AND seq = ?"
        db.execute(f"UPDATE events SET entry = ?, prev = ?, hash = ? WHERE {where}", (entry, prev, digest, *_key(row)))
    return digest


def _key(row: EventRow) -> tuple[Any, Any]:
    return row.match_id, row.seq


# MIGRATIONS[n] takes a database at schema version n to n + 1 (0: an empty file). Schema 3 adds
# the club's outbox (controller/club_link/outbox.py), beside the chain and outside it.
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {0: _create_v1, 1: _chain_v2, 2: outbox.create_tables}


def _private_file(path: Path) -> None:
    """The journal holds every hidden hand: its file is its owner's alone (0600, whatever the
    umask; SQLite gives its -wal and -shm files the same mode), and a folder made for it is too
    (0700). A folder that already exists is the owner's to set (the Pi's installer makes it 0700)."""
    if not path.parent.exists():
        path.parent.mkdir(parents=True, mode=0o700)
        path.parent.chmod(0o700)  # mkdir's mode passes through the umask
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    path.chmod(0o600)  # an existing file, or the umask, may have left it wider


def _now() -> str:
    """The time as SQLite's ``strftime('%Y-%m-%dT%H:%M:%fZ')`` writes it (it is part of a record's hash)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class Journal:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        refusal = inspect(self.path, SCHEMA_VERSION).refusal(SCHEMA_VERSION)
        if refusal is not None:  # damaged, shortened or newer: never served, never changed
            raise refusal
        try:
            _private_file(self.path)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
            self.identity = str(self._db.execute("SELECT id FROM identity").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"cannot open the journal {self.path}: {exc}") from None
        except OSError as exc:
            raise JournalError(f"cannot open the journal {self.path}: {exc.strerror}") from None
        self._acknowledge(*self._head())
        self.copies = HandEndCopies(self.path, copy_path(self.path))

    def close(self) -> None:
        self.copies.close()
        self._db.close()

    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        version = self.schema_version()
        while version < SCHEMA_VERSION:
            with self._transaction():
                MIGRATIONS[version](self._db)
                version += 1
                self._db.execute(f"PRAGMA user_version = {version}")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:  # SQLite rolls back by itself after some errors (a full disk)
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            raise

    # --- writing ----------------------------------------------------------------------------

    def start_match(
        self,
        game: str,
        players: int,
        options: Mapping[str, Any],
        start: Mapping[str, Any] | None,
        club: Sequence[Mapping[str, Any]] = (),
    ) -> int:
        """Begin a match; ``club``: the club messages it makes, queued in the same transaction."""
        with self._writing():
            (match_id,) = self._db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM matches").fetchone()
            start_text = json.dumps(dict(start)) if start else None
            created = _now()
            self._insert(MatchRow(match_id, game, players, json.dumps(dict(options)), start_text, created))
            outbox.enqueue(self._db, match_id, created, club)
        return int(match_id)

    def append(self, match_id: int, event: Mapping[str, Any], club: Sequence[Mapping[str, Any]] = ()) -> int:
        """Append one table-log event, and the club messages it makes (``club``) to the outbox, in
        one transaction; return its index in the match. Durable on return; JournalUnavailable
        (nothing recorded) if the disk refuses it."""
        with self._writing():
            seq = self.event_count(match_id)
            at = _now()
            self._insert(EventRow(match_id, seq, json.dumps(dict(event)), at))
            outbox.enqueue(self._db, match_id, at, club)
        return seq

    def queue_for_club(self, match_id: int, messages: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
        """Queue club messages (each with the time its record was journaled) for a match none
        were queued for yet: a match in progress when the table joined a club."""
        try:
            with self._transaction():  # no record is added: the acknowledgement record stands
                for at, message in messages:
                    outbox.enqueue(self._db, match_id, at, [message])
        except sqlite3.DatabaseError as exc:
            raise self._failure(exc, "write to") from None

    def queued_for_club(self, match_id: int) -> bool:
        """Whether club messages were ever queued for this match."""
        try:
            return outbox.started(self._db, match_id)
        except sqlite3.DatabaseError as exc:
            raise self._failure(exc, "read") from None

    def restore(self, match: MatchRow, events: Sequence[EventRow]) -> None:
        """Write a salvaged match and its events as they were (ids, times, text), in one step."""
        with self._writing():
            for row in (match, *events):
                self._insert(row)

    def copy_at_hand_end(self) -> None:
        """A hand has ended: copy the journal (on the copy's own thread; see journal/copy.py)."""
        self.copies.request()

    @contextmanager
    def _writing(self) -> Iterator[None]:
        try:
            with self._transaction():
                yield
        except sqlite3.DatabaseError as exc:
            raise self._failure(exc, "write to") from None
        self._acknowledge(*self._written)

    def _insert(self, row: Row) -> None:
        entry, prev = self._head()
        digest = link(prev, row)
        table, columns = ("matches", MATCH_COLUMNS) if isinstance(row, MatchRow) else ("events", EVENT_COLUMNS)
        names = ", ".join(columns + CHAIN_COLUMNS)
        values = (*(getattr(row, name) for name in columns), entry + 1, prev, digest)
        self._db.execute(f"INSERT INTO {table} ({names}) VALUES ({', '.join('?' * len(values))})", values)
        self._written = (entry + 1, digest)

    def _head(self) -> tuple[int, str]:
        """The last record's number and hash (read in the write's own transaction)."""
        head = (0, GENESIS)
        for table in ("matches", "events"):
            row = self._db.execute(f"SELECT entry, hash FROM {table} ORDER BY entry DESC LIMIT 1").fetchone()
            if row is not None and row[0] > head[0]:
                head = (int(row[0]), str(row[1]))
        return head

    def _acknowledge(self, entries: int, head: str) -> None:
        """Record what the journal now holds. If the disk refuses, the record lags behind the
        journal, which the next start accepts: a journal is refused only when it holds less."""
        try:
            write_ack(ack_path(self.path), Acknowledged(self.identity, entries, head))
        except OSError as exc:
            log.warning("the journal's acknowledgement record was not updated: %s", exc.strerror or exc)

    def _failure(self, exc: sqlite3.DatabaseError, doing: str) -> JournalError:
        if not unavailable(exc):
            return JournalDamaged(f"the journal {self.path} is damaged: SQLite says '{exc}'; {way_out(self.path)}")
        full = getattr(exc, "sqlite_errorcode", 0) & 0xFF == SQLITE_FULL
        why = f"the disk is full ({exc})" if full else str(exc)
        return JournalUnavailable(
            f"cannot {doing} the journal {self.path}: {why}; nothing was recorded, and what was recorded "
            "before is safe: free some space (or fix the disk) and try again"
        )

    # --- reading ----------------------------------------------------------------------------

    def _read(self, sql: str, values: tuple[Any, ...] = ()) -> list[Any]:
        try:
            return self._db.execute(sql, values).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._failure(exc, "read") from None

    def _decode(self, text: Any, what: str) -> Any:
        try:
            return json.loads(text)
        except (TypeError, ValueError):
            raise JournalDamaged(
                f"the journal {self.path} is damaged: {what} is not JSON; {way_out(self.path)}"
            ) from None

    def event_count(self, match_id: int) -> int:
        return int(self._read("SELECT COUNT(*) FROM events WHERE match_id = ?", (match_id,))[0][0])

    def matches(self) -> list[MatchRecord]:
        rows = self._read(
            "SELECT m.id, m.game, m.players, m.options, m.start, COUNT(e.seq), m.created "
            "FROM matches m LEFT JOIN events e ON e.match_id = m.id GROUP BY m.id ORDER BY m.id"
        )
        return [self._match_record(row) for row in rows]

    def _match_record(self, row: tuple[Any, ...]) -> MatchRecord:
        options = self._decode(row[3], f"match {row[0]}'s options")
        start = self._decode(row[4], f"match {row[0]}'s start") if row[4] else None
        return MatchRecord(row[0], row[1], row[2], options, start, row[5], row[6])

    def latest_match(self) -> MatchRecord | None:
        found = self.matches()
        return found[-1] if found else None

    def hand_so_far(self, match_id: int) -> tuple[int, list[dict[str, Any]]]:
        """The index of the match's last deal and the events from it on (the hand in play)."""
        deals = "SELECT MAX(seq) FROM events WHERE match_id = ? AND json_extract(event, '$.type') = 'deal'"
        first = self._read(deals, (match_id,))[0][0]
        if first is None:
            return self.event_count(match_id), []
        rows = self._read(
            "SELECT seq, event FROM events WHERE match_id = ? AND seq >= ? ORDER BY seq", (match_id, first)
        )
        return int(first), [self._decode(text, f"event {seq} of match {match_id}") for seq, text in rows]

    def timed_events(self, match_id: int) -> list[tuple[str, dict[str, Any]]]:
        """Each event of the match with the time it was journaled."""
        rows = self._read("SELECT seq, at, event FROM events WHERE match_id = ? ORDER BY seq", (match_id,))
        return [(str(at), self._decode(text, f"event {seq} of match {match_id}")) for seq, at, text in rows]

    def events(self, match_id: int) -> list[dict[str, Any]]:
        rows = self._read("SELECT seq, event FROM events WHERE match_id = ? ORDER BY seq", (match_id,))
        return [self._decode(text, f"event {seq} of match {match_id}") for seq, text in rows]

    def export(self, match_id: int) -> dict[str, Any]:
        """The match as a table log (``docs/table-log.md``)."""
        record = next((m for m in self.matches() if m.id == match_id), None)
        if record is None:
            raise JournalError(f"there is no match {match_id} in the journal")
        log: dict[str, Any] = {"format": FORMAT, "version": VERSION, "game": record.game, "players": record.players}
        if record.options:
            log["options"] = record.options
        if record.start:
            log["start"] = record.start
        log["events"] = self.events(match_id)
        return log
