"""Nap logs that are malformed: exit status 2, naming the event where there is one."""

from __future__ import annotations

import json

from tests.conftest import LOGS, referee_log

EXAMPLE = LOGS / "nap" / "n1-three-made-early-end.json"


def _example():  # type: ignore[no-untyped-def]
    return json.loads(EXAMPLE.read_text())


def test_misery_without_its_option(tmp_path):
    doc = _example()
    doc["events"][2]["call"] = "misery"
    done = referee_log(tmp_path, doc)
    assert done.returncode == 2
    assert "event 2" in done.stderr and "'misery' is not a Nap call" in done.stderr


def test_a_call_of_one_under_min_call_two(tmp_path):
    doc = _example()
    doc["options"] = {"min-call": 2}
    doc["events"][2]["call"] = "1"
    done = referee_log(tmp_path, doc)
    assert done.returncode == 2 and "event 2" in done.stderr


def test_a_log_without_players(tmp_path):
    doc = _example()
    del doc["players"]
    done = referee_log(tmp_path, doc)
    assert done.returncode == 2 and "'players' is required for Nap (2 to 6)" in done.stderr


def test_dealer_sits_out_with_four_players(tmp_path):
    doc = _example()
    doc["options"] = {"dealer-sits-out": True}
    done = referee_log(tmp_path, doc)
    assert done.returncode == 2 and "dealer-sits-out" in done.stderr


def test_a_sitting_out_dealer_dealt_cards(tmp_path):
    doc = _example()
    doc["players"] = 6
    hands = doc["events"][0]["hands"]
    rest = doc["events"][0]["rest"]
    hands.extend([rest[:5], rest[5:10]])  # six hands of five, though the dealer (seat 0) sits out
    doc["events"][0]["rest"] = rest[10:]
    done = referee_log(tmp_path, doc)
    assert done.returncode == 2 and "event 0" in done.stderr and "seat 0 was dealt 5 cards" in done.stderr
