"""A real Mosquitto for the club link's tests, set up as docs/club.md tells a club (a password per
table, an ACL that lets a table write only under its own name); skipped, saying why, without it."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from benchmarks.club_servers import mosquitto, mosquitto_bin

TABLES = ["t1", "t2"]


def _skip_without_mosquitto() -> None:
    if mosquitto_bin() is None or shutil.which("mosquitto_passwd") is None:
        pytest.skip("Mosquitto is not installed (apt-get install mosquitto): the club link is tested on a real broker")


@pytest.fixture
def broker():
    _skip_without_mosquitto()
    # A folder of its own: pytest's are closed to the unprivileged user the broker runs as under root.
    with tempfile.TemporaryDirectory(prefix="croupier-mqtt-") as folder, mosquitto(Path(folder), TABLES) as started:
        yield started


@pytest.fixture
def tls_broker():
    _skip_without_mosquitto()
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: it makes the TLS broker's certificates")
    with (
        tempfile.TemporaryDirectory(prefix="croupier-mqtt-") as folder,
        mosquitto(Path(folder), TABLES, tls=True) as started,
    ):
        yield started
