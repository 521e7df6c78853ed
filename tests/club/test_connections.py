"""The club's page answers from connections it keeps to PostgreSQL between requests (a new one a
request started a database backend each time: benchmarks/club_tables.py measured the cost), and a
kept connection the database has since dropped is replaced, never shown to the page as an error."""

from __future__ import annotations

import psycopg
import pytest
from fastapi.testclient import TestClient

from club.app import create_app
from club.db import migrate
from club.service import Club
from tests.club.mqtt import settings


@pytest.fixture
def page(broker, database, tmp_path):
    migrate(database)
    with TestClient(create_app(Club(settings(broker, database, tmp_path)), "the-token")) as client:
        yield client


def backends(database: str) -> set[int]:
    """The page's connections to its database now (every one but this one's)."""
    with psycopg.connect(database, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return {pid for (pid,) in rows}


def test_the_page_answers_from_a_kept_connection_and_replaces_one_the_database_dropped(page, database):
    assert page.get("/api/tables").json() == []
    kept = backends(database)
    assert len(kept) == 1
    for path in ("/api/tables", "/api/standings", "/api/rounds", "/api/health", "/api/rejected"):
        assert page.get(path).status_code == 200
    assert backends(database) == kept  # the same connection answered them all
    with psycopg.connect(database, autocommit=True) as conn:  # the database drops it (a restart, an admin)
        conn.execute("SELECT pg_terminate_backend(%s)", (kept.pop(),))
    assert page.get("/api/health").json()["messages"] == 0  # answered on a new connection
    assert len(backends(database)) == 1
