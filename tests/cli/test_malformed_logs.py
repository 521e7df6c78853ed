"""Every kind of malformed log in table-log.md: exit status 2, one line naming the event."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import LOGS, assert_malformed_at, referee_log, run_croupier

BASE = json.loads((LOGS / "poley" / "p1-two-hot-made.json").read_text())
# P1's events: 0 deal, 1-9 the auction, 10-17 the plays (the hand ends at 17).


def mutated(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    log = copy.deepcopy(BASE)
    change(log)
    return log


def set_event(index: int, **fields: Any) -> Callable[[dict[str, Any]], None]:
    def change(log: dict[str, Any]) -> None:
        log["events"][index].update(fields)

    return change


def remove_field(index: int, name: str) -> Callable[[dict[str, Any]], None]:
    return lambda log: log["events"][index].pop(name)


def append(*events: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    return lambda log: log["events"].extend(events)


def insert(index: int, event: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    return lambda log: log["events"].insert(index, event)


NEXT_DEAL = {"type": "deal", "hands": BASE["events"][0]["hands"], "rest": BASE["events"][0]["rest"]}

# (name, log change, event index named or None for a file-level problem, words the message must hold)
CASES: list[tuple[str, Callable[[dict[str, Any]], object], int | None, str]] = [
    ("wrong format", lambda log: log.update(format="table-log"), None, "'format'"),
    ("wrong version", lambda log: log.update(version=2), None, "'version'"),
    ("version not an integer", lambda log: log.update(version=1.0), None, "'version'"),
    ("unknown game", lambda log: log.update(game="skat"), None, "unknown game 'skat'"),
    ("wrong players", lambda log: log.update(players=5), None, "'players'"),
    ("unknown option", lambda log: log.update(options={"revokes": "reject"}), None, "unknown option 'revokes'"),
    ("bad option value", lambda log: log.update(options={"all-pass": "redeal"}), None, "'all-pass'"),
    ("bad start", lambda log: log.update(start={"chips": [12, 12]}), None, "'chips'"),
    ("events not a list", lambda log: log.update(events={}), None, "'events'"),
    ("unknown event type", set_event(3, type="shout"), 3, "unknown event type 'shout'"),
    ("event the game never uses", insert(10, {"type": "discard", "seat": 0, "cards": ["QS"]}), 10, "no 'discard'"),
    ("missing field", remove_field(4, "seat"), 4, "'seat'"),
    ("mistyped seat", set_event(4, seat="N"), 4, "'seat'"),
    ("seat out of range", set_event(4, seat=4), 4, "'seat'"),
    ("call not in the vocabulary", set_event(2, call="6"), 2, "not a Poley call"),
    ("card code that does not exist", set_event(11, card="1X"), 11, "'1X' is not a card code"),
    ("deal missing a card", lambda log: log["events"][0]["rest"].pop(), 0, "missing 9H"),
    ("deal with a foreign card", set_event(0, rest=["8S", "2C"]), 0, "missing 9H; extra 2C"),
    ("deal with a duplicate", set_event(0, rest=["8S", "8S"]), 0, "extra 8S"),
    (
        "deal with a wrong hand size",
        lambda log: log["events"][0]["hands"][0].append(log["events"][0]["rest"].pop()),
        0,
        "seat 0 was dealt 6 cards",
    ),
    ("missing first dealer", remove_field(0, "dealer"), 0, "first deal must name its dealer"),
    ("dealer disagrees with the rotation", append(dict(NEXT_DEAL, dealer=1)), 18, "seat 3 deals"),
    ("card played that the seat does not hold", set_event(10, card="AS"), 10, "does not hold AS"),
    ("undo with nothing to undo", insert(1, {"type": "undo"}), 1, "nothing to undo"),
    ("deal before the hand ended", insert(12, NEXT_DEAL), 12, "has not ended"),
    ("event before any deal", lambda log: log["events"].pop(0), 0, "no hand has been dealt"),
    ("unknown field in an event", set_event(5, card="AS"), 5, "no field 'card'"),
    (
        "declare naming both trump and direction",
        insert(10, {"type": "declare", "seat": 0, "trump": "H", "direction": "high"}),
        10,
        "either",
    ),
]


@pytest.mark.parametrize(("name", "change", "event", "words"), CASES, ids=[c[0] for c in CASES])
def test_malformed_log_exits_2_naming_the_event(tmp_path, name, change, event, words):
    line = assert_malformed_at(referee_log(tmp_path, mutated(change)), event)
    assert words in line
    if event is None:
        assert "event " not in line.split("malformed table log:")[1]


def test_not_json(tmp_path):
    path = tmp_path / "log.json"
    path.write_text("{ not json")
    done = run_croupier("referee", str(path))
    assert done.returncode == 2
    assert "not JSON" in done.stderr
    assert "Traceback" not in done.stderr


def test_json_nested_too_deeply(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert "nested far too deeply" in assert_malformed_at(run_croupier("referee", str(path)), None)


def test_missing_file(tmp_path):
    done = run_croupier("referee", str(tmp_path / "absent.json"))
    assert done.returncode == 2
    assert "cannot read" in done.stderr


def test_event_after_the_match_is_over_but_undo_allowed(tmp_path):
    over = json.loads((LOGS / "poley" / "second-horse-ends-game.json").read_text())
    after = copy.deepcopy(over)
    after["events"].append(NEXT_DEAL)
    path = tmp_path / "after.json"
    path.write_text(json.dumps(after))
    done = run_croupier("referee", "--json", str(path))
    assert done.returncode == 2
    assert f"event {len(over['events'])}:" in done.stderr and "match is over" in done.stderr

    undone = copy.deepcopy(over)
    undone["events"].append({"type": "undo"})
    path.write_text(json.dumps(undone))
    done = run_croupier("referee", "--json", str(path))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["match"]["over"] is False
    assert result["hands"][0]["result"] is None and result["hands"][0]["to_act"] == 3
