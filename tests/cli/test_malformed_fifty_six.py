"""Fifty-Six logs that are malformed: exit status 2, naming the event."""

from __future__ import annotations

import json

import pytest

from tests.conftest import LOGS, referee_log

EXAMPLE = LOGS / "fifty-six" / "f1-32-clubs-made.json"


def _example():  # type: ignore[no-untyped-def]
    return json.loads(EXAMPLE.read_text())


def test_a_third_copy_of_a_card(tmp_path):
    doc = _example()
    doc["events"][0]["hands"][1][0] = "JS"  # seats 0 and 5 already hold the two jacks of spades
    done = referee_log(tmp_path, doc)
    assert done.returncode == 2
    assert "event 0" in done.stderr and "extra JS" in done.stderr and "missing TS" in done.stderr


@pytest.mark.parametrize(
    ("call", "why"),
    [("thani", "not a Fifty-Six call"), ("57S", "not a Fifty-Six call"), ("28X", "not a Fifty-Six call")],
)
def test_calls_outside_the_vocabulary(tmp_path, call, why):
    doc = _example()
    doc["events"][3]["call"] = call
    done = referee_log(tmp_path, doc)
    assert done.returncode == 2
    assert "event 3" in done.stderr and why in done.stderr


def test_four_players(tmp_path):
    doc = _example()
    doc["players"] = 4
    done = referee_log(tmp_path, doc)
    assert done.returncode == 2 and "'players' must be 6" in done.stderr


def test_start_with_score_instead_of_chips(tmp_path):
    doc = _example()
    doc["start"] = {"score": [3, 4]}
    done = referee_log(tmp_path, doc)
    assert done.returncode == 2 and "chips" in done.stderr
