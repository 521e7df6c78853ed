"""Malformed Shelem logs: exit status 2, one line naming the event index."""

from __future__ import annotations

import json

import pytest

from tests.conftest import LOGS, assert_malformed_at, referee_log

S1 = json.loads((LOGS / "shelem" / "s1-contract-made.json").read_text())


def _log(events):
    return {**S1, "events": [S1["events"][0], *events]}


CASES = {
    "bid-not-a-multiple-of-5": (_log([{"type": "call", "seat": 0, "call": "103"}]), 1),
    "bid-above-165": (_log([{"type": "call", "seat": 0, "call": "170"}]), 1),
    "discard-of-an-unheld-card": (
        _log(
            [
                {"type": "call", "seat": 0, "call": "100"},
                *({"type": "call", "seat": s, "call": "pass"} for s in (3, 2, 1)),
                {"type": "discard", "seat": 0, "cards": ["8S", "7S", "6H", "KD"]},
            ]
        ),
        5,
    ),
    "declare-event": (_log([{"type": "declare", "seat": 0, "trump": "S"}]), 1),
    "joker-swap-event": (_log([{"type": "joker-swap", "seat": 0, "joker": "BJ", "card": None}]), 1),
}


@pytest.mark.parametrize("name", CASES)
def test_malformed_shelem_log(tmp_path, name):
    doc, event = CASES[name]
    assert_malformed_at(referee_log(tmp_path, doc), event)
