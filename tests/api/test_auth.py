"""The control token: every action needs it; reading is open unless the settings close it."""

from __future__ import annotations

import socket
import stat

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from api.app import create_app
from api.auth import load_or_create_token, token_path
from api.errors import MAX_BODY
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
    ("/api/seating", {"names": ["Anna"]}),
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


def oversized_in_chunks():  # no Content-Length: the body's size is known only as it is read
    for _ in range(MAX_BODY // 1024 + 2):
        yield b" " * 1024


BODIES = [  # a body, and what a token holder is told about it
    ("malformed", b'{"seat": 1, "call": ', 422),
    ("not UTF-8", b"\xff\xfe{}", 422),
    ("wrong shape", b'{"seat": "one"}', 422),
    ("oversized", b"{" + b" " * MAX_BODY + b"}", 413),
    ("oversized, chunked", oversized_in_chunks, 413),
]


def fresh(body):
    return body() if callable(body) else body  # a generator is spent once sent


@pytest.mark.parametrize(("kind", "body", "own_error"), BODIES, ids=[kind for kind, _, _ in BODIES])
def test_the_token_is_checked_before_anything_of_the_body(client, runtime, kind, body, own_error):
    start(client, "poley")
    client.post("/api/deals", json={"dealer": 0}, headers=AUTH)
    before = observe(client, runtime)
    json_type = {"content-type": "application/json"}
    for path, _ in ACTIONS:
        for credentials in ({}, {"Authorization": "Bearer wrong-token"}):
            answer = client.post(path, content=fresh(body), headers={**json_type, **credentials})
            assert answer.status_code == 401, (kind, path, credentials, answer.text)
            assert "token" in answer.json()["detail"]
    takes_a_body = [path for path, example in ACTIONS if example is not None]
    for path in takes_a_body:
        answer = client.post(path, content=fresh(body), headers={**json_type, **AUTH})
        assert answer.status_code == own_error, (kind, path, answer.text)
    assert observe(client, runtime) == before


def test_a_caller_without_the_token_is_answered_before_it_sends_its_body(server):
    """Nothing of the body is read: the 401 comes while the body is still on its way (here it never
    comes). Before, the server waited for the whole body, to decode it."""
    host, port = server.split(":")
    head = b"POST /api/calls HTTP/1.1\r\nHost: table\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
    with socket.create_connection((host, int(port)), timeout=60) as connection:
        connection.sendall(head)
        answer = b""
        try:
            while b"\r\n\r\n" not in answer and (chunk := connection.recv(4096)):
                answer += chunk
        except TimeoutError:
            pytest.fail("no answer in 60 s: the server is waiting for the body of a caller without the token")
    assert answer.startswith(b"HTTP/1.1 401 "), answer
    assert b"www-authenticate: bearer" in answer.lower()


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
