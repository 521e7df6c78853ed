"""Standings and rounds as pure functions, on small sets of matches whose right answer is known."""

from __future__ import annotations

import pytest

from club.rounds import Plan, RoundError, met_before, rotation, seats_of_side, swiss
from club.standings import Placed, leaders, side_names, standings


def placed(table: str, entrants: tuple[str, ...], game: str = "shelem", **standing) -> Placed:
    return Placed(table, 1, game, entrants, {"over": False, "winner": None, **standing})


def test_the_winner_of_a_match_over_takes_two_points_a_shared_lead_one_each():
    lines = standings(
        [
            placed("t1", ("ann & cy", "bo & di"), score=[1000, 1200], over=True, winner=0),  # the engine's winner
            placed("t2", ("eve & fin", "gus & hal"), score=[300, 300]),  # level, in play
            placed("t3", ("ann & cy", "eve & fin"), score=[100, 250]),  # eve & fin lead, in play
        ]
    )
    table = {line.entrant: (line.played, line.won, line.drawn, line.lost, line.points, line.in_play) for line in lines}
    assert table == {
        "ann & cy": (2, 1, 0, 1, 2, 1),
        "eve & fin": (2, 1, 1, 0, 3, 2),
        "bo & di": (1, 0, 0, 1, 0, 0),
        "gus & hal": (1, 0, 1, 0, 1, 1),
    }
    assert [line.entrant for line in lines] == ["eve & fin", "ann & cy", "gus & hal", "bo & di"]


def test_poley_counts_horses_before_points_and_nap_every_seat():
    assert leaders("poley", {"score": [3, 9], "horses": [0, 1], "over": False}) == [0]
    assert leaders("poley", {"score": [3, 9], "horses": [1, 1], "over": False}) == [1]
    assert leaders("nap", {"score": [2, -1, 2, -3], "over": False}) == [0, 2]
    assert leaders("fifty-six", {"score": [0, 24], "over": True, "winner": 1}) == [1]


def test_a_side_is_named_by_its_seats():
    assert side_names(["ann", "bo", "cy", "di"], 2) == ("ann & cy", "bo & di")
    assert side_names(["ann", "bo", "cy"], 3) == ("ann", "bo", "cy")
    assert seats_of_side(1, 2, 6) == [1, 3, 5]


def test_the_rotation_meets_everyone_once_and_an_odd_one_sits_out():
    plan = Plan("rotation", tuple("ABCDEF"), ("t1", "t2", "t3"))
    meetings = [frozenset(pair) for n in range(1, 6) for pair in rotation(plan, n).tables.values()]
    assert len(meetings) == len(set(meetings)) == 15  # all 15 pairs of 6, once each
    five = rotation(Plan("rotation", tuple("ABCDE"), ("t1", "t2", "t3")), 1)
    assert len(five.tables) == 2 and len(five.byes) == 1


def test_swiss_pairs_like_standings_who_have_not_met():
    plan = Plan(
        "swiss",
        tuple("ABCD"),
        ("t1", "t2"),
        met=met_before([rotation(Plan("rotation", tuple("ABCD"), ("t1", "t2")), 1)]),
    )
    # round 1 sat A with D and B with C; the ranking is A, B, C, D
    assert swiss(plan, ["A", "B", "C", "D"]).tables == {"t1": ("A", "B"), "t2": ("C", "D")}
    met_ab = Plan("swiss", tuple("ABCD"), ("t1", "t2"), met=frozenset({frozenset("AB")}))
    assert swiss(met_ab, ["A", "B", "C", "D"]).tables == {"t1": ("A", "C"), "t2": ("B", "D")}


def test_a_mitchell_rotation_for_more_sides_moves_each_side_on():
    plan = Plan("rotation", tuple("ABCDEFGHI"), ("t1", "t2", "t3"), sides=3, seats=3)
    first, second = rotation(plan, 1).tables, rotation(plan, 2).tables
    assert first["t1"] == ("A", "B", "C") and second["t1"][0] == "A" and second["t1"] != first["t1"]


@pytest.mark.parametrize(
    ("plan", "words"),
    [
        (Plan("rotation", tuple("ABCDEF"), ("t1",)), "need 3 tables"),
        (Plan("rotation", ("A", "A"), ("t1",)), "named twice"),
        (Plan("rotation", tuple("AB"), ("t1",), sides=3, seats=4), "do not split"),
        (Plan("bracket", tuple("AB"), ("t1",)), "unknown method"),
    ],
)
def test_a_round_that_cannot_be_seated_says_why(plan, words):
    with pytest.raises(RoundError, match=words):
        rotation(plan, 1)
