"""Malformed and hostile requests get a 4xx in words and change nothing; pause, correct, export."""

from __future__ import annotations

import json
import random

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.app import create_app
from tests.api.conftest import AUTH, make_runtime, start
from tests.api.driver import mirror, shuffled_deal


def observe(client: TestClient, runtime) -> tuple:
    return client.get("/api/table").json(), [(m.id, m.events) for m in runtime.journal.matches()], runtime.paused


@pytest.fixture
def dealt(client, runtime):
    """A Poley match with its first hand dealt, in the auction."""
    start(client, "poley")
    deal = shuffled_deal(mirror("poley"), random.Random(1), dealer=0)
    assert client.post("/api/deals", json=deal, headers=AUTH).status_code == 200
    return deal


HOSTILE = [
    ("/api/calls", {"seat": "1", "call": "pass"}, 422, "seat: Input should be a valid integer"),
    ("/api/calls", {"seat": 1.0, "call": "pass"}, 422, "seat"),
    ("/api/calls", {"seat": True, "call": "pass"}, 422, "seat"),
    ("/api/calls", {"seat": 9, "call": "pass"}, 422, "seat"),
    ("/api/calls", {"seat": 5, "call": "pass"}, 422, "'seat' must be a seat from 0 to 3, not 5"),
    ("/api/calls", {"seat": -1, "call": "pass"}, 422, "seat"),
    ("/api/calls", {"seat": 1, "call": "4high"}, 422, "is not a Poley call"),
    ("/api/calls", {"seat": 1, "call": 4}, 422, "call"),
    ("/api/calls", {"seat": 1, "call": "pass", "extra": 1}, 422, "extra: Extra inputs are not permitted"),
    ("/api/calls", [1, 2], 422, "body"),
    ("/api/calls", None, 422, "Field required"),
    ("/api/plays", {"seat": 1, "card": "ZZ"}, 422, "card"),
    ("/api/plays", {"seat": 1, "card": "2C"}, 422, "seat 1 does not hold 2C"),  # not in Poley's pack
    ("/api/plays", {"seat": 1, "card": ["AS"]}, 422, "card"),
    ("/api/discard", {"seat": 1, "cards": ["AS"]}, 422, "Poley has no 'discard' events"),
    ("/api/joker-swap", {"seat": 1, "joker": "BJ", "card": None}, 422, "Poley has no 'joker-swap' events"),
    ("/api/declare", {"seat": 1, "trump": "X"}, 422, "trump"),
    ("/api/declare", {"seat": 1}, 422, "either 'trump' or 'direction'"),
    ("/api/deals", {"hands": [["AS"]], "rest": []}, 422, "hands"),
    ("/api/deals", {"rest": ["AS"]}, 422, "'rest' without 'hands'"),
    ("/api/correct", {"card": "AS"}, 409, "not a play"),
    ("/api/matches", {"game": "chess"}, 422, "game"),
    ("/api/matches", {"game": "nap", "players": 9}, 422, "players"),
    ("/api/matches", {"game": "poley", "options": {"revoke": "shout"}}, 422, "revoke"),
    ("/api/matches", {"game": "poley", "options": {"trumps": "yes"}}, 422, "trumps"),
]


@pytest.mark.parametrize(("path", "body", "status", "words"), HOSTILE)
def test_a_hostile_request_gets_a_clear_4xx_and_changes_nothing(client, runtime, dealt, path, body, status, words):
    before = observe(client, runtime)
    answer = client.post(path, json=body, headers=AUTH)
    assert answer.status_code == status, answer.text
    detail = answer.json()["detail"]
    assert isinstance(detail, str) and words in detail, detail
    assert observe(client, runtime) == before


def test_a_body_that_is_not_json_or_far_too_deep_is_a_4xx(client, runtime, dealt):
    before = observe(client, runtime)
    for text in ("{not json", "[" * 50_000 + "]" * 50_000, '{"seat": 1, "call": "pass"'):
        answer = client.post("/api/calls", content=text, headers={**AUTH, "content-type": "application/json"})
        assert 400 <= answer.status_code < 500, answer.text
    assert observe(client, runtime) == before


def test_a_huge_body_is_refused_with_413_before_it_is_read(client, runtime, dealt):
    before = observe(client, runtime)
    huge = json.dumps({"seat": 1, "call": "pass", "note": "x" * 100_000})
    answer = client.post("/api/calls", content=huge, headers={**AUTH, "content-type": "application/json"})
    assert answer.status_code == 413 and "64 KiB" in answer.json()["detail"]

    def chunks():  # no Content-Length: counted as it arrives
        for _ in range(100):
            yield b" " * 1024

    answer = client.post("/api/calls", content=chunks(), headers={**AUTH, "content-type": "application/json"})
    assert answer.status_code == 413
    assert observe(client, runtime) == before


def test_an_unknown_match_is_404(client):
    answer = client.get("/api/matches/99/log")
    assert answer.status_code == 404 and "no match 99" in answer.json()["detail"]


def test_no_event_before_a_match_is_started(client):
    answer = client.post("/api/calls", json={"seat": 1, "call": "pass"}, headers=AUTH)
    assert answer.status_code == 409 and "no match" in answer.json()["detail"]


def test_a_paused_table_refuses_events_until_it_resumes_even_after_a_restart(client, runtime, dealt, tmp_path):
    paused = client.post("/api/pause", json={"reason": "the dealer jammed"}, headers=AUTH)
    assert paused.status_code == 200 and paused.json()["state"]["paused"] == "the dealer jammed"
    before = observe(client, runtime)
    answer = client.post("/api/calls", json={"seat": 1, "call": "pass"}, headers=AUTH)
    assert answer.status_code == 409 and answer.json()["detail"] == (
        "the table is paused (the dealer jammed): resume it first"
    )
    assert observe(client, runtime) == before
    runtime.stop()
    again = make_runtime(tmp_path)  # a power cut: the pause is kept beside the journal
    try:
        with TestClient(create_app(again)) as second:
            assert second.get("/api/table").json()["paused"] == "the dealer jammed"
            assert second.post("/api/resume", headers=AUTH).status_code == 200
            assert second.post("/api/calls", json={"seat": 1, "call": "pass"}, headers=AUTH).status_code == 200
    finally:
        again.stop()


def test_a_correction_replaces_the_last_card_and_is_journalled_as_such(client, runtime):
    start(client, "nap", players=4)
    referee = mirror("nap", 4)
    deal = shuffled_deal(referee, random.Random(3), dealer=0)
    client.post("/api/deals", json=deal, headers=AUTH)
    for seat in (1, 2, 3, 0):
        client.post("/api/calls", json={"seat": seat, "call": "pass" if seat != 1 else "2"}, headers=AUTH)
    first, second = deal["hands"][1][:2]
    assert client.post("/api/plays", json={"seat": 1, "card": first}, headers=AUTH).status_code == 200
    refused = client.post("/api/correct", json={"card": deal["hands"][2][0]}, headers=AUTH)
    assert refused.status_code == 422 and "East does not hold" in refused.json()["detail"]  # the seat's name
    answer = client.post("/api/correct", json={"card": second}, headers=AUTH)
    assert answer.status_code == 200, answer.text
    assert answer.json()["state"]["hand"]["trick"] == [{"seat": 1, "card": second}]
    events = runtime.journal.events(runtime.controller.match_id)
    assert events[-2:] == [
        {"type": "undo", "note": "correction: the card was misread"},
        {"type": "play", "seat": 1, "card": second, "note": "correction: the card was misread"},
    ]


def test_the_export_leaves_out_a_hand_in_progress(client, dealt):
    log = client.get("/api/matches/1/log").json()
    assert log["events"] == []  # the only hand is in progress
    assert log["format"] == "croupier-table-log" and log["game"] == "poley"


def test_an_illegal_card_under_revoke_reject_is_recorded_but_not_applied(client):
    start(client, "nap", players=4)  # Nap's revoke policy is 'reject' by default
    referee = mirror("nap", 4)
    deal = shuffled_deal(referee, random.Random(11), dealer=0)
    client.post("/api/deals", json=deal, headers=AUTH)
    answer = client.post("/api/plays", json={"seat": 1, "card": deal["hands"][1][0]}, headers=AUTH)
    body = answer.json()
    assert answer.status_code == 200 and body["accepted"] and not body["applied"]
    assert body["violation"]["rule"] == "not-play-now"
    assert body["state"]["hand"]["phase"] == "auction"


ACTION_PATHS = [
    "/api/calls",
    "/api/declare",
    "/api/discard",
    "/api/joker-swap",
    "/api/plays",
    "/api/correct",
    "/api/deals",
    "/api/matches",
    "/api/pause",
]
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
plausible = st.fixed_dictionaries(
    {},
    optional={
        "seat": st.integers(-2, 9) | json_values,
        "call": st.sampled_from(["pass", "1", "2H", "5H", "hold", "4high", "100"]) | json_values,
        "card": st.sampled_from(["AS", "7D", "BJ", "as", "2C", None]) | json_values,
        "cards": st.lists(st.sampled_from(["AS", "KH", "7D"]), max_size=5) | json_values,
        "trump": st.sampled_from(["S", "H", "D", "c", None]) | json_values,
        "direction": st.sampled_from(["high", "low", "up"]) | json_values,
        "joker": st.sampled_from(["BJ", "LJ", "AS"]) | json_values,
        "dealer": st.integers(-1, 5) | json_values,
        "hands": st.lists(st.lists(st.sampled_from(["AS", "7D", "KH"]), max_size=5), max_size=5) | json_values,
        "rest": st.lists(st.sampled_from(["AS", "7D"]), max_size=3) | json_values,
        "game": st.sampled_from(["poley", "nap", "bid-whist", "go"]) | json_values,
        "players": st.integers(0, 9) | json_values,
        "options": st.dictionaries(st.sampled_from(["revoke", "min-call", "x"]), json_values, max_size=2),
        "start": st.dictionaries(st.sampled_from(["score", "horses", "chips"]), json_values, max_size=2),
    },
)


def test_fuzzed_action_bodies_never_make_a_server_error(tmp_path):
    runtime = make_runtime(tmp_path)
    try:
        with TestClient(create_app(runtime)) as client:
            start(client, "poley")
            client.post("/api/deals", json={"dealer": 0}, headers=AUTH)

            @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
            @given(path=st.sampled_from(ACTION_PATHS), body=plausible | json_values)
            def fuzz(path, body):
                answer = client.post(path, json=body, headers=AUTH)
                assert answer.status_code < 500, (path, body, answer.text)
                if answer.status_code >= 400:
                    assert isinstance(answer.json()["detail"], str)

            fuzz()
    finally:
        runtime.stop()
