"""`croupier sim` through the real code paths, as the README's first command runs it."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_croupier


@pytest.mark.slow
def test_the_simulated_table_plays_a_hand_whose_log_replays_to_the_same_result(tmp_path):
    log = tmp_path / "match.json"
    args = ("sim", "--game", "nap", "--players", "2", "--headless", "--hands", "1", "--speed", "200")
    done = run_croupier(*args, "--seed", "4", "--json", "--log", str(log), "--store", str(tmp_path / "t.db"))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert len(result["hands"]) == 1 and result["hands"][0]["result"] is not None
    replayed = run_croupier("referee", "--json", str(log))
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == result
    # The journal kept every event: the same match, read back from SQLite.
    events = json.loads(log.read_text())["events"]
    assert events[0]["type"] == "deal" and any(e["type"] == "play" for e in events)


def test_sim_refuses_a_port_that_is_taken_in_one_line():
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        done = run_croupier("sim", "--headless", "--hands", "1", "--port", port)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "cannot serve the page" in done.stderr


@pytest.mark.slow
def test_bench_table_reports_latency_and_cpu_per_client_count():
    done = run_croupier("bench", "table", "--clients", "3", "--cards", "3", "--json")
    assert done.returncode == 0, done.stderr
    [run] = json.loads(done.stdout)
    latency, cpu = run["latency"], run["cpu"]
    assert latency["clients"] == 3 and latency["cards"] >= 3
    assert latency["messages"] >= 3 * 3  # every client heard every play
    assert 0 < latency["median_ms"] <= latency["p95_ms"] <= latency["max_ms"]
    assert cpu["table_cpu_s"] > 0 and cpu["simulator_cpu_s"] > 0 and "table-controller" in cpu["threads"]


def test_sigterm_stops_the_simulated_table_and_leaves_no_temporary_files(tmp_path):
    # systemd and kill stop with SIGTERM: the pseudo-terminal's folder and the temporary journal
    # must go as they do on Ctrl-C.
    import os
    import signal
    import subprocess
    import sys
    import time

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    import socket

    with socket.create_server(("127.0.0.1", 0)) as probe:
        free = str(probe.getsockname()[1])
    args = [sys.executable, "-m", "controller", "sim", "--headless", "--hands", "50", "--speed", "1", "--port", free]
    table = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        started = time.monotonic()
        while {p.name.split("-")[1] for p in scratch.glob("croupier-*")} < {"sim", "dealer"}:
            assert table.poll() is None, table.stderr.read() if table.stderr else ""
            assert time.monotonic() - started < 120, "the table never started"
            time.sleep(0.1)
        table.send_signal(signal.SIGTERM)
        table.wait(timeout=60)
    finally:
        if table.poll() is None:
            table.kill()
    assert table.returncode != 0  # stopped, not finished
    assert list(scratch.glob("croupier-*")) == []  # (onnxruntime keeps a session-id file of its own there)


@pytest.mark.slow
def test_a_headless_run_without_hands_or_speed_plays_one_hand_at_full_speed(tmp_path):
    log = tmp_path / "m.json"
    done = run_croupier(
        "sim", "--game", "nap", "--players", "2", "--headless", "--json", "--seed", "4", "--log", str(log)
    )
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["hands"]) == 1
    assert json.loads(log.read_text())["events"][0]["type"] == "deal"
