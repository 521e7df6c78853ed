"""The journal: every event of every match, in SQLite, appended before anything is published.

Events are stored exactly as the table log writes them (``docs/table-log.md``), so a match
exports as a table log and its state is what the referee makes of that log. The database
runs in WAL mode with full synchronisation: an event the table has acknowledged survives a
power cut. The schema carries a version, and opening an older database migrates it.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.log import FORMAT, VERSION

SCHEMA_VERSION = 1


class JournalError(RuntimeError):
    """The journal cannot be opened or written; the message says why."""


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


# MIGRATIONS[n] takes a database at schema version n to n + 1 (0: an empty file).
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {0: _create_v1}


def _private_file(path: Path) -> None:
    """The journal holds every hidden hand: its file is its owner's alone (0600, whatever the
    umask; SQLite gives its -wal and -shm files the same mode), and a folder made for it is too
    (0700). A folder that already exists is the owner's to set (the Pi's installer makes it 0700)."""
    if not path.parent.exists():
        path.parent.mkdir(parents=True, mode=0o700)
        path.parent.chmod(0o700)  # mkdir's mode passes through the umask
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    path.chmod(0o600)  # an existing file, or the umask, may have left it wider


class Journal:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            _private_file(self.path)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"cannot open the journal {self.path}: {exc}") from None
        except OSError as exc:
            raise JournalError(f"cannot open the journal {self.path}: {exc.strerror}") from None

    def close(self) -> None:
        self._db.close()

    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        version = self.schema_version()
        if version > SCHEMA_VERSION:
            raise JournalError(
                f"the journal {self.path} was written by a newer Croupier "
                f"(schema {version}; this one knows {SCHEMA_VERSION})"
            )
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
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # --- writing ----------------------------------------------------------------------------

    def start_match(self, game: str, players: int, options: Mapping[str, Any], start: Mapping[str, Any] | None) -> int:
        cursor = self._write(
            "INSERT INTO matches (game, players, options, start) VALUES (?, ?, ?, ?)",
            (game, players, json.dumps(dict(options)), json.dumps(dict(start)) if start else None),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def append(self, match_id: int, event: Mapping[str, Any]) -> int:
        """Append one table-log event; return its index in the match. Durable on return."""
        seq = self.event_count(match_id)
        self._write(
            "INSERT INTO events (match_id, seq, event) VALUES (?, ?, ?)", (match_id, seq, json.dumps(dict(event)))
        )
        return seq

    def _write(self, sql: str, values: tuple[Any, ...]) -> sqlite3.Cursor:
        try:
            return self._db.execute(sql, values)
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"cannot write to the journal {self.path}: {exc}") from None

    # --- reading ----------------------------------------------------------------------------

    def event_count(self, match_id: int) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM events WHERE match_id = ?", (match_id,)).fetchone()[0])

    def matches(self) -> list[MatchRecord]:
        rows = self._db.execute(
            "SELECT m.id, m.game, m.players, m.options, m.start, COUNT(e.seq), m.created "
            "FROM matches m LEFT JOIN events e ON e.match_id = m.id GROUP BY m.id ORDER BY m.id"
        ).fetchall()
        return [
            MatchRecord(r[0], r[1], r[2], json.loads(r[3]), json.loads(r[4]) if r[4] else None, r[5], r[6])
            for r in rows
        ]

    def latest_match(self) -> MatchRecord | None:
        found = self.matches()
        return found[-1] if found else None

    def events(self, match_id: int) -> list[dict[str, Any]]:
        rows = self._db.execute("SELECT event FROM events WHERE match_id = ? ORDER BY seq", (match_id,))
        return [json.loads(row[0]) for row in rows]

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
