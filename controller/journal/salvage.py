"""Salvage: every intact record of a damaged journal, into a new journal.

Three sources are read, none of them written: the journal as SQLite reads it; the journal with
its write-ahead log applied past the frame where SQLite stops (``wal.py``); and the copy made at
the end of the last hand (``copy.py``). Each is read row by row, around pages that cannot be
read. A record counts only if its own hash shows it is what was written (a journal from before
the hash chain: if its JSON reads). Every match keeps its events from the first up to the first
one found intact in no source, and no further than its events replay through the referee: a
match cannot go on past a missing event. What was lost is counted, per match and against the
acknowledgement record.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.journal.ack import AckUnreadable, read_ack
from controller.journal.chain import EVENT_COLUMNS, MATCH_COLUMNS, EventRow, MatchRow, Record
from controller.journal.check import connect_read_only
from controller.journal.files import ack_path, copy_path
from controller.journal.wal import replay
from controller.store import Journal
from engine.log import FORMAT, VERSION, MalformedLog, referee_text

MAX_PROBES = 200_000  # rows looked up one by one between two unreadable stretches of a table
Rows = dict[int, tuple[Any, ...]]  # row id -> the row's values


@dataclass
class Source:
    name: str
    matches: dict[Any, Record] = field(default_factory=dict)  # id -> its first intact record
    events: dict[tuple[Any, Any], Record] = field(default_factory=dict)  # (match, seq) -> ...
    seen: set[tuple[Any, Any]] = field(default_factory=set)  # every event key read, intact or not
    unreadable: str | None = None  # why nothing could be read


@dataclass
class SalvagedMatch:
    row: MatchRow
    events: list[EventRow]
    seen: int  # events this match had, as far as any source shows
    why_cut: str | None = None  # why its events end where they do, if some were lost


@dataclass
class Salvage:
    matches: list[SalvagedMatch]
    sources: list[Source]
    acknowledged: int | None  # records the journal had acknowledged (its record), if known

    @property
    def records(self) -> int:
        return len(self.matches) + sum(len(m.events) for m in self.matches)


def salvage(journal: Path) -> Salvage:
    """Read every source of ``journal`` and keep what is intact; nothing is written."""
    with tempfile.TemporaryDirectory(prefix="croupier-salvage-") as folder:
        replayed = Path(folder) / "replayed.db"
        sources = [
            _read("the journal", journal, lambda: connect_read_only(journal) if journal.exists() else None),
            _read("its write-ahead log, read past the damage", replayed, lambda: _replayed(journal, replayed)),
            _read("the copy made at the last hand's end", copy_path(journal), lambda: _immutable(copy_path(journal))),
        ]
    try:
        acknowledged = read_ack(ack_path(journal))
    except AckUnreadable:
        acknowledged = None
    return Salvage(_merge(sources), sources, acknowledged.entries if acknowledged else None)


def _replayed(journal: Path, out: Path) -> sqlite3.Connection | None:
    return _immutable(out) if replay(journal, journal.with_name(journal.name + "-wal"), out) else None


def _immutable(path: Path) -> sqlite3.Connection | None:
    """A file read as it is: no lock, no log, no -shm file made beside it."""
    return sqlite3.connect(f"{path.absolute().as_uri()}?immutable=1", uri=True) if path.exists() else None


def _read(name: str, path: Path, connect: Any) -> Source:
    source = Source(name)
    try:
        db = connect()
    except (sqlite3.Error, OSError) as exc:
        source.unreadable = str(exc)
        return source
    if db is None:
        source.unreadable = "there is none"
        return source
    try:
        for record in _records(db, "matches", MATCH_COLUMNS):
            source.matches.setdefault(record.row.id, record)  # type: ignore[union-attr]
        for record in _records(db, "events", EVENT_COLUMNS):
            key = (record.row.match_id, record.row.seq)  # type: ignore[union-attr]
            source.seen.add(key)
            source.events.setdefault(key, record)
    finally:
        db.close()
    return source


def _records(db: sqlite3.Connection, table: str, columns: tuple[str, ...]) -> Iterable[Record]:
    """The records of a table that read and are intact, however much of it is damaged."""
    present = _columns(db, table)
    if not set(columns) <= present:
        return []
    chained = {"entry", "prev", "hash"} <= present
    chain = ("entry", "prev", "hash") if chained else ()
    rows = _tolerant_rows(db, f"SELECT rowid, {', '.join(chain + columns)} FROM {table}")
    kind = MatchRow if table == "matches" else EventRow
    found = []
    for values in rows:
        record = Record(kind(*values[len(chain) :]), *values[: len(chain)])
        if (record.intact() or not chained) and _reads(record):
            found.append(record)
    return found


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    try:
        return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
    except sqlite3.DatabaseError:
        return set()


def _tolerant_rows(db: sqlite3.Connection, select: str) -> list[tuple[Any, ...]]:
    """Every row that reads: from the first up, from the last down, then one by one between."""
    found: Rows = {}
    up = _collect(db, f"{select} ORDER BY rowid ASC", (), found)
    down = _collect(db, f"{select} ORDER BY rowid DESC", (), found)
    if down:
        start = up[-1] + 1 if up else 1
        for rowid in range(start, min(down[-1], start + MAX_PROBES)):
            _collect(db, f"{select} WHERE rowid = ?", (rowid,), found)
    return [found[rowid] for rowid in sorted(found)]


def _collect(db: sqlite3.Connection, query: str, values: tuple[Any, ...], found: Rows) -> list[int]:
    """Read rows into ``found`` until the query fails; the row ids read, in order."""
    read = []
    try:
        for row in db.execute(query, values):
            found.setdefault(row[0], row[1:])
            read.append(row[0])
    except sqlite3.DatabaseError:
        pass  # the rest of this way through the table is unreadable
    return read


def _reads(record: Record) -> bool:
    """Whether the record's JSON reads (options and start of a match; an event)."""
    row = record.row
    if isinstance(row, MatchRow):
        return _is_json(row.options) and (row.start is None or _is_json(row.start))
    return _is_json(row.event)


def _is_json(text: Any) -> bool:
    try:
        json.loads(text)
    except (TypeError, ValueError):
        return False
    return True


def _merge(sources: list[Source]) -> list[SalvagedMatch]:
    ids = sorted({i for s in sources for i in s.matches if isinstance(i, int)})
    salvaged = []
    for match_id in ids:
        row = next(s.matches[match_id].row for s in sources if match_id in s.matches)
        assert isinstance(row, MatchRow)
        salvaged.append(_salvage_match(row, sources))
    return salvaged


def _salvage_match(row: MatchRow, sources: list[Source]) -> SalvagedMatch:
    seen = {seq for s in sources for (m, seq) in s.seen if m == row.id and isinstance(seq, int)}
    events: list[EventRow] = []
    while (found := _first_intact(sources, (row.id, len(events)))) is not None:
        events.append(found)
    count = max(seen, default=-1) + 1
    why = f"event {len(events)} is intact in no source" if len(events) < count else None
    kept = _replayable(row, events)
    if len(kept) < len(events):
        why = f"event {len(kept)} does not replay"
    return SalvagedMatch(row, kept, max(count, len(events)), why)


def _first_intact(sources: list[Source], key: tuple[int, int]) -> EventRow | None:
    for source in sources:
        if key in source.events:
            row = source.events[key].row
            assert isinstance(row, EventRow)
            return row
    return None


def _replayable(row: MatchRow, events: list[EventRow]) -> list[EventRow]:
    """The events up to the first the referee cannot replay (none should fail: each was judged)."""
    log: dict[str, Any] = {"format": FORMAT, "version": VERSION, "game": row.game, "players": row.players}
    options, start = json.loads(row.options), json.loads(row.start) if row.start else None
    log |= ({"options": options} if options else {}) | ({"start": start} if start else {})
    log["events"] = [json.loads(e.event) for e in events]
    try:
        referee_text(json.dumps(log))
    except MalformedLog as exc:
        return events[: exc.event] if exc.event is not None else []
    return events


def write(found: Salvage, out: Path) -> None:
    """Write what was salvaged as a new journal at ``out`` (which must not exist)."""
    target = Journal(out)
    try:
        for match in found.matches:
            target.restore(match.row, match.events)
    finally:
        target.close()
