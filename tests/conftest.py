"""Shared fixtures: the example logs, and running the real ``croupier`` command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

LOGS = Path(__file__).parent / "logs"


def example_logs(game: str) -> list[Path]:
    """Every table log of a game's examples that has an expected result beside it."""
    return sorted(p for p in (LOGS / game).glob("*.json") if not p.name.endswith(".expected.json"))


def expected_for(log: Path) -> Any:
    return json.loads(log.with_name(log.stem + ".expected.json").read_text())


def run_croupier(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the installed command line in a child process, as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "controller", *args], capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture
def croupier():  # type: ignore[no-untyped-def]
    return run_croupier
