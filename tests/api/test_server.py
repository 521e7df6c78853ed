"""Against a real server: uvicorn on 127.0.0.1 and a free port, httpx, a real WebSocket client;
and ``croupier serve`` as a user starts it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import httpx
from websockets.sync.client import connect

from tests.api.conftest import AUTH, free_port


def test_a_real_server_serves_the_table_and_its_websocket(server):
    with httpx.Client(base_url=f"http://{server}", timeout=10) as http:
        assert http.get("/api/health").json()["status"] == "ok"
        assert http.post("/api/matches", json={"game": "poley"}).status_code == 401
        assert http.post("/api/matches", json={"game": "poley"}, headers=AUTH).status_code == 201
        with connect(f"ws://{server}/ws", open_timeout=10) as ws:
            snapshot = json.loads(ws.recv(timeout=10))
            assert snapshot["type"] == "snapshot" and snapshot["state"]["game"] == "poley"
            assert http.post("/api/deals", json={"dealer": 1}, headers=AUTH).status_code == 200
            assert http.post("/api/calls", json={"seat": 2, "call": "pass"}, headers=AUTH).status_code == 200
            updates = [json.loads(ws.recv(timeout=10)) for _ in range(2)]
        assert [u["seq"] for u in updates] == [snapshot["seq"] + 1, snapshot["seq"] + 2]
        assert updates[0]["event"]["cards_per_seat"] == [5, 5, 5, 5]
        assert "/api/calls" in http.get("/openapi.json").json()["paths"]
        assert http.get("/docs").status_code == 200
        huge = http.post("/api/calls", content=b"{" + b" " * 70_000 + b"}", headers=AUTH)
        assert huge.status_code == 413


def test_croupier_serve_prints_the_token_once_and_serves(tmp_path):
    env = {**os.environ, "CROUPIER_STORE__PATH": str(tmp_path / "table.db")}
    port = free_port()
    for run in range(2):
        child = subprocess.Popen(
            [sys.executable, "-m", "controller", "serve", "--port", str(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            lines = []
            while not (line := child.stdout.readline()).startswith("croupier: serving"):  # type: ignore[union-attr]
                assert line, child.stderr.read()  # type: ignore[union-attr]
                lines.append(line)
            token = (tmp_path / "table.db.token").read_text().strip()
            devices = (
                "croupier: dealing machine simulated; camera simulated; panel pins mock (no GPIO); "
                f"journal {tmp_path / 'table.db'}; control token kept in {tmp_path / 'table.db.token'}\n"
            )
            shown = [f"control token (shown once; kept in {tmp_path / 'table.db.token'}): {token}\n"]
            assert lines == (shown if run == 0 else []) + [devices]  # the devices on every start
            deadline = time.monotonic() + 10
            while True:
                try:
                    answer = httpx.post(
                        f"http://127.0.0.1:{port}/api/matches",
                        json={"game": "nap", "players": 3},
                        headers={"Authorization": f"Bearer {token}"},
                    )
                    break
                except httpx.ConnectError:
                    assert time.monotonic() < deadline
                    time.sleep(0.05)
            assert answer.status_code == 201 and answer.json()["match_id"] == run + 1
        finally:
            child.terminate()
            child.wait(timeout=10)


def test_a_start_that_fails_on_its_devices_still_shows_the_token_it_made(tmp_path):
    env = {
        **os.environ,
        "CROUPIER_STORE__PATH": str(tmp_path / "table.db"),
        "CROUPIER_DEALER__PORT": str(tmp_path / "no-such-port"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "controller", "serve", "--port", str(free_port())],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2 and "no such port" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr  # one line, no traceback
    token = (tmp_path / "table.db.token").read_text().strip()
    assert f"control token (shown once; kept in {tmp_path / 'table.db.token'}): {token}" in done.stdout
