"""The club tells each table who sits where next: starting a round publishes each table's seating,
retained, on the real broker; real tables (the controller's runtime and its API) show it, and
its page (real chromium) in its "Next round" panel; a malformed seating is ignored with the
reason logged. That a table reads only its own seating is in test_acl.py."""

from __future__ import annotations

import json
import logging
import threading

import pytest
import uvicorn
from fastapi.testclient import TestClient

from api.app import create_app as table_app
from benchmarks.club_servers import CLUB, CLUB_PASSWORD, CLUB_USER
from club.app import create_app
from club.db import migrate
from club.service import Club
from controller.runtime import Runtime
from tests.api.browser import LAPTOP, PHONE, chromium, layout_faults, needs_chromium, tab
from tests.api.conftest import free_port
from tests.club.mqtt import connect, settings, wait_until
from tests.club_link.club import club_settings

TOKEN = "the-clubs-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ROUND = {"method": "rotation", "entrants": ["Ann & Bob", "Cy & Di", "Ed & Flo", "Gus & Hal"], "tables": ["t1", "t2"]}


@pytest.fixture
def club(broker, database, tmp_path):
    migrate(database)
    with TestClient(create_app(Club(settings(broker, database, tmp_path)), TOKEN)) as client:
        yield client


@pytest.fixture
def table(tmp_path, broker):
    """A real table of the club (its runtime, journal and publisher), and its own API."""
    opened: list[tuple[Runtime, TestClient]] = []

    def open_table(name: str) -> TestClient:
        runtime = Runtime.open(club_settings(tmp_path, broker, name), "token")
        client = TestClient(table_app(runtime))
        client.__enter__()
        opened.append((runtime, client))
        wait_until(lambda: runtime.club is not None and runtime.club.publisher.connected, what=f"{name} connected")
        return client

    yield open_table
    for runtime, client in opened:
        client.__exit__(None, None, None)
        runtime.stop()
        runtime.journal.close()


def next_round(client: TestClient) -> dict | None:
    return client.get("/api/table").json()["next_round"]


def test_starting_a_round_shows_each_tables_next_seating_on_its_api(club, table):
    t1 = table("t1")
    assert next_round(t1) is None
    answer = club.post("/api/rounds", json=ROUND, headers=AUTH)
    assert answer.status_code == 201, answer.text
    wait_until(lambda: next_round(t1) is not None, what="t1's next seating")
    t2 = table("t2")  # connects after the round was published: the broker kept its seating for it
    for name, api in [("t1", t1), ("t2", t2)]:
        wait_until(lambda api=api: next_round(api) is not None, what=f"{name}'s next seating")
        expected = club.get(f"/api/tables/{name}/next-seating").json()
        shown = next_round(api)
        assert shown == {"round": 1, "method": "rotation", "seats": expected["seats"]}
        assert {s["entrant"] for s in shown["seats"]} == set(answer.json()["tables"][name])
    # The second round moves the entrants on.
    assert club.post("/api/rounds", json={"method": "rotation"}, headers=AUTH).status_code == 201
    wait_until(lambda: (next_round(t1) or {}).get("round") == 2, what="t1's seating for round 2")
    assert next_round(t1)["seats"] == club.get("/api/tables/t1/next-seating").json()["seats"]


def test_a_table_left_out_of_a_round_has_its_seating_cleared(club, table):
    t2 = table("t2")
    assert club.post("/api/rounds", json=ROUND, headers=AUTH).status_code == 201
    wait_until(lambda: next_round(t2) is not None, what="t2's next seating")
    smaller = {"method": "rotation", "entrants": ["Ann & Bob", "Cy & Di"], "tables": ["t1"]}
    assert club.post("/api/rounds", json=smaller, headers=AUTH).status_code == 201
    wait_until(lambda: next_round(t2) is None, what="t2's seating cleared")


def test_a_malformed_seating_is_ignored_with_the_reason_logged(broker, table, caplog):
    caplog.set_level(logging.WARNING, logger="controller.club_link.link")
    t1 = table("t1")
    topic = f"croupier/{CLUB}/t1/seating"
    good = {"v": 1, "club": CLUB, "table": "t1", "round": 4, "method": "swiss", "seats": [
        {"seat": 0, "side": 0, "entrant": "Ann & Bob"}, {"seat": 1, "side": 1, "entrant": "Cy & Di"}]}  # fmt: skip
    bad = [
        b"not json",
        json.dumps(good | {"table": "t2"}).encode(),
        json.dumps(good | {"seats": [{"seat": 9, "side": 0, "entrant": "X"}]}).encode(),
    ]
    publish_as_club(broker, topic, [*bad, json.dumps(good).encode()])
    wait_until(lambda: next_round(t1) is not None, what="t1's valid seating after the malformed ones")
    assert next_round(t1) == {"round": 4, "method": "swiss", "seats": good["seats"]}
    reasons = [r.getMessage() for r in caplog.records if "ignored the club's seating message" in r.getMessage()]
    assert len(reasons) == 3, reasons
    assert "not JSON" in reasons[0]
    assert "for table 't2'" in reasons[1]
    assert "seats.0.seat" in reasons[2]


def publish_as_club(broker, topic: str, payloads: list[bytes]) -> None:
    client = connect(broker, CLUB_USER, CLUB_PASSWORD)
    try:
        for payload in payloads:
            client.publish(topic, payload, qos=1).wait_for_publish(timeout=60)
    finally:
        client.disconnect()
        client.loop_stop()


@needs_chromium
def test_the_tables_page_shows_the_next_round(club, broker, tmp_path):
    runtime = Runtime.open(club_settings(tmp_path, broker, "t1"), "token")
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(table_app(runtime), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, what="the table's server")
        with chromium() as browser, tab(browser, PHONE) as phone, tab(browser, LAPTOP) as laptop:
            for page in (phone, laptop):
                page.goto(f"http://127.0.0.1:{port}/#display")
                page.wait_for_function("() => document.body.dataset.seq !== undefined")
                assert page.locator("#next-round-panel").is_hidden()  # no round yet: nothing shown
            assert club.post("/api/rounds", json=ROUND, headers=AUTH).status_code == 201
            for page in (phone, laptop):
                page.locator("#next-round-panel").wait_for(state="visible")
                text = page.locator("#next-round").inner_text()
                assert "Round 1" in text and "Seat 1: Ann & Bob (side 1)" in text and "Seat 2: Gus & Hal" in text
                assert layout_faults(page) == []
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        runtime.stop()
        runtime.journal.close()
