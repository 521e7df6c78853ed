"""``croupier deal --faults SPEC``: every malformed SPEC is one line and exit status 2.

The sweeps try hundreds of SPECs on the parser and, in-process, on the command; the named cases
run the command as a user does, in a child process."""

from __future__ import annotations

from dataclasses import fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from controller.cli import app
from simulators.faults import KNOWN, MAX_CARD_NUMBER, MAX_RATE, BadFaultSpec, FaultSpec, parse_faults
from tests.conftest import run_croupier

SWEEP = settings(max_examples=500, deadline=None)

# Values of every kind: numbers in and out of range, other scripts' digits, card codes, junk.
VALUES = (
    st.text(max_size=8)
    | st.integers(-5, 2 * MAX_CARD_NUMBER).map(str)
    | st.floats(allow_nan=True, allow_infinity=True).map(str)
    | st.sampled_from(["²", "٣", "١٢", "０.０１", "1e-2", "1_0", "0x10", "nan", "-0", "9" * 5000, "9H", "QS", "BJ"])
)
ITEMS = st.builds(
    lambda name, eq, value: f"{name}{eq}{value}",
    st.sampled_from(KNOWN) | st.text(max_size=6),
    st.sampled_from(["=", "", "==", " = "]),
    VALUES,
)
SPECS = st.text() | st.lists(ITEMS, max_size=5).map(",".join)


def assert_within_the_documented_ranges(spec: FaultSpec) -> None:
    assert 0 <= spec.line.corrupt <= MAX_RATE and 0 <= spec.line.drop <= MAX_RATE
    for f in fields(spec.machine):
        value = getattr(spec.machine, f.name)
        if f.name != "vanish_s" and value is not None:
            assert type(value) is int and 1 <= value <= MAX_CARD_NUMBER


@SWEEP
@given(text=SPECS)
def test_any_spec_parses_within_range_or_is_refused_in_one_line(text):
    try:
        spec = parse_faults(text)
    except BadFaultSpec as exc:
        message = str(exc)
        assert len(message.splitlines()) == 1 and message.isprintable(), message
        assert len(message) < 300, message
        return
    assert_within_the_documented_ranges(spec)


@pytest.mark.parametrize(
    "item", ["0" + "\x1f" * 40 + "0", "\U0001019d" * 30, "jam-at=" + "\U0002ebe1" * 30, "\U00018d09" * 30 + "=1"]
)
def test_a_spec_of_characters_written_as_escapes_is_quoted_short(item):
    # Each of these characters takes four to ten to write quoted: cut after quoting, the message
    # still repeats the start of what was given, and stays short.
    with pytest.raises(BadFaultSpec) as refused:
        parse_faults(item)
    message = str(refused.value)
    assert message.isprintable() and len(message) < 300, message  # as the sweep above holds every message
    assert repr(item[:2])[:-1] in message, message


@settings(max_examples=150, deadline=None)
@given(text=SPECS)
def test_the_command_refuses_any_malformed_spec_in_one_line(text):
    try:
        parse_faults(text)
    except BadFaultSpec:
        pass
    else:
        return  # a well-formed SPEC would deal: the parse sweep above holds it to its ranges
    result = CliRunner().invoke(app, ["deal", "--sim", "--json", f"--faults={text}"])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code == 2, result.stderr
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("croupier: ")


def test_the_limits_themselves_are_accepted():
    spec = parse_faults(f"corrupt={MAX_RATE},drop=0,jam-at={MAX_CARD_NUMBER},reset-after=0007,missing=9H,missing=TS")
    assert spec.line.corrupt == MAX_RATE and spec.machine.jam_at == MAX_CARD_NUMBER
    assert spec.machine.reset_after == 7 and [str(c) for c in spec.missing] == ["9H", "TS"]


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("jam-at=²", "jam-at=²: give a card number from 1 to 1000"),
        ("jam-at=٣", "jam-at=٣: give a card number"),
        ("reset-after=" + "9" * 5000, "reset-after=999999"),
        ("jam-at=0", "from 1 to 1000"),
        ("estop-at=1001", "from 1 to 1000"),
        ("unreadable-at=-3", "unreadable-at=-3"),
        ("corrupt=nan", "between 0 and 0.5"),
        ("drop=inf", "between 0 and 0.5"),
        ("corrupt=٠.٠١", "the rate must be a number"),
        ("jam-at=3,jam-at=5", "jam-at is given twice"),
        ("drop=0.01,drop=0.02", "drop is given twice"),
        ("jam-at", "fault 'jam-at' needs a value"),
        ("=3", "unknown fault ''"),
        ("extra=", "needs a value"),
        ("foreign=ZZ", "foreign=ZZ: not a card code"),
        ("jam-at=3\x1b[2J", "'jam-at=3\\x1b[2J'"),
    ],
)
def test_malformed_specs_exit_2_with_one_line(spec, words):
    done = run_croupier("deal", "--sim", "--json", f"--faults={spec}")
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
    assert words in done.stderr, done.stderr
