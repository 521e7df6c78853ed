"""Malformed Bid Whist logs: exit status 2, one line naming the event index."""

from __future__ import annotations

import json

import pytest

from tests.conftest import LOGS, assert_malformed_at, referee_log

B1 = json.loads((LOGS / "bid-whist" / "b1-four-uptown-made.json").read_text())
DEAL = B1["events"][0]  # dealer E: S, W, N, E speak
NO_TRUMP = [
    {"type": "call", "seat": 2, "call": "4no"},
    *({"type": "call", "seat": s, "call": "pass"} for s in (3, 0, 1)),
    {"type": "declare", "seat": 2, "direction": "high"},
    {"type": "discard", "seat": 2, "cards": ["8S", "6S", "3S", "7C", "5C", "2C"]},
]


def _log(events, options=None):
    doc = {**B1, "events": [DEAL, *events]}
    if options:
        doc["options"] = options
    return doc


CASES = {
    "8high": (_log([{"type": "call", "seat": 2, "call": "8high"}]), 1),
    "3high-under-min-bid-4": (_log([{"type": "call", "seat": 2, "call": "3high"}], {"min-bid": 4}), 1),
    "discard-of-an-unheld-card": (
        _log([*NO_TRUMP[:5], {"type": "discard", "seat": 2, "cards": ["8S", "6S", "3S", "7C", "5C", "KS"]}]),
        6,
    ),
    "swap-for-a-card-not-in-the-kitty": (
        _log([*NO_TRUMP, {"type": "joker-swap", "seat": 0, "joker": "BJ", "card": "AS"}]),
        7,
    ),
    "swap-of-an-unheld-joker": (_log([*NO_TRUMP, {"type": "joker-swap", "seat": 1, "joker": "BJ", "card": "7C"}]), 7),
    "declare-without-trump-or-direction": (_log([*NO_TRUMP[:4], {"type": "declare", "seat": 2}]), 5),
}


@pytest.mark.parametrize("name", CASES)
def test_malformed_bid_whist_log(tmp_path, name):
    doc, event = CASES[name]
    assert_malformed_at(referee_log(tmp_path, doc), event)


def test_a_legal_no_trump_swap_is_accepted(tmp_path):
    doc = _log([*NO_TRUMP, {"type": "joker-swap", "seat": 0, "joker": "BJ", "card": "7C"}])
    done = referee_log(tmp_path, doc)
    assert done.returncode == 0, done.stderr
    hand = json.loads(done.stdout)["hands"][0]
    assert hand["phase"] == "joker-swap" and hand["to_act"] == 0 and hand["violations"] == []
