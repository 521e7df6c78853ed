"""Fixtures of the club's tests: a real PostgreSQL (one server for the session, a new database
for each test) and a real Mosquitto (one for each test), both skipped, saying why, where their
programs are not installed (.ci/run installs them from Debian); and the club's service on them
(``club``: its intake running, its API as the page sees it)."""

from __future__ import annotations

import contextlib
import itertools
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from benchmarks import club_servers as servers

psycopg = pytest.importorskip("psycopg", reason="the club's tests need psycopg (pip install -e '.[test]')")
pytest.importorskip("paho.mqtt", reason="the club's tests need paho-mqtt")

_numbers = itertools.count(1)

CLUB_TOKEN = "the-clubs-token"  # the ``club`` fixture's control token


@pytest.fixture
def club(broker: servers.Broker, database: str, tmp_path: Path) -> Iterator[TestClient]:
    """The club's intake running and subscribed, and its API as the page sees it (token :data:`CLUB_TOKEN`)."""
    from club.app import create_app
    from club.db import migrate
    from club.service import Club
    from tests.club.mqtt import intake, settings

    migrate(database)
    config = settings(broker, database, tmp_path)
    with intake(config) as running, TestClient(create_app(Club(config), CLUB_TOKEN, running)) as client:
        yield client


@pytest.fixture(scope="session")
def pg_server() -> Iterator[servers.Postgres]:
    if servers.postgres_bin() is None:
        pytest.skip("PostgreSQL's server is not installed (apt-get install postgresql)")
    with own_folder("croupier-pg-") as folder, servers.postgres(folder) as server:
        yield server


@pytest.fixture
def database(pg_server: servers.Postgres) -> Iterator[str]:
    """A new, empty database on the session's server; its DSN."""
    name = f"club_{next(_numbers)}"
    with psycopg.connect(pg_server.dsn(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield pg_server.dsn(name)
    with psycopg.connect(pg_server.dsn(), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture
def broker() -> Iterator[servers.Broker]:
    if servers.mosquitto_bin() is None or shutil.which("mosquitto_passwd") is None:
        pytest.skip("Mosquitto is not installed (apt-get install mosquitto)")
    with own_folder("croupier-mqtt-") as folder, servers.mosquitto(folder) as server:
        yield server


@pytest.fixture
def tls_broker() -> Iterator[servers.Broker]:
    """The broker speaking only TLS, with a certificate for 127.0.0.1 from a CA of its own."""
    if servers.mosquitto_bin() is None or shutil.which("mosquitto_passwd") is None or shutil.which("openssl") is None:
        pytest.skip("Mosquitto or openssl is not installed (apt-get install mosquitto openssl)")
    with own_folder("croupier-mqtt-") as folder, servers.mosquitto(folder, tls=True) as server:
        yield server


@contextlib.contextmanager
def own_folder(prefix: str) -> Iterator[Path]:
    """A temporary folder of its own: pytest's are closed to the unprivileged user a server runs as."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
