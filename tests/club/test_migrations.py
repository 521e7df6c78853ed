"""The schema's migrations run once each, in order, and are recorded with their versions."""

from __future__ import annotations

import psycopg
import pytest

from club.db import DatabaseError, migrate, migrations, schema_version


def test_migrations_run_once_and_are_versioned(database):
    shipped = [m.version for m in migrations()]
    assert shipped == list(range(1, len(shipped) + 1))
    assert schema_version(database) == 0
    assert migrate(database) == shipped
    assert migrate(database) == []  # a second start changes nothing
    assert schema_version(database) == shipped[-1]
    with psycopg.connect(database) as conn:
        rows = conn.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
    assert rows == [(m.version, m.name) for m in migrations()]


def test_a_new_migration_is_applied_alone_and_a_gap_is_refused(database, tmp_path):
    for m in migrations():
        (tmp_path / f"{m.version:03d}_{m.name}.sql").write_text(m.sql)
    migrate(database, tmp_path)
    following = len(migrations()) + 1
    (tmp_path / f"{following:03d}_notes.sql").write_text("CREATE TABLE notes (id integer PRIMARY KEY);")
    assert migrate(database, tmp_path) == [following]
    (tmp_path / f"{following + 2:03d}_later.sql").write_text("SELECT 1;")
    with pytest.raises(DatabaseError, match=f"migration {following + 1:03d} is missing"):
        migrate(database, tmp_path)


def test_an_unreachable_database_is_one_clear_line():
    with pytest.raises(DatabaseError, match="cannot connect to the club's database"):
        migrate("postgresql://nobody@127.0.0.1:1/none")
