"""`croupier club serve` run as a club runs it: its own process, a real HTTP server."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx

from benchmarks.club_servers import CLUB, CLUB_PASSWORD, CLUB_USER, Broker
from tests.club.mqtt import wait_until

ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def club_service(broker: Broker, database: str, tmp: Path, port: int) -> Iterator[subprocess.Popen]:
    """`croupier club serve` in its own process, answering and subscribed."""
    (tmp / "password").write_text(CLUB_PASSWORD + "\n")
    env = {**os.environ, "CROUPIER_CLUB_PASSWORD_FILE": str(tmp / "password")}
    command = [sys.executable, "-m", "controller", "club", "serve", "--club", CLUB, "--broker", broker.url]
    command += ["--username", CLUB_USER, "--database", database, "--port", str(port)]
    command += ["--token-file", str(tmp / "token")]
    log = (tmp / "serve.log").open("ab")
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: _subscribed(process, port), what="the club service to answer, subscribed")
        yield process
    finally:
        if process.poll() is None:  # stopped as systemd stops it: it leaves cleanly
            process.send_signal(signal.SIGTERM)
            assert process.wait(30) == 0, (tmp / "serve.log").read_text()
        log.close()


def _subscribed(process: subprocess.Popen, port: int) -> bool:
    assert process.poll() is None, f"croupier club serve exited with {process.returncode}"
    try:
        return bool(httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=5).json()["broker"])
    except httpx.HTTPError:
        return False
