"""The outbox in the journal: written with the records it comes from, numbered for good, rebuilt
for a match in progress, and outside the hash chain (no broker needed here)."""

from __future__ import annotations

import json

import pytest

from controller.journal.check import inspect
from controller.runtime import Runtime
from controller.settings import Settings
from controller.store import SCHEMA_VERSION, Journal, JournalError
from controller.table import TableController
from tests.club_link.club import engine_log
from tests.controller.old_journals import schema_1_journal

CLUB = {"broker": "mqtt://127.0.0.1:9", "club": "oak", "table": "t1", "password": "pw"}  # never started here


def club_runtime(path) -> Runtime:
    """A table in a club whose publisher is not started: what it queues stays in the outbox."""
    return Runtime.open(Settings(store={"path": path}, club=CLUB), "token")  # type: ignore[arg-type]


def outbox(journal: Journal) -> list[dict]:
    rows = journal._db.execute("SELECT body FROM outbox ORDER BY id").fetchall()
    return [json.loads(body) for (body,) in rows]


def without_time(messages: list[dict]) -> list[dict]:
    return [{k: v for k, v in m.items() if k != "at"} for m in messages]


def play_on(controller: TableController, log: dict) -> None:
    controller.start_match(log["game"], log.get("players"), log.get("options"), log.get("start"))
    for event in log["events"]:
        assert controller.submit(event).accepted


def test_each_message_is_written_with_its_record_or_not_at_all(tmp_path):
    runtime = club_runtime(tmp_path / "t.db")
    log = engine_log("nap", 1, seed=1, players=3)
    controller, journal = runtime.controller, runtime.journal
    controller.start_match("nap", 3)
    assert controller.submit(log["events"][0]).accepted
    entries = inspect(journal.path, SCHEMA_VERSION).entries
    journal._db.execute("CREATE TRIGGER refuse BEFORE INSERT ON outbox BEGIN SELECT RAISE(ABORT, 'refused'); END")
    with pytest.raises(JournalError):
        controller.submit(log["events"][1])  # the outbox refuses its message: the event is not journaled either
    assert journal.event_count(controller.match_id) == 1 and len(outbox(journal)) == 2
    journal._db.execute("DROP TRIGGER refuse")
    assert controller.submit(log["events"][1]).accepted
    assert [m["seq"] for m in outbox(journal)] == [1, 2, 3] and [m["kind"] for m in outbox(journal)][-1] == "event"
    journal.close()
    found = inspect(journal.path, SCHEMA_VERSION)
    assert found.whole and found.entries == entries + 1  # the chain counts matches and events, not messages


def test_a_message_keeps_its_seq_after_the_rows_before_it_were_sent(tmp_path):
    runtime = club_runtime(tmp_path / "t.db")
    log = engine_log("nap", 1, seed=1, players=3)
    runtime.controller.start_match("nap", 3)
    runtime.journal._db.execute("DELETE FROM outbox")  # the broker took the match message
    assert runtime.controller.submit(log["events"][0]).accepted
    assert [(m["kind"], m["seq"]) for m in outbox(runtime.journal)] == [("event", 2)]


def test_a_hand_reopened_by_an_undo_is_revealed_again_when_it_ends_again(tmp_path):
    runtime = club_runtime(tmp_path / "t.db")
    log = engine_log("nap", 1, seed=6, players=3)
    play_on(runtime.controller, log)
    last = log["events"][-1]
    assert runtime.controller.submit({"type": "undo"}).accepted and runtime.controller.submit(last).accepted
    kinds = [m["kind"] for m in outbox(runtime.journal)]
    assert kinds[-7:] == ["event", "reveal", "result", "event", "event", "reveal", "result"]
    reveals = [m for m in outbox(runtime.journal) if m["kind"] == "reveal"]
    assert reveals[1]["entries"] == list(range(len(log["events"]) + 2)) and reveals[1]["events"][-1] == last


def test_a_match_in_progress_when_the_table_joins_is_queued_from_its_start_as_it_was_made_live(tmp_path):
    log = engine_log("bid-whist", 2, seed=9)
    live = club_runtime(tmp_path / "live.db")
    play_on(live.controller, log)
    plain = TableController(Journal(tmp_path / "plain.db"))  # no club: nothing queued
    play_on(plain, log)
    assert outbox(plain.journal) == []
    plain.journal.close()
    joined = club_runtime(tmp_path / "plain.db")
    assert without_time(outbox(joined.journal)) == without_time(outbox(live.journal))
    hands = sum(e["type"] == "deal" for e in log["events"])
    assert len(outbox(joined.journal)) == 1 + len(log["events"]) + 2 * hands
    joined.journal.close()
    again = club_runtime(tmp_path / "plain.db")  # once queued, never again
    assert len(outbox(again.journal)) == 1 + len(log["events"]) + 2 * hands


def test_an_older_journal_gains_the_outbox_and_keeps_its_chain(tmp_path):
    path = tmp_path / "old.db"
    schema_1_journal(path)
    journal = Journal(path)
    assert journal.schema_version() == SCHEMA_VERSION == 3
    assert outbox(journal) == [] and journal.events(1) == [{"type": "undo"}]
    journal.close()
    found = inspect(path, SCHEMA_VERSION)
    assert found.whole and (found.matches, found.events) == (1, 1)
