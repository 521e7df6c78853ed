"""Numbers from outside through the API: a match's options and starting standing are bounded,
refused with the field and the bound named, so that no update of the table ever carries a
number that cannot be written out (a Nap pool of 4,300 digits froze every page)."""

from __future__ import annotations

from tests.api.conftest import AUTH


def start(client, body):
    return client.post("/api/matches", json=body, headers=AUTH)


def test_a_starting_pool_of_thousands_of_digits_is_refused_naming_the_field_and_the_bound(client):
    body = '{"game": "nap", "options": {"pool": true}, "start": {"pool": ' + "9" * 4300 + "}}"
    answer = client.post("/api/matches", content=body, headers={**AUTH, "Content-Type": "application/json"})
    assert answer.status_code == 422
    detail = answer.json()["detail"]
    assert "'start.pool'" in detail and "1000000000" in detail and "4300 digits" in detail
    assert len(detail) < 200


def test_numbers_beyond_a_game_s_bounds_are_refused_with_its_bounds(client):
    refused = {
        "pool": ({"game": "nap", "options": {"pool": True}, "start": {"pool": 10**15}}, "'start.pool'"),
        "pool over": ({"game": "nap", "options": {"pool": True}, "start": {"pool": 10**9 + 1}}, "'start.pool'"),
        "score": ({"game": "shelem", "start": {"score": [-(10**12), 0]}}, "'start.score'"),
        "option": ({"game": "bid-whist", "options": {"target": 10**12}}, "'options.target'"),
        "in range": ({"game": "bid-whist", "options": {"target": 100}}, "option 'target' must be a whole number"),
        "negative pool": ({"game": "nap", "options": {"pool": True}, "start": {"pool": -1}}, "from 0 to 1000000000"),
    }
    for case, (body, named) in refused.items():
        answer = start(client, body)
        assert answer.status_code == 422, (case, answer.text)
        assert named in answer.json()["detail"], (case, answer.text)
    assert client.get("/api/table").json()["game"] is None  # nothing was started


def test_a_match_at_the_bounds_starts_and_its_updates_reach_the_page(client):
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        body = {"game": "nap", "options": {"pool": True}, "start": {"pool": 10**9, "score": [-(10**9), 0, 0, 10**9]}}
        assert start(client, body).status_code == 201
        assert ws.receive_json()["state"]["match"]["pool"] == 10**9
        assert client.post("/api/deals", json={"dealer": 0}, headers=AUTH).status_code == 200
        assert ws.receive_json()["event"]["type"] == "deal"
