"""The journal: durable, versioned, exported as a table log."""

from __future__ import annotations

import sqlite3

import pytest

from controller.store import SCHEMA_VERSION, Journal, JournalError


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
    with pytest.raises(JournalError, match="cannot open the journal"):
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
    files = [folder / "journal.db", folder / "journal.db-wal", folder / "journal.db-shm"]
    assert all(f.exists() for f in files)
    assert {f.name: stat.S_IMODE(f.stat().st_mode) for f in files} == {f.name: 0o600 for f in files}
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    journal.close()
