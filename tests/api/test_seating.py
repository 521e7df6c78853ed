"""The table names its seats (Setup's POST /api/seating): checked, kept beside the journal across a
restart, and used in everything the table says, its violations' sentences included."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from api.app import create_app
from tests.api.conftest import AUTH, make_runtime, start

DEAL = {  # Poley, North deals: East (seat 1) is first to call
    "dealer": 0,
    "hands": [
        ["AS", "KS", "QS", "JS", "TS"],
        ["AH", "KH", "QH", "JH", "TH"],
        ["AC", "KC", "QC", "JC", "TC"],
        ["9S", "8S", "9H", "8H", "9C"],
    ],
    "rest": ["8C", "7D"],
}


def test_names_are_kept_and_used_in_the_state_and_the_violations(client: TestClient, tmp_path: Path) -> None:
    answer = client.post("/api/seating", json={"names": ["Anna", " Ben ", "", "Dora"], "letters": True}, headers=AUTH)
    assert answer.status_code == 200, answer.text
    start(client, "poley")
    client.post("/api/deals", json=DEAL, headers=AUTH)
    state = client.get("/api/table").json()
    assert state["seat_names"]["names"] == ["Anna", "Ben", "South", "Dora"]
    assert state["seating"] == {"names": ["Anna", "Ben", "", "Dora"], "letters": True}
    wrong = client.post("/api/calls", json={"seat": 3, "call": "2H"}, headers=AUTH).json()
    assert wrong["violation"]["rule"] == "out-of-turn"
    assert wrong["violation"]["text"] == "Dora called 2 hot out of turn: it is Ben's turn"
    assert wrong["violation"]["message"] == "seat 3 acted out of turn: it is seat 1's turn"  # the log's record


def test_the_names_survive_a_restart(tmp_path: Path) -> None:
    first = make_runtime(tmp_path)
    with TestClient(create_app(first)) as client:
        assert client.post("/api/seating", json={"names": ["Anna"]}, headers=AUTH).status_code == 200
    first.stop()
    first.journal.close()
    again = make_runtime(tmp_path)
    with TestClient(create_app(again)) as client:
        start(client, "nap", players=3)
        assert client.get("/api/table").json()["seat_names"]["names"] == ["Anna", "South-east", "South-west"]
    again.stop()
    again.journal.close()


def test_a_damaged_seating_file_leaves_the_compass_points(tmp_path: Path) -> None:
    (tmp_path / "table.db.seating").write_text('{"names": [1, 2]}')
    runtime = make_runtime(tmp_path)
    with TestClient(create_app(runtime)) as client:
        start(client, "poley")
        assert client.get("/api/table").json()["seat_names"]["names"] == ["North", "East", "South", "West"]
    runtime.stop()
    runtime.journal.close()


def test_a_name_that_cannot_be_used_is_refused_in_one_line_and_changes_nothing(client: TestClient) -> None:
    client.post("/api/seating", json={"names": ["Anna"]}, headers=AUTH)
    for body, words in [
        ({"names": ["Anna", "anna"]}, "seat 1 cannot be called 'anna': seat 0 has that name"),
        ({"names": ["East"]}, "compass point"),
        ({"names": ["x" * 17]}, "at most 16"),
        ({"names": ["x" * 65]}, "names.0"),
        ({"names": ["a"] * 9}, "names"),
        ({"names": "Anna"}, "names"),
        ({"names": [], "letters": "yes"}, "letters"),
        ({"names": [], "colour": "red"}, "colour"),
    ]:
        answer = client.post("/api/seating", json=body, headers=AUTH)
        assert answer.status_code == 422 and words in answer.json()["detail"], (body, answer.text)
    assert client.get("/api/table").json()["seating"]["names"] == ["Anna"]


def test_naming_the_seats_needs_the_token(client: TestClient) -> None:
    assert client.post("/api/seating", json={"names": ["Anna"]}).status_code == 401
    assert client.get("/api/table").json()["seating"]["names"] == []
