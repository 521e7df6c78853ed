"""The club's page and API: control actions need the club's token; rounds seat the entrants and
tell each table who sits where next; the standings of a small known set of matches."""

from __future__ import annotations

from fastapi.testclient import TestClient

from benchmarks.club_servers import CLUB
from simulators.club_messages import play
from tests.club.conftest import CLUB_TOKEN
from tests.club.mqtt import publish, wait_until

ROUND_ONE = {"method": "rotation", "entrants": ["A", "B", "C", "D"], "tables": ["t1", "t2"]}


def control(client: TestClient, verb: str, path: str, body: dict | None = None, token: str | None = CLUB_TOKEN):
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return client.request(verb, path, headers=headers, json=body)


def test_control_actions_are_refused_without_the_clubs_token(club):
    for token in [None, "", "the-clubs-token-", "THE-CLUBS-CLUB_TOKEN", "the-clubs-toke"]:
        for method, path, body in [
            ("POST", "/api/rounds", ROUND_ONE),
            ("POST", "/api/tables/t1/flag", {"reason": "a dispute"}),
            ("DELETE", "/api/tables/t1/flag", {}),
        ]:
            answer = control(club, method, path, body or None, token)
            assert answer.status_code == 401, (method, path, token)
            assert "club's token" in answer.json()["detail"] and answer.headers["www-authenticate"] == "Bearer"
        assert control(club, "POST", "/api/rounds", {"method": "knockout"}, token).status_code == 401  # before the body
    assert club.get("/api/rounds").json() == []


def test_a_table_flagged_by_the_club_shows_the_reason_until_unflagged(club, broker):
    m = play(CLUB, "t1", "nap", seed=1, hands=1)
    publish(broker, "t1", m.payloads())
    wait_until(lambda: club.get("/api/health").json()["messages"] == len(m.messages), what="t1's messages")
    assert control(club, "POST", "/api/tables/t1/flag", {"reason": "a dispute at hand 1"}).status_code == 204
    assert club.get("/api/tables").json()[0]["flags"] == ["flagged by the club: a dispute at hand 1"]
    assert control(club, "DELETE", "/api/tables/t1/flag").status_code == 204
    assert club.get("/api/tables").json()[0]["flags"] == []
    assert control(club, "DELETE", "/api/tables/t1/flag").status_code == 404
    assert club.get("/").status_code == 200 and "Croupier club" in club.get("/").text


def test_rounds_seat_the_entrants_and_the_standings_count_each_rounds_matches(club, broker):
    assert club.get("/api/tables/t1/next-seating").status_code == 404  # no round yet
    first = control(club, "POST", "/api/rounds", ROUND_ONE)
    assert first.status_code == 201 and first.json()["tables"] == {"t1": ["A", "D"], "t2": ["C", "B"]}
    # poley, 4 hands: t1 ends 14-3 (side 0, A, leads), t2 6-17 (side 1, B, leads)
    played = [play(CLUB, "t1", "poley", seed=11, hands=4), play(CLUB, "t2", "poley", seed=12, hands=4)]
    second = control(club, "POST", "/api/rounds", {"method": "swiss"})  # ranking A, B, C, D; A met D, B met C
    assert second.status_code == 201 and second.json()["tables"] == {"t1": ["A", "B"], "t2": ["C", "D"]}
    # round 2's matches start after it: t1 ends 4-12 (B leads), t2 10-6 (C leads)
    played += [
        play(CLUB, "t1", "poley", seed=13, hands=4, match=2),
        play(CLUB, "t2", "poley", seed=14, hands=4, match=2),
    ]
    for m in played:
        publish(broker, m.table, m.payloads())
    wait_until(lambda: club.get("/api/health").json()["messages"] == sum(len(m.messages) for m in played))
    lines = [(s["entrant"], s["played"], s["won"], s["lost"], s["points"]) for s in club.get("/api/standings").json()]
    assert lines == [("B", 2, 2, 0, 4), ("A", 2, 1, 1, 2), ("C", 2, 1, 1, 2), ("D", 2, 0, 2, 0)]
    seating = club.get("/api/tables/t1/next-seating").json()
    assert seating["round"] == 2
    assert [(s["seat"], s["entrant"]) for s in seating["seats"]] == [(0, "A"), (1, "B"), (2, "A"), (3, "B")]
    assert club.get("/api/tables/t9/next-seating").status_code == 404


def test_a_round_that_cannot_be_seated_is_refused_in_words(club):
    answer = control(club, "POST", "/api/rounds", {"method": "rotation", "entrants": list("ABCDE"), "tables": ["t1"]})
    assert answer.status_code == 422 and "need 2 tables" in answer.json()["detail"]
    assert control(club, "POST", "/api/rounds", {"method": "swiss"}).status_code == 422  # the first round names them
    bad_name = control(club, "POST", "/api/rounds", {"method": "swiss", "entrants": ["A", "B"], "tables": ["T 1"]})
    assert bad_name.status_code == 422
