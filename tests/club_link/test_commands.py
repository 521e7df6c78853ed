"""``croupier serve`` and ``croupier sim`` publish to the club their settings name."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from benchmarks.club_servers import CLUB, free_port, password_of
from tests.club_link.club import WAIT_S, Collector

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def club(broker):
    collector = Collector(broker)
    yield collector
    collector.close()


def club_section(broker, table: str) -> str:
    return f'[club]\nbroker = "{broker.url}"\nclub = "{CLUB}"\ntable = "{table}"\npassword = "{password_of(table)}"\n'


def test_croupier_serve_publishes_its_status_and_matches_and_says_goodbye(tmp_path, broker, club):
    port = free_port()
    config = tmp_path / "croupier.toml"
    config.write_text(
        f'[dealer]\nport = "none"\n[camera]\nsource = "none"\n[store]\npath = "{tmp_path / "t.db"}"\n'
        f"[api]\nport = {port}\n" + club_section(broker, "t1")
    )
    serve = subprocess.Popen(
        [sys.executable, "-m", "controller", "serve", "--config", str(config)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        token = serve.stdout.readline().rsplit(" ", 1)[-1].strip()  # the first line gives the control token
        club.wait(lambda: club.statuses("t1") and club.statuses("t1")[-1]["online"], "the table's status")
        answer = httpx.post(
            f"http://127.0.0.1:{port}/api/matches",
            json={"game": "nap", "players": 4},
            headers={"Authorization": f"Bearer {token}"},
            timeout=WAIT_S,
        )
        assert answer.status_code == 201, answer.text
        club.wait(lambda: club.events("t1"), "the match message")
        assert (club.events("t1")[0]["kind"], club.events("t1")[0]["game"]) == ("match", "nap")
        club.wait(lambda: club.statuses("t1")[-1]["game"] == "nap", "the status of the new match")
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(WAIT_S) == 0, serve.stderr.read()
        club.wait(lambda: club.statuses("t1")[-1]["online"] is False, "the goodbye")
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
        serve.stdout.close()
        serve.stderr.close()


def test_croupier_sim_publishes_a_hand_with_the_club_of_its_config(tmp_path, broker, club):
    config = tmp_path / "club.toml"
    config.write_text(club_section(broker, "t2"))
    command = [sys.executable, "-m", "controller", "sim", "--game", "nap", "--players", "3", "--headless"]
    command += ["--hands", "1", "--seed", "2", "--config", str(config), "--store", str(tmp_path / "sim.db")]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    club.wait(lambda: any(m["kind"] == "result" for m in club.events("t2")), "the hand's result")
    kinds = [m["kind"] for m in club.events("t2")]
    assert kinds[0] == "match" and kinds[-2:] == ["reveal", "result"] and set(kinds[1:-2]) == {"event"}
    club.wait(lambda: club.statuses("t2")[-1]["online"] is False, "the goodbye")


def test_a_bad_club_section_stops_the_commands_with_its_reason(tmp_path):
    config = tmp_path / "club.toml"
    config.write_text('[club]\nbroker = "mqtt://127.0.0.1"\nclub = "oak"\ntable = "T 1"\npassword = "x"\n')
    for command in (["serve"], ["sim", "--headless"]):
        done = subprocess.run(
            [sys.executable, "-m", "controller", *command, "--config", str(config)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode != 0 and "setting 'club.table': 'T 1' is not a name" in done.stderr, done.stderr
