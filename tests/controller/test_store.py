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
