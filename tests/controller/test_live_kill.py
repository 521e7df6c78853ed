"""SIGKILL the simulated live table in the middle of a hand, then serve the same journal again:
the table, its scores and the hand in progress are as they were, and the journal replays to what
`croupier referee` says of the exported log."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from engine.log import referee_text
from tests.api.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]


def _until(check, seconds: float, what: str):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while True:
        try:
            found = check()
        except httpx.HTTPError:
            found = None
        if found:
            return found
        assert time.monotonic() < deadline, f"never saw {what}"
        time.sleep(0.1)


def _played(state: dict) -> int:  # type: ignore[type-arg]
    hand = state.get("hand") or {}
    return sum(len(t["cards"]) for t in hand.get("tricks", [])) + len(hand.get("trick", []))


def test_a_killed_table_resumes_exactly_where_it_stopped(tmp_path):
    store = tmp_path / "table.db"
    port = free_port()
    sim = subprocess.Popen(
        [sys.executable, "-m", "controller", "sim", "--port", str(port), "--store", str(store), "--speed", "100"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}/api/table"
        before = _until(lambda: (s := httpx.get(url).json()) and _played(s) >= 3 and s, 120, "three cards played")
    finally:
        os.kill(sim.pid, signal.SIGKILL)
        sim.wait(timeout=10)

    port = free_port()
    env = {
        **os.environ,
        "CROUPIER_STORE__PATH": str(store),
        "CROUPIER_DEALER__PORT": "none",
        "CROUPIER_CAMERA__SOURCE": "none",
    }
    serve = subprocess.Popen(
        [sys.executable, "-m", "controller", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        after = _until(lambda: httpx.get(f"{url}/api/table").json(), 30, "the served table")
        log = httpx.get(f"{url}/api/matches/{after['match_id']}/log").json()
    finally:
        serve.terminate()
        serve.wait(timeout=10)
    # Nothing acknowledged before the kill is lost: the hand in progress goes on from there.
    assert after["match_id"] == before["match_id"] and after["hand"]["number"] == before["hand"]["number"]
    assert _played(after) >= _played(before)
    shown = [c for t in before["hand"]["tricks"] for c in t["cards"]] + before["hand"]["trick"]
    resumed = [c for t in after["hand"]["tricks"] for c in t["cards"]] + after["hand"]["trick"]
    assert resumed[: len(shown)] == shown and after["hand"]["auction"] == before["hand"]["auction"]
    # The journal, exported whole, replays to what the resumed table shows.
    from controller.store import Journal

    journal = Journal(store)
    doc = journal.export(after["match_id"])
    journal.close()
    replayed = referee_text(json.dumps(doc))
    assert replayed.report()["match"] == after["match"]
    assert len(replayed.match.current.current_trick) == len(after["hand"]["trick"])  # type: ignore[union-attr]
    assert log["events"] == doc["events"][: len(log["events"])]  # the export leaves out only the hand in progress
