"""Every game's calls in its own words, the seats' names, and violations as sentences: the one place
(engine/words.py, engine/seat_names.py, engine/violation_words.py) the page, the terminal and the
alerts all read them from."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.log import referee_text
from engine.seat_names import SeatNameError, SeatNames, check_names
from engine.view import public_state, public_violation, table_words
from engine.violation_words import KNOWN_RULES
from engine.words import call_words, card_words, contract_words
from tests.conftest import LOGS

ENGINE = Path(__file__).resolve().parents[2] / "engine"


@pytest.mark.parametrize(
    ("game", "call", "words"),
    [
        ("poley", "2H", "2 hot"),  # H is "hot" in Poley, never hearts
        ("poley", "3", "3"),
        ("poley", "5", "5 poley"),
        ("poley", "5H", "5 hot shooter"),
        ("poley", "hold", "hold"),
        ("shelem", "120", "120"),
        ("fifty-six", "44H", "44 ♥"),
        ("fifty-six", "40NT", "40 no trump"),
        ("fifty-six", "29Hxx", "29 ♥ redoubled"),
        ("fifty-six", "double", "double"),
        ("fifty-six", "thani", "thani"),
        ("bid-whist", "4high", "4 uptown"),
        ("bid-whist", "4", "4 uptown"),
        ("bid-whist", "4low", "4 downtown"),
        ("bid-whist", "4no", "4 no trump"),
        ("nap", "nap", "Nap"),
        ("nap", "5", "Nap"),
        ("nap", "misery", "misery"),
        ("nap", "blucher", "Blücher"),
        ("nap", "wellington", "Wellington"),
        ("nap", "pass", "pass"),
    ],
)
def test_a_call_is_said_in_its_games_words(game, call, words):
    assert call_words(game, call) == words


@pytest.mark.parametrize(
    ("game", "contract", "trump", "direction", "words"),
    [
        ("poley", "2H", None, None, "2 hot"),
        ("poley", "3", "S", None, "3 ♠"),
        ("poley", "5", "H", None, "5 ♥ poley"),
        ("shelem", "120", "S", None, "120 ♠"),
        ("fifty-six", "44Hx", "H", None, "44 ♥ doubled"),
        ("bid-whist", "4high", "H", "high", "4 uptown ♥"),
        ("bid-whist", "5no", None, "low", "5 no trump low"),
        ("nap", "nap", "C", None, "Nap ♣"),
        ("nap", "misery", None, None, "misery"),
    ],
)
def test_a_contract_is_said_with_its_trumps_or_direction(game, contract, trump, direction, words):
    assert contract_words(game, contract, trump, direction) == words


def test_cards_are_written_as_the_page_draws_them_and_fifty_six_letters_only_when_chosen():
    assert card_words("TH") == "10♥" and card_words("BJ") == "big joker"
    assert card_words("9S", "fifty-six") == "9♠"
    assert card_words("9S", "fifty-six", letters=True) == "M♠"
    assert card_words("9S", "poley", letters=True) == "9♠"  # the letters are Fifty-Six's alone


def test_seats_go_by_the_chosen_names_else_by_their_compass_points():
    assert SeatNames.of(4).names == ("North", "East", "South", "West")
    assert SeatNames.of(6).names == ("North", "North-east", "South-east", "South", "South-west", "North-west")
    assert SeatNames.of(4).teams() == ("N–S", "E–W")
    assert SeatNames.of(6).teams() == ("N·SE·SW", "NE·S·NW")
    named = SeatNames.of(4, check_names(["Anna", "", " Carl  "]))
    assert named.names == ("Anna", "East", "Carl", "West")
    assert named.teams() == ("Anna–Carl", "East–West")


@pytest.mark.parametrize(
    ("names", "words"),
    [
        (["A" * 17], "at most 16"),
        (["Anna", "anna"], "seat 0 has that name"),
        (["North-east"], "compass point"),
        (["", "ne"], "compass point"),
        (["Bell\x07"], "control character"),
        ([""] * 9, "at most 8 seats"),
    ],
)
def test_a_name_the_table_cannot_use_is_refused_naming_the_seat(names, words):
    with pytest.raises(SeatNameError, match=words):
        check_names(names)


def test_every_rule_the_engine_can_break_has_a_sentence():
    """A rule code raised anywhere in the engine that the sentences do not know would be said as
    "broke a rule": each one must have its own words."""
    raised = set()
    for path in ENGINE.rglob("*.py"):
        raised |= set(re.findall(r'(?:IllegalAction|NotYourTurn)\(\s*"([a-z0-9-]+)"', path.read_text()))
    raised -= {"nothing-to-undo"}  # an undo with nothing to take back is a malformed log, not a violation
    assert raised, "no rule codes found: the pattern no longer matches the engine's code"
    assert raised <= KNOWN_RULES | {r for r in raised if r.startswith("not-")}, raised - KNOWN_RULES


def _sentences(log: str, names: list[str]) -> list[tuple[str, str]]:
    referee = referee_text((LOGS / log).read_text())
    words = table_words(referee, names)
    return [(v.rule, public_violation(v, words)["text"]) for hand in referee.violations for v in hand]


def test_violations_are_sentences_in_the_seats_names():
    assert _sentences("poley/p7-long-auction.json", ["Anna", "Ben", "Carl", "Dora"]) == [
        (
            "hold-by-younger-hand",
            "Carl cannot hold: only the older hand, Ben, may hold 4 hot; Carl must bid higher or pass",
        )
    ]
    assert _sentences("nap/six-players-dealer-sits-out-revoke-fine.json", ["Anna", "Ben"]) == [
        ("must-follow-suit", "Ben played the 2♥ but holds spades: Ben must follow suit")
    ]
    shelem = _sentences("shelem/s6-illegal-bids.json", [])
    assert shelem == [
        ("bid-too-low", "West called 100 but the bid is 100: West must bid higher or pass"),
        ("out-of-turn", "West called 110 out of turn: it is South's turn"),
    ]


def test_the_table_log_keeps_the_referees_own_words():
    """The sentence is for people at the table; the log's record (and `croupier referee --json`)
    is unchanged."""
    referee = referee_text((LOGS / "shelem/s6-illegal-bids.json").read_text())
    (first, _), *_ = [(v.to_json(), v) for hand in referee.violations for v in hand]
    assert first == {
        "event": first["event"],
        "seat": 3,
        "rule": "bid-too-low",
        "message": "seat 3 must bid higher than 100 or pass",
    }


def test_the_public_state_carries_its_words():
    referee = referee_text((LOGS / "poley/p1-two-hot-made.json").read_text())
    state = public_state(referee, table_words(referee, ["Anna"]))
    assert state["seat_names"]["names"] == ["Anna", "East", "South", "West"]
    hand = state["hand"]
    assert hand["contract"] == "2H" and hand["contract_words"] == "2 hot"
    assert all(entry["words"] == call_words("poley", entry["call"]) for entry in hand["auction"])
    assert {"2 hot"} <= {entry["words"] for entry in hand["auction"]}
