"""Both sides of docs/club-protocol.md at once: what a table queues for its club passes the club
service's checks, and the club's replay of it is the table's own journal and result."""

from __future__ import annotations

import json

import pytest

from controller.club_link.messages import status
from engine.log import referee_text
from tests.club_link.club import engine_log
from tests.club_link.test_outbox import club_runtime, outbox, play_on

pytest.importorskip("psycopg", reason="the club service's modules need psycopg (pip install -e '.[test]')")

from club.messages import parse_events_message, parse_status, parse_topic
from club.replay import rebuild
from club.store import Stored


@pytest.mark.parametrize(
    ("game", "players"), [("poley", None), ("shelem", None), ("fifty-six", None), ("bid-whist", None), ("nap", 5)]
)
def test_the_club_replays_what_a_table_queued_to_the_table_s_own_journal(tmp_path, game, players):
    runtime = club_runtime(tmp_path / "t.db")
    log = engine_log(game, 2, seed=7, players=players)
    play_on(runtime.controller, log)
    last = log["events"][-1]  # the last hand taken back and ended again: revealed twice
    assert runtime.controller.submit({"type": "undo"}).accepted and runtime.controller.submit(last).accepted
    events_topic = parse_topic("croupier/oak/t1/events", "oak")
    for message in outbox(runtime.journal):
        parse_events_message(events_topic, json.dumps(message).encode())  # raises BadMessage with the reason
    parse_status(
        parse_topic("croupier/oak/t1/status", "oak"), json.dumps(status("oak", "t1", runtime.public_table())).encode()
    )
    stored = [Stored(m["seq"], m["kind"], m.get("hand"), m) for m in outbox(runtime.journal)]
    record = rebuild("t1", runtime.controller.match_id, stored)
    journaled = runtime.journal.export(runtime.controller.match_id)
    assert (record.state, record.problem, record.mismatches) == ("ok", None, [])
    assert record.log["events"] == journaled["events"]
    assert record.report == referee_text(json.dumps(journaled)).report() == runtime.controller.report()
    runtime.journal.close()
