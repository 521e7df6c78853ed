"""Shared fixtures: the example logs, and running the real ``croupier`` command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

LOGS = Path(__file__).parent / "logs"

# No test may depend on the machine's speed: Hypothesis's per-example deadline and its "too slow"
# check fail a loaded machine's run that an idle one passes. Speed is measured in benchmarks/.
settings.register_profile("any-speed", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("any-speed")


def example_logs(game: str) -> list[Path]:
    """Every table log of a game's examples that has an expected result beside it."""
    return sorted(p for p in (LOGS / game).glob("*.json") if not p.name.endswith(".expected.json"))


def expected_for(log: Path) -> Any:
    return json.loads(log.with_name(log.stem + ".expected.json").read_text())


def run_croupier(
    *args: str, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed command line in a child process, as a user would (``env``: variables
    added to the environment)."""
    return subprocess.run(
        [sys.executable, "-m", "controller", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, **env} if env else None,
    )


def referee_log(tmp_path: Path, doc: Any, *flags: str) -> subprocess.CompletedProcess[str]:
    """Write ``doc`` as a table log and run ``croupier referee --json`` on it."""
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc))
    return run_croupier("referee", "--json", *flags, str(path))


def assert_malformed_at(done: subprocess.CompletedProcess[str], event: int | None) -> str:
    """A malformed log: exit 2, nothing on stdout, one line on stderr naming the event."""
    assert done.returncode == 2, done.stdout
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr  # one clear line, never a traceback
    if event is not None:
        assert f"event {event}:" in lines[0]
    return lines[0]


def example_log(game: str, name: str) -> Any:
    """A fresh copy of an example log, to change in a test."""
    return json.loads((LOGS / game / f"{name}.json").read_text())


@pytest.fixture
def croupier():  # type: ignore[no-untyped-def]
    return run_croupier
