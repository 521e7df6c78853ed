"""A runtime on a temporary journal, and the app around it."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi.testclient import TestClient

from api.app import create_app
from controller.runtime import Runtime
from controller.settings import Settings

TOKEN = "test-control-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def make_runtime(path: Path, **api: Any) -> Runtime:
    settings = Settings(store={"path": path / "table.db"}, api=api)  # type: ignore[arg-type]
    return Runtime.open(settings, TOKEN)


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Runtime]:
    rt = make_runtime(tmp_path)
    yield rt
    rt.stop()
    rt.journal.close()


@pytest.fixture
def client(runtime: Runtime) -> Iterator[TestClient]:
    with TestClient(create_app(runtime)) as c:
        yield c


def start(client: TestClient, game: str, **body: Any) -> int:
    answer = client.post("/api/matches", json={"game": game, **body}, headers=AUTH)
    assert answer.status_code == 201, answer.text
    return int(answer.json()["match_id"])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """A real uvicorn server on 127.0.0.1 and a free port, in a thread; yields host:port."""
    runtime = make_runtime(tmp_path)
    port = free_port()
    config = uvicorn.Config(create_app(runtime), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    yield f"127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
    runtime.stop()
    runtime.journal.close()
