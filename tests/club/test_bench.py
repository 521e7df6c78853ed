"""`croupier bench club` runs the club end to end (real tables, Mosquitto, `croupier club serve`,
PostgreSQL) and reports its figures; what it measures is benchmarks/club_tables.py's, not checked
here for speed (no timed assertion), only that every event it played reached the club's page."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.club_tables import missing

ROOT = Path(__file__).resolve().parents[2]


def test_croupier_bench_club_plays_real_tables_through_to_the_clubs_page():
    if missing() is not None:
        pytest.skip(missing())
    command = [sys.executable, "-m", "controller", "bench", "club", "--tables", "3", "--hands", "1"]
    done = subprocess.run([*command, "--live-s", "3", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["tables"] == 3 and figures["lost"] == 0
    assert figures["live_events"] == 9  # three events a table at one a second, each shown by the page's API
    assert figures["messages"] > figures["events"] > 0  # every event, and each match's and hand's messages
    assert figures["events_per_s"] > 0 and figures["page_p95_ms"] >= figures["page_p50_ms"] > 0
    assert figures["command"] == "croupier bench club --tables 3 --hands 1 --live-s 3 --pace-s 1"
