"""Journals as older Croupiers wrote them, for the tests that open, check and migrate them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

UNDO = '{"type": "undo"}'


def schema_1_journal(path: Path, events: tuple[str, ...] = (UNDO,)) -> None:
    """A journal as the first Croupier wrote it: no identity, no chained records; one Nap match
    holding ``events`` (JSON texts) in order."""
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE matches (id INTEGER PRIMARY KEY, game TEXT NOT NULL, players INTEGER NOT NULL, "
        "options TEXT NOT NULL, start TEXT, created TEXT NOT NULL DEFAULT 'then')"
    )
    db.execute(
        "CREATE TABLE events (match_id INTEGER NOT NULL REFERENCES matches(id), seq INTEGER NOT NULL, "
        "event TEXT NOT NULL, at TEXT NOT NULL DEFAULT 'then', PRIMARY KEY (match_id, seq))"
    )
    db.execute("INSERT INTO matches (game, players, options) VALUES ('nap', 5, '{}')")
    db.executemany("INSERT INTO events (match_id, seq, event) VALUES (1, ?, ?)", list(enumerate(events)))
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
