"""``croupier referee`` on any file at all: exit 0, or exit 2 with one line; never a traceback.

The sweeps run the command in-process (typer's test runner) so that hypothesis can try hundreds
of files; the named cases run it as a user does, in a child process."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from controller.cli import app
from controller.log_file import MAX_LOG_BYTES
from tests.conftest import LOGS, assert_malformed_at, example_log, run_croupier

SWEEP = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# Every example log of every game: the JSON sweeps change one place of one of them.
EXAMPLES = sorted(p for p in LOGS.glob("*/*.json") if not p.name.endswith(".expected.json"))

# Words a table log is made of, so that changed logs get past the first checks and reach deep ones.
WORDS = st.sampled_from(
    [
        *("deal", "call", "play", "declare", "discard", "joker-swap", "undo", "note", "type", "seat", "card"),
        *("hands", "rest", "dealer", "AS", "TH", "BJ", "LJ", "pass", "nap", "H", "high", "low", "pool"),
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(-(2**70), 2**70)
    | st.floats()  # NaN and the infinities too: Python's json writes and reads them
    | st.text(max_size=12)
    | WORDS
)
JSON_VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8) | WORDS, inner, max_size=6)
)


def referee_in_process(path: Path) -> tuple[int, str, str]:
    """Run ``croupier referee --json PATH``; an exception escaping the command fails the test."""
    result = CliRunner().invoke(app, ["referee", "--json", str(path)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def assert_exit_0_or_one_line(path: Path) -> None:
    code, out, err = referee_in_process(path)
    assert code in (0, 2), (code, err)
    if code == 0:
        json.loads(out)  # a result that an outside tool can read
    else:
        assert out == "" and len(err.splitlines()) == 1, err
        assert err.startswith("croupier: "), err


def places(doc: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document: the path of keys and indices that reaches it."""
    found = [here]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += places(value, (*here, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            found += places(value, (*here, i))
    return found


def node_at(doc: Any, place: tuple[Any, ...]) -> Any:
    for step in place:
        doc = doc[step]
    return doc


def replaced(doc: Any, place: tuple[Any, ...], value: Any) -> Any:
    """``doc`` with the value at ``place`` replaced (in place, unless it is the whole document)."""
    if not place:
        return value
    node_at(doc, place[:-1])[place[-1]] = value
    return doc


@st.composite
def changed_logs(draw: st.DrawFn) -> str:
    """An example log with one place replaced, one field added or one event inserted."""
    doc = json.loads(draw(st.sampled_from(EXAMPLES)).read_text())
    value = draw(JSON_VALUES)
    how = draw(st.sampled_from(["replace", "add", "insert"]))
    if how == "replace":
        doc = replaced(doc, draw(st.sampled_from(places(doc))), value)
    elif how == "add":
        holders = [p for p in places(doc) if isinstance(node_at(doc, p), dict)]
        node_at(doc, draw(st.sampled_from(holders)))[draw(WORDS | st.text(max_size=8))] = value
    else:
        events = doc["events"]
        events.insert(draw(st.integers(0, len(events))), value)
    return json.dumps(doc)


@SWEEP
@given(text=changed_logs())
def test_any_change_to_a_log_gives_a_result_or_one_line(tmp_path, text):
    path = tmp_path / "log.json"
    path.write_text(text, encoding="utf-8")
    assert_exit_0_or_one_line(path)


@SWEEP
@given(value=JSON_VALUES)
def test_any_json_value_gives_one_line(tmp_path, value):
    path = tmp_path / "log.json"
    path.write_text(json.dumps(value), encoding="utf-8")
    assert_exit_0_or_one_line(path)


@SWEEP
@given(data=st.binary(max_size=400) | st.text(max_size=200).map(str.encode))
def test_any_bytes_give_one_line(tmp_path, data):
    path = tmp_path / "log.bin"
    path.write_bytes(data)
    assert_exit_0_or_one_line(path)


@SWEEP
@given(log=st.sampled_from(EXAMPLES), digits=st.integers(1, 6000), sign=st.sampled_from(["", "-"]), data=st.data())
def test_a_number_of_any_length_anywhere_gives_a_result_or_one_line(tmp_path, log, digits, sign, data):
    # json.dumps cannot write an integer of more than 4,300 digits: the number goes into the text.
    doc = json.loads(log.read_text())
    doc = replaced(doc, data.draw(st.sampled_from(places(doc))), "@NUMBER@")
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc).replace('"@NUMBER@"', sign + "9" * digits), encoding="utf-8")
    assert_exit_0_or_one_line(path)


# --- named cases, run as a user runs them -----------------------------------------------------


def test_an_event_type_that_is_not_a_string(tmp_path):
    doc = example_log("poley", "p1-two-hot-made")
    doc["events"][3] = {"type": []}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc))
    line = assert_malformed_at(run_croupier("referee", "--json", str(path)), 3)
    assert "'type'" in line


def test_an_integer_of_5000_digits(tmp_path):
    path = tmp_path / "log.json"
    path.write_text('{"format": "croupier-table-log", "version": ' + "1" * 5000 + "}")
    line = assert_malformed_at(run_croupier("referee", "--json", str(path)), None)
    assert "5000 digits" in line


def test_nan_is_not_json(tmp_path):
    doc = example_log("poley", "p1-two-hot-made")
    doc["events"][4]["seat"] = float("nan")
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc))  # Python writes NaN, which no JSON reader need accept
    assert "NaN" in assert_malformed_at(run_croupier("referee", "--json", str(path)), None)


def test_an_endless_file_is_refused_at_the_limit():
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    line = assert_malformed_at(run_croupier("referee", "--json", "/dev/zero"), None)
    assert "more than 16 MiB" in line


def test_a_file_over_the_limit_is_refused_with_its_size(tmp_path):
    path = tmp_path / "huge.json"
    with path.open("wb") as f:  # a sparse file: nothing is written but its length
        f.truncate(MAX_LOG_BYTES + 12_345)
    line = assert_malformed_at(run_croupier("referee", "--json", str(path)), None)
    assert f"{MAX_LOG_BYTES + 12_345:,} bytes" in line and "16 MiB" in line


def test_a_file_at_the_limit_is_read(tmp_path):
    # Padding after the JSON is whitespace: the log is read, and replayed, whole.
    text = (LOGS / "poley" / "p1-two-hot-made.json").read_text()
    path = tmp_path / "padded.json"
    path.write_text(text + " " * (MAX_LOG_BYTES - len(text.encode())))
    assert path.stat().st_size == MAX_LOG_BYTES
    done = run_croupier("referee", "--json", str(path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["game"] == "poley"


def test_a_directory_is_one_line(tmp_path):
    line = assert_malformed_at(run_croupier("referee", "--json", str(tmp_path)), None)
    assert "cannot read" in line
