"""A damaged or shortened journal: refused at the start in one line, never served rewound;
`croupier journal check` and `recover` salvage every intact event; a copy at each hand's end."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import struct
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from controller.runtime import Runtime
from controller.settings import Settings
from controller.store import Journal, JournalDamaged, JournalShortened
from controller.table import TableController
from tests.conftest import LOGS, run_croupier

MATCH = LOGS / "fifty-six" / "f1-f2-f3-match.json"  # three hands, dealt at events 0, 57 and 114
EVENTS = json.loads(MATCH.read_text())["events"]
SECOND_DEAL = 57


def play(journal: Journal, events: list[dict], earlier_match: bool = True) -> TableController:
    """A match of Fifty-six played to ``events``, after an earlier match (a second one to go back to)."""
    table = TableController(journal)
    if earlier_match:
        table.start_match("poley")
    table.start_match("fifty-six")
    for event in events:
        assert table.submit(event).accepted
    return table


def journal_played(path: Path, events: list[dict]) -> Path:
    journal = Journal(path)
    play(journal, events)
    journal.close()
    return path


def damage_an_event(path: Path, match_id: int) -> None:
    db = sqlite3.connect(path)
    db.execute('UPDATE events SET event = \'{"type": "pl\' WHERE match_id = ? AND seq = 3', (match_id,))
    db.commit()
    db.close()


def drop_the_events(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("DROP TABLE events")
    db.commit()
    db.close()


def break_a_page(path: Path) -> None:
    """Make the events table's first page unreadable: its page type becomes one SQLite does not know."""
    db = sqlite3.connect(path)
    ((root,),) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'events'").fetchall()
    size = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    with path.open("r+b") as file:
        file.seek((root - 1) * size)
        file.write(b"\x07")


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        (lambda p: damage_an_event(p, 2), "event 3 of match 2"),
        (drop_the_events, "its table 'events' is missing"),
        (break_a_page, "database disk image is malformed"),
    ],
    ids=["event-not-json", "table-missing", "page-malformed"],
)
def test_a_damaged_journal_stops_the_start_in_one_line_naming_the_problem_and_the_way_out(tmp_path, damage, named):
    path = journal_played(tmp_path / "table.db", EVENTS[:20])
    damage(path)
    before = path.read_bytes()
    done = run_croupier("serve", "--port", "9", env={"CROUPIER_STORE__PATH": str(path)})
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert f"the journal {path} is damaged" in done.stderr and named in done.stderr
    assert f"croupier journal recover {path} --out FILE" in done.stderr
    assert path.read_bytes() == before  # nothing was changed


def test_a_damaged_older_match_stops_the_start_too(tmp_path):
    path = journal_played(tmp_path / "table.db", EVENTS[:20])
    journal = Journal(path)
    journal.start_match("nap", 5, {}, None)  # the table resumes this one, not the damaged match 2
    journal.close()
    damage_an_event(path, 2)
    with pytest.raises(JournalDamaged, match="event 3 of match 2"):
        Runtime.open(Settings(store={"path": path}), "token")


def test_damage_met_while_serving_answers_503_in_words(tmp_path):
    path = journal_played(tmp_path / "table.db", EVENTS[:20])
    runtime = Runtime.open(Settings(store={"path": path}), "token")
    try:
        with TestClient(create_app(runtime), raise_server_exceptions=False) as client:
            assert client.get("/api/matches/2/log").status_code == 200
            damage_an_event(path, 2)  # from outside, as a failing card would
            answer = client.get("/api/matches/2/log")
    finally:
        runtime.stop()
        runtime.journal.close()
    assert answer.status_code == 503
    assert "event 3 of match 2 is not JSON" in answer.json()["detail"]
    assert "croupier journal recover" in answer.json()["detail"]


def wal_frames(wal: bytes) -> list[tuple[int, int]]:
    """(page number, offset of the page) of every frame of a write-ahead log."""
    size = struct.unpack(">I", wal[8:12])[0]
    return [
        (struct.unpack(">I", wal[at : at + 4])[0], at + 24) for at in range(32, len(wal) - 24 - size + 1, 24 + size)
    ]


def test_one_flipped_bit_in_the_write_ahead_log_is_refused_and_every_event_salvaged(tmp_path):
    live, cut = tmp_path / "live", tmp_path / "cut"
    cut.mkdir()
    journal = Journal(live / "table.db")
    play(journal, EVENTS[:100])
    # The files as a power cut leaves them: every acknowledged write is on the disk.
    for name in ("table.db", "table.db-wal", "table.db.ack"):
        if (live / name).exists():
            shutil.copy(live / name, cut / name)
    journal.close()
    wal = bytearray((cut / "table.db-wal").read_bytes())
    frames = wal_frames(bytes(wal))
    pages = [page for page, _ in frames]
    k = next(
        i for i in range(len(frames) // 3, len(frames)) if pages[i] in pages[i + 1 :]
    )  # a page written again later
    wal[frames[k][1] + 100] ^= 0x01
    (cut / "table.db-wal").write_bytes(wal)

    looked = sqlite3.connect(f"{(cut / 'table.db').as_uri()}?mode=ro", uri=True)
    assert looked.execute("SELECT COUNT(*) FROM events").fetchone()[0] < 100  # SQLite alone goes back
    looked.close()
    with pytest.raises(JournalShortened, match=r"has lost records: it holds \d+ records, but 102 records"):
        Journal(cut / "table.db")
    assert (cut / "table.db-wal").read_bytes() == wal  # the check changed nothing: the log is still there

    checked = run_croupier("journal", "check", str(cut / "table.db"))
    assert checked.returncode == 1 and "match 2 (fifty-six, 6 players): 100 of 100 events" in checked.stdout
    done = run_croupier("journal", "recover", str(cut / "table.db"), "--out", str(tmp_path / "saved.db"))
    assert done.returncode == 0, done.stderr
    saved = Journal(tmp_path / "saved.db")
    assert [m.game for m in saved.matches()] == ["poley", "fifty-six"] and saved.events(2) == EVENTS[:100]
    saved.close()
    assert run_croupier("journal", "check", str(tmp_path / "saved.db")).returncode == 0


def test_a_journal_truncated_to_nothing_is_refused_and_the_copy_keeps_every_ended_hand(tmp_path):
    path = tmp_path / "table.db"
    journal = Journal(path)
    table = play(journal, EVENTS[:SECOND_DEAL])  # the first hand ends: its copy is made
    assert journal.copies.wait(timeout=60)
    for event in EVENTS[SECOND_DEAL:100]:  # the second hand is in play
        assert table.submit(event).accepted
    journal.close()
    os.truncate(path, 0)
    with pytest.raises(JournalShortened, match="it is empty, but 102 records"):
        Journal(path)
    assert path.stat().st_size == 0
    done = run_croupier("journal", "recover", str(path), "--out", str(tmp_path / "saved.db"))
    assert done.returncode == 0, done.stderr
    assert f"{SECOND_DEAL} of {SECOND_DEAL} events" in done.stdout and "of the 102 acknowledged" in done.stdout
    saved = Journal(tmp_path / "saved.db")
    assert saved.events(2) == EVENTS[:SECOND_DEAL]  # the hand in play is the worst loss
    saved.close()


def test_a_journal_moved_away_from_its_record_is_not_started_afresh(tmp_path):
    path = journal_played(tmp_path / "table.db", EVENTS[:5])
    path.rename(tmp_path / "elsewhere.db")
    with pytest.raises(JournalShortened, match="it is missing, but 7 records"):
        Journal(path)
    assert not path.exists()


def copied_events(copy: Path) -> int:
    kept = sqlite3.connect(f"{copy.as_uri()}?immutable=1", uri=True)
    try:
        return kept.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        kept.close()


def test_the_copy_at_each_hand_end_holds_every_ended_hand(tmp_path):
    journal = Journal(tmp_path / "table.db")
    table = play(journal, EVENTS[: SECOND_DEAL - 1], earlier_match=False)
    copy = tmp_path / "table.db.backup"
    assert journal.copies.wait(timeout=60) and not copy.exists()  # no hand has ended
    table.submit(EVENTS[SECOND_DEAL - 1])  # the last card of the first hand
    assert journal.copies.wait(timeout=60) and journal.copies.made == 1
    assert copied_events(copy) == SECOND_DEAL
    for event in EVENTS[SECOND_DEAL : SECOND_DEAL + 10]:
        table.submit(event)
    journal.close()
    assert journal.copies.made == 1 and copied_events(copy) == SECOND_DEAL  # no other hand has ended
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.db", "table.db.ack", "table.db.backup"]


def test_journal_check_says_a_whole_journal_is_whole_and_recover_never_overwrites(tmp_path):
    path = journal_played(tmp_path / "table.db", EVENTS[:10])
    whole = run_croupier("journal", "check", str(path))
    assert whole.returncode == 0 and "whole: every record is what was written" in whole.stdout
    (tmp_path / "taken.db").write_text("mine")
    refused = run_croupier("journal", "recover", str(path), "--out", str(tmp_path / "taken.db"))
    assert refused.returncode == 2 and "taken.db exists" in refused.stderr
    assert (tmp_path / "taken.db").read_text() == "mine"
