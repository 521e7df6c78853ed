"""The control token: every action needs it; reading is open unless the settings close it."""

from __future__ import annotations

import stat

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from api.app import create_app
from api.auth import load_or_create_token, token_path
from tests.api.conftest import AUTH, TOKEN, make_runtime, start

ACTIONS = [
    ("/api/matches", {"game": "poley"}),
    ("/api/deals", {"dealer": 0}),
    ("/api/calls", {"seat": 1, "call": "pass"}),
    ("/api/declare", {"seat": 1, "trump": "H"}),
    ("/api/discard", {"seat": 1, "cards": ["AS", "KS", "QS", "JS"]}),
    ("/api/joker-swap", {"seat": 1, "joker": "BJ", "card": None}),
    ("/api/plays", {"seat": 1, "card": "AS"}),
    ("/api/undo", None),
    ("/api/correct", {"card": "AS"}),
    ("/api/pause", {"reason": "tea"}),
    ("/api/resume", None),
]


def observe(client: TestClient, runtime) -> tuple:
    """Everything an action could change: the public state, the journal, the pause."""
    matches = runtime.journal.matches()
    return client.get("/api/table").json(), [(m.id, m.events) for m in matches], runtime.paused


@pytest.mark.parametrize("credentials", [None, "Bearer wrong-token", f"Basic {TOKEN}", "Bearer ", TOKEN])
def test_every_action_without_the_token_is_refused_and_changes_nothing(client, runtime, credentials):
    start(client, "poley")
    client.post("/api/deals", json={"dealer": 0}, headers=AUTH)
    before = observe(client, runtime)
    headers = {"Authorization": credentials} if credentials is not None else {}
    for path, body in ACTIONS:
        answer = client.post(path, json=body, headers=headers)
        assert answer.status_code == 401, (path, answer.text)
        assert "token" in answer.json()["detail"]
        assert answer.headers["www-authenticate"] == "Bearer"
    assert observe(client, runtime) == before


def test_every_action_route_is_in_the_list_above(runtime):
    """A new action route must be added to ACTIONS, so that it is checked for the token."""
    app = create_app(runtime)
    posted = {path for path, methods in app.openapi()["paths"].items() if "post" in methods}
    assert posted == {path for path, _ in ACTIONS}


def test_reading_is_open_by_default_and_closed_by_the_setting(tmp_path):
    runtime = make_runtime(tmp_path, open_reading=False)
    try:
        with TestClient(create_app(runtime)) as client:
            for path in ("/api/table", "/api/matches", "/api/matches/1/log"):
                assert client.get(path).status_code == 401
            assert client.get("/api/table", headers=AUTH).status_code == 200
            assert client.get("/api/health").status_code == 200  # tells nothing about the cards
            with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws") as ws:
                ws.receive_json()
            with client.websocket_connect(f"/ws?token={TOKEN}") as ws:
                assert ws.receive_json()["type"] == "snapshot"
    finally:
        runtime.stop()


def test_the_token_is_made_once_and_kept_for_its_owner_only(tmp_path):
    path = token_path(tmp_path / "table.db")
    token, created = load_or_create_token(path)
    assert created and len(token) >= 40
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.chmod(0o644)
    assert load_or_create_token(path) == (token, False)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
