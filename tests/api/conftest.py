"""A runtime on a temporary journal, and the app around it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
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
