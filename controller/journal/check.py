"""The check a journal passes before it is opened for writing.

It reads the journal without writing a byte: SQLite's integrity check, the tables, every
record against its hash and the one before it (``chain.py``), and the count and last hash
against the acknowledgement record (``ack.py``). Read-only matters: a connection that writes
would, on closing, checkpoint the write-ahead log and delete it, and with it the transactions a
damaged frame had cut off, which ``croupier journal recover`` can still salvage.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from controller.journal.ack import Acknowledged, AckUnreadable, read_ack
from controller.journal.chain import GENESIS, MatchRow, Record, records
from controller.journal.errors import JournalDamaged, JournalError, JournalShortened, way_out
from controller.journal.files import ack_path

CHAINED = 2  # the first schema whose records are chained
MAX_PROBLEMS = 20  # listed; the rest are counted


@dataclass
class Inspection:
    """What the check found. ``problems`` are damage; ``shortened`` says what was lost."""

    path: Path
    exists: bool = False
    schema: int = 0
    newer: bool = False  # written by a newer Croupier
    journal_id: str | None = None
    matches: int = 0
    events: int = 0
    entries: int = 0  # records in the chain (matches begun and events)
    head: str = GENESIS  # the last record's hash
    acknowledged: Acknowledged | None = None
    replaced: bool = False  # another journal was put in this one's place (its identity differs)
    problems: list[str] = field(default_factory=list)
    more_problems: int = 0
    shortened: str | None = None
    _hash_at_ack: str | None = None

    @property
    def whole(self) -> bool:
        return not (self.problems or self.shortened or self.newer)

    def problem(self, text: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(text)
        else:
            self.more_problems += 1

    def refusal(self, known_schema: int) -> JournalError | None:
        """Why the journal must not be served, as the error to raise; None if it may be."""
        if self.newer:
            return JournalError(
                f"the journal {self.path} was written by a newer Croupier "
                f"(schema {self.schema}; this one knows {known_schema})"
            )
        if self.shortened:
            return JournalShortened(f"the journal {self.path} has lost records: {self.shortened}; {way_out(self.path)}")
        if self.problems:
            others = len(self.problems) - 1 + self.more_problems
            more = f" (and {others} more problem{'s' if others > 1 else ''})" if others else ""
            return JournalDamaged(f"the journal {self.path} is damaged: {self.problems[0]}{more}; {way_out(self.path)}")
        return None


def connect_read_only(path: Path, in_use: bool = False) -> sqlite3.Connection:
    """A connection that reads the journal and its write-ahead log and never writes either.
    Without a log (a journal closed cleanly, not ``in_use`` by a connection that writes) the file
    is read as it is, so that no empty log and index files are left beside a journal that was
    only looked at."""
    logged = in_use or path.with_name(path.name + "-wal").exists()
    mode = "mode=ro" if logged else "immutable=1"
    return sqlite3.connect(f"{path.absolute().as_uri()}?{mode}", uri=True, check_same_thread=False)


def inspect(path: Path, known_schema: int) -> Inspection:
    """Check the journal at ``path`` (which may not exist yet) without changing anything."""
    found = Inspection(path)
    try:
        found.acknowledged = read_ack(ack_path(path))
    except AckUnreadable as exc:
        found.problem(f"its acknowledgement record {ack_path(path)} is damaged ({exc})")
    if path.exists():
        found.exists = True
        _inspect_database(found, known_schema)
    _compare_with_ack(found)
    return found


def _inspect_database(found: Inspection, known_schema: int) -> None:
    try:
        db = connect_read_only(found.path)
    except sqlite3.Error as exc:
        raise JournalError(f"cannot open the journal {found.path}: {exc}") from None
    try:
        _inspect_contents(db, found, known_schema)
    except sqlite3.DatabaseError as exc:
        if unavailable(exc):
            raise JournalError(f"cannot read the journal {found.path}: {exc}") from None
        found.problem(f"SQLite cannot read it ({exc})")
    finally:
        db.close()


def unavailable(exc: sqlite3.Error) -> bool:
    """Whether SQLite failed for want of the disk (full, read-only, busy, failing), not damage."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    # SQLITE_PERM, BUSY, LOCKED, NOMEM, READONLY, IOERR, FULL, CANTOPEN
    return primary in {3, 5, 6, 7, 8, 10, 13, 14}


def _inspect_contents(db: sqlite3.Connection, found: Inspection, known_schema: int) -> None:
    found.schema = int(db.execute("PRAGMA user_version").fetchone()[0])
    if found.schema > known_schema:
        found.newer = True
        return
    report = [row[0] for row in db.execute(f"PRAGMA integrity_check({MAX_PROBLEMS})")]
    if report != ["ok"]:
        found.problem(f"SQLite's integrity check fails: {report[0]}")
        return
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    needed = {"matches", "events", "identity"} if found.schema >= CHAINED else {"matches", "events"}
    needed = needed if found.schema > 0 else set()
    if found.schema == 0 and tables:
        found.problem(f"it holds tables ({', '.join(sorted(tables))}) but no schema version")
    for missing in sorted(needed - tables):
        found.problem(f"its table '{missing}' is missing")
    if found.problems or found.schema == 0:
        return
    if found.schema >= CHAINED:
        _walk_chain(db, found)
    else:
        _walk_unchained(db, found)


def _walk_chain(db: sqlite3.Connection, found: Inspection) -> None:
    identity = db.execute("SELECT id FROM identity").fetchone()
    found.journal_id = str(identity[0]) if identity else None
    if found.journal_id is None:
        found.problem("its identity is missing")
    target = found.acknowledged.entries if found.acknowledged else None
    head, number = GENESIS, 0
    for record in records(db):
        number += 1
        if record.entry != number:
            found.problem(f"record {number} is missing (the next one is numbered {record.entry!r})")
            number = record.entry if isinstance(record.entry, int) else number
        _check_record(found, record, head)
        head = record.hash if isinstance(record.hash, str) else head
        if number == target:
            found._hash_at_ack = head
        _count(found, record)
    found.entries, found.head = number, head


def _check_record(found: Inspection, record: Record, head: str) -> None:
    if not record.intact():
        found.problem(f"{record.describe()} is not what was written (its hash differs)")
    elif record.prev != head:
        found.problem(f"{record.describe()} does not follow the record before it")


def _count(found: Inspection, record: Record) -> None:
    if isinstance(record.row, MatchRow):
        found.matches += 1
    else:
        found.events += 1


def _walk_unchained(db: sqlite3.Connection, found: Inspection) -> None:
    """A journal from before the chain: every match's and event's JSON must at least read."""
    for match_id, options, start in db.execute("SELECT id, options, start FROM matches ORDER BY id"):
        found.matches += 1
        if not (_is_json(options) and (start is None or _is_json(start))):
            found.problem(f"match {match_id}'s options or start are not JSON")
    for match_id, seq, event in db.execute("SELECT match_id, seq, event FROM events ORDER BY match_id, seq"):
        found.events += 1
        if not _is_json(event):
            found.problem(f"event {seq} of match {match_id} is not JSON")


def _is_json(text: object) -> bool:
    try:
        json.loads(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return True


def _compare_with_ack(found: Inspection) -> None:
    ack = found.acknowledged
    if ack is None or found.newer or found.problems:  # damage is said first
        return
    unchained = found.exists and 0 < found.schema < CHAINED
    if unchained or (found.journal_id is not None and found.journal_id != ack.journal):
        found.replaced = True  # another journal put here on purpose (a recovered one): it gets its own record
        return
    if found.entries < ack.entries:
        now = "is missing" if not found.exists else f"holds {found.entries} records"
        if found.exists and found.schema == 0:
            now = "is empty"
        found.shortened = (
            f"it {now}, but {ack.entries} records (matches begun and events) were acknowledged ({ack_path(found.path)})"
        )
    elif found._hash_at_ack != ack.head and ack.entries > 0:
        found.problem(f"record {ack.entries} is not the one acknowledged ({ack_path(found.path)})")
