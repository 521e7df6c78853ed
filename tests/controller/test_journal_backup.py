"""``croupier journal backup`` (the daily backups, the last N kept) and ``croupier journal
migrate`` (what deploy/update.sh runs), on real journals."""

from __future__ import annotations

import sqlite3
import stat
from datetime import UTC, datetime, timedelta

import pytest

from controller.journal.backups import backup_folder, backups_of, make_backup
from controller.journal.check import inspect
from controller.journal.errors import JournalError
from controller.store import SCHEMA_VERSION, Journal
from tests.conftest import run_croupier
from tests.controller.old_journals import schema_1_journal

DAY = timedelta(days=1)


def a_journal(path, events=3):
    journal = Journal(path)
    match = journal.start_match("poley", 4, {}, None)
    for seat in range(events):
        journal.append(match, {"type": "call", "seat": seat, "call": "pass"})
    return journal


def test_a_backup_is_a_whole_private_copy_made_while_the_table_writes(tmp_path):
    path = tmp_path / "croupier.db"
    journal = a_journal(path)  # open, as the service holds it
    try:
        done = run_croupier("journal", "backup", str(path))
        assert done.returncode == 0, done.stderr
        (made,) = backups_of(path, backup_folder(path))
        assert done.stdout == f"backed up {path} to {made} (1 backups kept)\n"
        copy = inspect(made, SCHEMA_VERSION)
        assert copy.whole and (copy.matches, copy.events) == (1, 3)
        assert stat.S_IMODE(made.stat().st_mode) == 0o600 and stat.S_IMODE(made.parent.stat().st_mode) == 0o700
    finally:
        journal.close()


def test_only_the_newest_backups_are_kept(tmp_path):
    path = tmp_path / "croupier.db"
    a_journal(path).close()
    folder = tmp_path / "daily"
    start = datetime(2026, 3, 1, 4, 0, tzinfo=UTC)
    made = [make_backup(path, folder, 3, SCHEMA_VERSION, start + n * DAY) for n in range(5)]
    assert backups_of(path, folder) == [m.made for m in made[2:]]
    assert made[-1].removed == [made[1].made] and made[3].removed == [made[0].made]
    assert [p.name for p in made[-1].kept] == [f"croupier-2026030{d}T040000Z.db" for d in (3, 4, 5)]
    (folder / "notes.txt").write_text("not a backup: never removed")
    make_backup(path, folder, 1, SCHEMA_VERSION, start + 9 * DAY)
    assert sorted(p.name for p in folder.iterdir()) == ["croupier-20260310T040000Z.db", "notes.txt"]


def test_a_damaged_journal_is_not_backed_up_and_no_older_backup_is_removed(tmp_path):
    path = tmp_path / "croupier.db"
    a_journal(path).close()
    folder = backup_folder(path)
    first = make_backup(path, folder, 1, SCHEMA_VERSION, datetime(2026, 3, 1, tzinfo=UTC)).made
    with sqlite3.connect(path) as db:  # an event changed behind the journal's back
        db.execute("UPDATE events SET event = ? WHERE seq = 1", ('{"type": "undo"}',))
    done = run_croupier("journal", "backup", str(path), "--keep", "1")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(
        f"croupier: not backed up, and no older backup removed: the journal {path} is damaged"
    )
    assert len(done.stderr.splitlines()) == 1
    assert backups_of(path, folder) == [first]


def test_a_missing_journal_is_one_line(tmp_path):
    done = run_croupier("journal", "backup", str(tmp_path / "none.db"))
    assert (done.returncode, done.stderr) == (1, f"croupier: there is no journal at {tmp_path / 'none.db'}\n")
    with pytest.raises(JournalError):
        make_backup(tmp_path / "none.db", tmp_path, 1, SCHEMA_VERSION)


def test_migrate_brings_an_old_journal_to_this_schema_after_a_copy_of_it(tmp_path):
    path = tmp_path / "croupier.db"
    schema_1_journal(path)
    done = run_croupier("journal", "migrate", str(path))
    assert done.returncode == 0, done.stderr
    before = tmp_path / "croupier.db.schema-1"
    assert done.stdout == f"migrated {path} from schema 1 to {SCHEMA_VERSION} (as it was: {before})\n"
    assert inspect(path, SCHEMA_VERSION).schema == SCHEMA_VERSION and inspect(path, SCHEMA_VERSION).whole
    with sqlite3.connect(before) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    again = run_croupier("journal", "migrate", str(path))
    assert again.stdout == f"the journal {path} is at schema {SCHEMA_VERSION}: nothing to migrate\n"


def test_migrate_leaves_a_missing_or_newer_journal_alone(tmp_path):
    assert run_croupier("journal", "migrate", str(tmp_path / "none.db")).stdout == (
        f"there is no journal at {tmp_path / 'none.db'} yet: nothing to migrate\n"
    )
    newer = tmp_path / "newer.db"
    with sqlite3.connect(newer) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    done = run_croupier("journal", "migrate", str(newer))
    assert done.returncode == 1 and "was written by a newer Croupier" in done.stderr
    assert not (tmp_path / f"newer.db.schema-{SCHEMA_VERSION + 1}").exists()
