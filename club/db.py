"""The club's PostgreSQL database: connecting, and the versioned schema migrations.

Migrations are the files ``club/migrations/NNN_name.sql``, applied in order, each in its own
transaction with its row in ``schema_migrations``; an advisory lock lets two services started at
once migrate one after the other, never both."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

import psycopg

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).with_name("migrations")
_FILE_NAME = re.compile(r"(\d{3})_([a-z0-9_]+)\.sql")
_LOCK = 0x43524F55  # the advisory lock's key: any fixed number the database's other users do not take


class DatabaseError(RuntimeError):
    """The club's database cannot be reached or used; the message says which and why."""


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def connect(dsn: str, autocommit: bool = False) -> psycopg.Connection:
    """A connection to the club's database, or DatabaseError in one line."""
    try:
        return psycopg.connect(dsn, autocommit=autocommit, connect_timeout=10)
    except psycopg.Error as exc:
        raise DatabaseError(f"cannot connect to the club's database: {_first_line(exc)}") from None


def migrations(folder: Path = MIGRATIONS) -> list[Migration]:
    """The migrations shipped, in order; a misnamed file or a gap in the numbers is an error."""
    found = []
    for path in sorted(folder.glob("*.sql")):
        named = _FILE_NAME.fullmatch(path.name)
        if named is None:
            raise DatabaseError(f"migration {path.name} is not named NNN_name.sql")
        found.append(Migration(int(named[1]), named[2], path.read_text(encoding="utf-8")))
    for expected, migration in enumerate(found, start=1):
        if migration.version != expected:
            raise DatabaseError(f"migration {expected:03d} is missing (found {migration.version:03d})")
    return found


def migrate(dsn: str, folder: Path = MIGRATIONS) -> list[int]:
    """Bring the schema up to date; return the versions applied now (none if it already was)."""
    applied_now = []
    with connect(dsn, autocommit=True) as conn:
        try:
            conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK,))
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
            for migration in migrations(folder):
                if migration.version not in done:
                    _apply(conn, migration)
                    applied_now.append(migration.version)
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK,))
        except psycopg.Error as exc:
            raise DatabaseError(f"cannot migrate the club's database: {_first_line(exc)}") from None
    return applied_now


def _apply(conn: psycopg.Connection, migration: Migration) -> None:
    with conn.transaction():
        conn.execute(migration.sql)
        conn.execute(
            "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (migration.version, migration.name)
        )
    log.info("applied migration %03d_%s", migration.version, migration.name)


def schema_version(dsn: str) -> int:
    """The newest migration applied (0 for a database never migrated)."""
    with connect(dsn, autocommit=True) as conn:
        exists = conn.execute("SELECT to_regclass('schema_migrations')").fetchone()
        if exists is None or exists[0] is None:
            return 0
        row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()
        return int(row[0]) if row else 0


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
