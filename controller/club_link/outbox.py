"""The outbox: the club messages the broker has not acknowledged yet, kept in the journal.

Each message is written in the same SQLite transaction as the journal record it comes from
(``controller/store.py``), so a message exists exactly when its event does: a power cut, a
full disk or a crash can lose neither one without the other. ``seq`` is counted per match in
``outbox_seq``, which outlives the rows (a row is deleted once the broker has it), so a message
keeps its number for good. The outbox is not part of the journal's hash chain: it is a queue
of copies, not a record; what it sends is rebuilt from the chained records if it is lost.

The publisher (``publisher.py``) reads and deletes rows on a connection of its own. A delete
is not made durable at once (``synchronous=NORMAL``): after a power cut a message may be sent
again, which the club takes as the duplicate it is, and the table's writes never wait on the
publisher's syncs.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HEAD = ("v", "club", "table")  # a message's first fields, as the builder gives them
BUSY_TIMEOUT_S = 30.0  # the publisher waits this long for the table's write to end (milliseconds, usually)


def create_tables(db: sqlite3.Connection) -> None:
    """The journal's migration to schema 3 (run in the migration's transaction)."""
    db.execute(
        """
        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            match_id INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            body TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE TABLE outbox_seq (match_id INTEGER PRIMARY KEY, last INTEGER NOT NULL)")


def enqueue(db: sqlite3.Connection, match_id: int, at: str, messages: Sequence[Mapping[str, Any]]) -> None:
    """Number the messages of a match and queue them; call inside the journal's write transaction.
    Each message comes as the builder makes it (``messages.py``): its match, seq and time are added here."""
    if not messages:
        return
    row = db.execute("SELECT last FROM outbox_seq WHERE match_id = ?", (match_id,)).fetchone()
    seq = int(row[0]) if row is not None else 0
    for message in messages:
        seq += 1
        body = _body(message, match_id, seq, at)
        db.execute(
            "INSERT INTO outbox (match_id, seq, kind, body) VALUES (?, ?, ?, ?)",
            (match_id, seq, body["kind"], json.dumps(body, ensure_ascii=False, separators=(",", ":"))),
        )
    db.execute("INSERT OR REPLACE INTO outbox_seq (match_id, last) VALUES (?, ?)", (match_id, seq))


def _body(message: Mapping[str, Any], match_id: int, seq: int, at: str) -> dict[str, Any]:
    head = {name: message[name] for name in HEAD}
    rest = {name: value for name, value in message.items() if name not in (*HEAD, "kind")}
    return {**head, "match": match_id, "seq": seq, "kind": message["kind"], "at": at, **rest}


def started(db: sqlite3.Connection, match_id: int) -> bool:
    """Whether any message of this match was ever queued."""
    return db.execute("SELECT 1 FROM outbox_seq WHERE match_id = ?", (match_id,)).fetchone() is not None


@dataclass(frozen=True, slots=True)
class Queued:
    id: int  # the outbox's order, across matches
    match_id: int
    seq: int
    body: str  # the message, as it is published


class OutboxReader:
    """The publisher's own connection to the journal: the rows in order, and deleting them."""

    def __init__(self, journal: Path) -> None:
        self._db = sqlite3.connect(journal, isolation_level=None, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        self._db.execute("PRAGMA synchronous=NORMAL")  # see the module's docstring

    def close(self) -> None:
        self._db.close()

    def after(self, last_id: int, limit: int) -> list[Queued]:
        """Up to ``limit`` rows queued after ``last_id``, in order."""
        rows = self._db.execute(
            "SELECT id, match_id, seq, body FROM outbox WHERE id > ? ORDER BY id LIMIT ?", (last_id, limit)
        ).fetchall()
        return [Queued(*row) for row in rows]

    def delete(self, ids: Iterable[int]) -> None:
        """Forget rows the broker has acknowledged (one transaction for the lot)."""
        chosen = [(i,) for i in ids]
        if chosen:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany("DELETE FROM outbox WHERE id = ?", chosen)
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0])


def queued_in(journal: Path) -> int:
    """How many messages a journal's outbox holds, the broker not having acknowledged them."""
    reader = OutboxReader(journal)
    try:
        return reader.count()
    finally:
        reader.close()
