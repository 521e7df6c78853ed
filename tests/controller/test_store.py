"""The journal: durable, versioned, chained, exported as a table log; a full disk refuses in words."""

from __future__ import annotations

import json
import sqlite3

import pytest

from controller.journal.check import inspect
from controller.store import SCHEMA_VERSION, Journal, JournalDamaged, JournalError, JournalUnavailable
from tests.controller.old_journals import UNDO, schema_1_journal


def test_a_new_journal_is_created_at_the_current_schema(tmp_path):
    journal = Journal(tmp_path / "j.db")
    assert journal.schema_version() == SCHEMA_VERSION
    assert journal._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal.matches() == [] and journal.latest_match() is None


def test_events_are_kept_in_order_and_exported_as_a_table_log(tmp_path):
    journal = Journal(tmp_path / "j.db")
    first = journal.start_match("poley", 4, {"all-pass": "vorhand-plays-one"}, {"score": [3, 4]})
    assert [journal.append(first, {"type": "call", "seat": s, "call": "pass"}) for s in range(3)] == [0, 1, 2]
    second = journal.start_match("nap", 5, {}, None)
    journal.append(second, {"type": "undo"})
    journal.close()
    reopened = Journal(tmp_path / "j.db")
    assert [m.events for m in reopened.matches()] == [3, 1]
    log = reopened.export(first)
    assert log["format"] == "croupier-table-log" and log["options"] == {"all-pass": "vorhand-plays-one"}
    assert log["start"] == {"score": [3, 4]} and [e["seat"] for e in log["events"]] == [0, 1, 2]
    assert reopened.latest_match().game == "nap"
    with pytest.raises(JournalError, match="no match 99"):
        reopened.export(99)


def test_a_journal_from_a_newer_croupier_is_refused(tmp_path):
    Journal(tmp_path / "j.db").close()
    db = sqlite3.connect(tmp_path / "j.db")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(JournalError, match="newer Croupier"):
        Journal(tmp_path / "j.db")


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path):
    (tmp_path / "j.db").write_text("these are not the pages you are looking for" * 100)
    with pytest.raises(JournalDamaged, match=r"is damaged: SQLite cannot read it \(file is not a database\)"):
        Journal(tmp_path / "j.db")


def test_the_journal_is_its_owner_s_alone_whatever_the_umask(tmp_path):
    import os
    import stat

    old = os.umask(0o002)  # a generous umask: files 0664, folders 0775 unless the journal says otherwise
    try:
        folder = tmp_path / "new" / "data"
        journal = Journal(folder / "journal.db")
        match = journal.start_match("nap", 3, {}, None)
        journal.append(match, {"type": "deal"})
        kept = tmp_path / "kept.db"
        kept.write_bytes(b"")
        kept.chmod(0o644)  # an older journal, world-readable
        Journal(kept).close()
    finally:
        os.umask(old)
    journal.copy_at_hand_end()
    assert journal.copies.wait(timeout=60)
    files = [folder / "journal.db", folder / "journal.db-wal", folder / "journal.db-shm"]
    files += [folder / "journal.db.ack", folder / "journal.db.backup"]
    assert all(f.exists() for f in files)
    assert {f.name: stat.S_IMODE(f.stat().st_mode) for f in files} == {f.name: 0o600 for f in files}
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    journal.close()


def test_every_write_is_chained_and_acknowledged_beside_the_journal(tmp_path):
    journal = Journal(tmp_path / "j.db")
    match = journal.start_match("poley", 4, {}, None)
    for seat in range(3):
        journal.append(match, {"type": "call", "seat": seat, "call": "pass"})
        ack = json.loads((tmp_path / "j.db.ack").read_text())
        entry, digest = journal._db.execute("SELECT entry, hash FROM events ORDER BY entry DESC LIMIT 1").fetchone()
        assert ack == {"journal": journal.identity, "entries": 2 + seat, "head": digest} and entry == 2 + seat
    journal.close()
    found = inspect(tmp_path / "j.db", SCHEMA_VERSION)
    assert found.whole and (found.matches, found.events, found.entries) == (1, 3, 4)


def test_a_journal_from_before_the_chain_is_chained_as_it_is_opened(tmp_path):
    schema_1_journal(tmp_path / "old.db", (UNDO, "{}"))
    journal = Journal(tmp_path / "old.db")
    assert journal.schema_version() == SCHEMA_VERSION and journal.events(1) == [{"type": "undo"}, {}]
    journal.append(1, {"type": "undo"})
    journal.close()
    found = inspect(tmp_path / "old.db", SCHEMA_VERSION)
    assert found.whole and (found.matches, found.events, found.entries) == (1, 3, 4)


def test_a_full_disk_refuses_the_write_in_words_and_keeps_every_acknowledged_event(tmp_path):
    journal = Journal(tmp_path / "j.db")
    match = journal.start_match("poley", 4, {}, None)
    # A real full disk for SQLite: the database may not grow past the pages it has now.
    pages = journal._db.execute("PRAGMA page_count").fetchone()[0]
    journal._db.execute(f"PRAGMA max_page_count = {pages}")
    acknowledged = []
    with pytest.raises(JournalUnavailable) as refused:
        for n in range(10_000):
            event = {"type": "call", "seat": n % 4, "call": "pass", "note": "x" * 200}
            journal.append(match, event)
            acknowledged.append(event)
    assert "the disk is full" in str(refused.value) and "nothing was recorded" in str(refused.value)
    assert acknowledged and journal.events(match) == acknowledged
    journal.close()
    reopened = Journal(tmp_path / "j.db")
    assert reopened.events(match) == acknowledged
    reopened.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["j.db", "j.db.ack"]
