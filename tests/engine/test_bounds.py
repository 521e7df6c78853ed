"""Every number a match takes from outside is bounded, and a number out of bounds is refused in
one short line that names the field and its bounds (a huge one by its size, never its digits)."""

from __future__ import annotations

import dataclasses
import json
import typing
from typing import Any

import pytest

from engine.errors import InvalidOption, InvalidStart
from engine.game import SCORE_LIMIT
from engine.games import GAMES, get_game
from engine.log import MalformedLog, Referee, referee_text

HUGE = 10**4299  # the longest integer Python's JSON reader still reads (4,300 digits)

# game, players, options, the start field, a value beyond its bounds, the bounds as the message says them
STARTS: list[tuple[str, int, dict[str, Any], str, Any, str]] = [
    ("nap", 4, {"pool": True}, "pool", HUGE, "from 0 to 1000000000"),
    ("nap", 4, {"pool": True}, "pool", SCORE_LIMIT + 1, "from 0 to 1000000000"),
    ("nap", 4, {}, "score", [HUGE, 0, 0, 0], "from -1000000000 to 1000000000"),
    ("shelem", 4, {}, "score", [-HUGE, 0], "from -1000000000 to 999"),
    ("shelem", 4, {}, "score", [-SCORE_LIMIT - 1, 0], "from -1000000000 to 999"),
    ("bid-whist", 4, {}, "score", [0, -HUGE], "from -6 to 6"),
    ("fifty-six", 6, {}, "chips", [HUGE, 12], "from 0 to 100000"),
    ("poley", 4, {}, "horses", [0, HUGE], "from 0 to 1"),
]


@pytest.mark.parametrize(
    ("game", "players", "options", "field", "value", "bounds"),
    STARTS,
    ids=[f"{game}-{field}-{n}" for n, (game, _, _, field, _, _) in enumerate(STARTS)],
)
def test_a_start_number_out_of_bounds_is_refused_naming_the_field_and_the_bounds(
    game, players, options, field, value, bounds
):
    chosen = get_game(game)
    with pytest.raises(InvalidStart) as refused:
        chosen.start(players, chosen.options(options, players), {field: value})
    message = str(refused.value)
    assert f"'start.{field}'" in message and bounds in message
    assert len(message) < 160, message  # one line: a huge number is told by its size
    if value == HUGE or HUGE in (value if isinstance(value, list) else []):
        assert "4300 digits" in message


def test_a_nap_pool_at_its_bound_plays_and_every_update_can_still_be_written_out():
    chosen = get_game("nap")
    options = chosen.options({"pool": True}, 4)
    referee = Referee(chosen, 4, options, {"pool": SCORE_LIMIT, "score": [SCORE_LIMIT] * 4})
    json.dumps(referee.report())  # the referee's result, and so every page update, serialises
    assert referee.match.standing.report()["pool"] == SCORE_LIMIT


def test_an_option_out_of_bounds_is_refused_in_one_short_line():
    for value in (HUGE, -HUGE, 100):
        with pytest.raises(InvalidOption) as refused:
            get_game("bid-whist").options({"target": value})
        assert "option 'target' must be a whole number from 1 to 99" in str(refused.value)
        assert len(str(refused.value)) < 120
    with pytest.raises(InvalidOption, match="true or false, not a number of 4300 digits"):
        get_game("nap").options({"dealer-sits-out": HUGE}, 6)


def test_every_whole_number_option_of_every_game_has_bounds():
    for name in GAMES:
        options_type = get_game(name).options_type
        hints = typing.get_type_hints(options_type)
        for field in dataclasses.fields(options_type):
            if hints[field.name] is int:
                low, high = field.metadata["bounds"]
                assert -SCORE_LIMIT <= low <= high <= SCORE_LIMIT, (name, field.name)


def test_a_log_that_starts_a_nap_pool_beyond_its_bound_is_malformed():
    log = {"format": "croupier-table-log", "version": 1, "game": "nap", "players": 4}
    log |= {"options": {"pool": True}, "start": {"pool": 10**15}, "events": []}
    with pytest.raises(MalformedLog, match=r"'start.pool' must be a whole number of stakes from 0 to 1000000000"):
        referee_text(json.dumps(log))
