"""A real table's status on the club's page, live: whose turn, paused from the table's page, and
held by a device that cannot go on (flagged on the club's page with why), each cleared when the
table goes on (the table's runtime, its publisher, Mosquitto, the intake and PostgreSQL)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from controller.runtime import Runtime
from tests.club.mqtt import wait_until
from tests.club_link.club import WAIT_S, club_settings, engine_log, play, start_match


@pytest.fixture
def runtime(broker, tmp_path):
    table = Runtime.open(club_settings(tmp_path, broker, "t1"), "token")
    table.start()
    yield table
    table.stop()
    table.journal.close()


def shown(club: TestClient) -> dict:
    tables = club.get("/api/tables").json()
    return tables[0] if tables else {}


def test_a_paused_or_held_table_is_shown_so_on_the_clubs_page_until_it_goes_on(club, runtime):
    log = engine_log("nap", 1, seed=4, players=4)
    start_match(runtime, log)
    play(runtime, log["events"][:3])
    wait_until(lambda: shown(club).get("to_act") is not None and shown(club)["game"] == "nap", what="the table live")
    assert not shown(club)["held"] and not shown(club)["paused"] and shown(club)["flags"] == []

    runtime.pause("tea").result(WAIT_S)
    wait_until(lambda: shown(club)["paused"], what="the table shown paused")
    runtime.resume().result(WAIT_S)
    wait_until(lambda: not shown(club)["paused"], what="the table shown playing again")

    runtime.hold("dealer", "the dealing machine's cable is out").result(WAIT_S)
    wait_until(lambda: shown(club)["held"], what="the table shown held")
    assert [f for f in shown(club)["flags"] if f.startswith("held: ")]  # marked on the club, with why
    runtime.release("dealer").result(WAIT_S)
    wait_until(lambda: not shown(club)["held"], what="the table shown going on")
    assert shown(club)["flags"] == [] and shown(club)["online"]
