"""The table controller: one writer, the referee, the journal, then subscribers; and resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from controller.store import Journal, JournalUnavailable
from controller.table import TableController
from engine.log import referee_text
from tests.conftest import LOGS, expected_for

P1 = LOGS / "poley" / "p1-two-hot-made.json"
P7 = LOGS / "poley" / "p7-long-auction.json"


def new_table(tmp_path: Path) -> TableController:
    return TableController(Journal(tmp_path / "table.db"))


def play_log(table: TableController, path: Path) -> list:
    log = json.loads(path.read_text())
    table.start_match(log["game"], log.get("players"), log.get("options"), log.get("start"))
    return [table.submit(event) for event in log["events"]]


def test_events_are_judged_journalled_and_give_the_referees_result(tmp_path):
    table = new_table(tmp_path)
    outcomes = play_log(table, P1)
    assert all(o.accepted and o.violation is None for o in outcomes)
    assert [o.index for o in outcomes] == list(range(len(outcomes)))
    assert table.report() == expected_for(P1)
    assert referee_text(json.dumps(table.journal.export(table.match_id))).report() == expected_for(P1)


def test_a_violation_is_journalled_and_published_with_its_rule(tmp_path):
    table = new_table(tmp_path)
    seen = []
    table.subscribers.append(seen.append)
    outcomes = play_log(table, P7)
    (broken,) = [o for o in outcomes if o.violation]
    assert broken.violation["rule"] == "hold-by-younger-hand"
    assert [u.violation for u in seen if u.violation] == [broken.violation]
    assert table.report() == expected_for(P7)


def test_a_malformed_event_is_refused_and_changes_nothing(tmp_path):
    table = new_table(tmp_path)
    play_log(table, P7)
    before, count = table.report(), table.journal.event_count(table.match_id)
    for bad in ({"type": "play", "seat": 0, "card": "AS"}, {"type": "call", "seat": 9, "call": "1"}, {"type": "shout"}):
        outcome = table.submit(bad)
        assert not outcome.accepted and outcome.reason
    assert table.report() == before and table.journal.event_count(table.match_id) == count


def test_subscribers_hear_only_what_the_journal_already_holds(tmp_path):
    table = new_table(tmp_path)
    heard = []
    table.subscribers.append(lambda u: heard.append((u.seq, table.journal.event_count(u.match_id))))
    table.subscribers.append(lambda u: 1 / 0)  # a broken subscriber must not stop the table
    outcomes = play_log(table, P1)
    assert [seq for seq, _ in heard] == list(range(1, len(outcomes) + 1))
    assert all(journalled >= seq for seq, journalled in heard)


def test_a_restarted_controller_resumes_the_match_in_progress(tmp_path):
    table = new_table(tmp_path)
    log = json.loads(P1.read_text())
    table.start_match("poley")
    for event in log["events"][:14]:  # stop in the middle of the second trick
        assert table.submit(event).accepted
    before = table.report()
    table.journal.close()
    resumed = new_table(tmp_path)
    assert resumed.report() == before and resumed.report()["hands"][0]["phase"] == "play"
    for event in log["events"][14:]:
        assert resumed.submit(event).accepted
    assert resumed.report() == expected_for(P1)


def test_a_failed_journal_write_is_raised_and_keeps_the_journal_as_truth(tmp_path):
    table = new_table(tmp_path)
    log = json.loads(P1.read_text())
    table.start_match("poley")
    for event in log["events"][:5]:
        table.submit(event)
    before = table.report()

    def broken_append(match_id, event, club=()):
        raise JournalUnavailable("cannot write to the journal: disk full")

    table.journal.append = broken_append  # type: ignore[method-assign]
    with pytest.raises(JournalUnavailable, match="disk full"):  # the table's trouble (503), not the event's
        table.submit(log["events"][5])
    assert table.report() == before


def test_events_posted_from_many_threads_are_applied_one_at_a_time(tmp_path):
    table = new_table(tmp_path)
    table.start_match("poley")
    table.start()
    log = json.loads(P1.read_text())
    assert table.post(log["events"][0]).result(timeout=10).accepted
    # Four threads all try every call; exactly the legal sequence gets through, in order.
    calls = log["events"][1:10]
    results = []

    def hammer():
        for event in calls:
            results.append(table.post(event).result(timeout=10))

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    table.stop()
    journalled = table.journal.events(table.match_id)
    assert journalled[0]["type"] == "deal" and len(journalled) == 1 + sum(r.accepted for r in results)
    recorded = table.report()["hands"][0]["violations"]
    assert recorded == sorted((r.violation for r in results if r.violation), key=lambda v: v["event"])


KILLED_TABLE = textwrap.dedent(
    """
    import json, sys
    from controller.store import Journal
    from controller.table import TableController
    table = TableController(Journal(sys.argv[1]))
    events = json.load(open(sys.argv[2]))["events"]
    table.start_match("poley")
    for event in events:
        outcome = table.submit(event)
        print("ack", outcome.index, flush=True)
        if outcome.index == int(sys.argv[3]):
            sys.stdin.read()  # wait, mid-hand, to be killed
    """
)


@pytest.mark.parametrize("kill_after", [3, 12])
def test_sigkill_mid_hand_loses_nothing_that_was_acknowledged(tmp_path, kill_after):
    db = tmp_path / "table.db"
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_TABLE, str(db), str(P1), str(kill_after)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    acked = []
    assert child.stdout is not None
    for line in child.stdout:
        acked.append(int(line.split()[1]))
        if acked[-1] == kill_after:
            break
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=10)

    resumed = TableController(Journal(db))
    journalled = resumed.journal.events(resumed.match_id)
    log = json.loads(P1.read_text())
    assert len(journalled) == kill_after + 1 == len(acked)
    assert journalled == log["events"][: kill_after + 1]
    expected = referee_text(json.dumps({**log, "events": log["events"][: kill_after + 1]})).report()
    assert resumed.report() == expected and resumed.report()["hands"][0]["result"] is None
