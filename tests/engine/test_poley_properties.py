"""Property-based tests: random legal Poley matches, undo, and replay of the dumped log."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.actions import Play
from engine.games.poley import POLEY
from engine.hand import Phase
from engine.log import dumps, loads, replay
from simulators.players import RandomPlayer
from simulators.table import SimulatedTable

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_match(seed: int, hands: int, all_pass: str = "throw-in"):
    table = SimulatedTable(POLEY, POLEY.options({"all-pass": all_pass}), seed=seed)
    # Uniformly random legal actions, auction included: explores far more than sensible bots.
    table.players = [RandomPlayer(random.Random(seed * 7 + s)) for s in range(4)]
    table.play(hands)
    return table


@SETTINGS
@given(
    seed=st.integers(0, 2**32), hands=st.integers(1, 12), all_pass=st.sampled_from(["throw-in", "vorhand-plays-one"])
)
def test_random_legal_matches_keep_the_rules(seed, hands, all_pass):
    table = random_match(seed, hands, all_pass)
    for hand in table.match.hands:
        assert hand.is_over()
        played = [a.card for _, a in hand.moves if isinstance(a, Play)]
        assert len(played) == len(set(played))  # no card is played twice
        for trick in hand.tricks:
            assert sorted(trick.seats) == [0, 1, 2, 3]  # one card per seat
            assert all(hand.deal.hands[seat].count(c) == 1 for seat, c in zip(trick.seats, trick.cards, strict=True))
        assert len(played) == 4 * len(hand.tricks)
        r = hand.result()
        if r.result in ("made", "set"):
            assert hand.tricks[0].leader == (hand.dealer + 1) % 4  # vorhand leads
            assert sum(r.score) > 0 and 0 in r.score
    standing = table.match.standing
    assert all(0 <= s < 20 for s in standing.score)
    assert standing.over == (max(standing.horses) == 2)


@SETTINGS
@given(seed=st.integers(0, 2**32), hands=st.integers(1, 8))
def test_dumping_and_replaying_the_log_reproduces_the_result(seed, hands):
    table = random_match(seed, hands)
    live = replay(table.log())
    again = replay(loads(dumps(table.log())))
    assert again.report() == live.report()
    assert again.match.standing == table.match.standing
    for ours, theirs in zip(table.match.hands, again.match.hands, strict=True):
        assert ours.result() == theirs.result()


@SETTINGS
@given(seed=st.integers(0, 2**32), data=st.data())
def test_pop_after_push_restores_the_state_exactly(seed, data):
    table = random_match(seed, 1)
    hand = table.match.hands[0]
    moves = list(hand.moves)
    back = data.draw(st.integers(1, len(moves)))
    states = []
    replayed = POLEY.new_hand(hand.deal, hand.options, table.match.standing)
    for seat, action in moves:
        states.append((replayed._snapshot(replayed), list(replayed.legal_actions())))
        replayed.push(action, seat)
    final = replayed._snapshot(replayed)
    for step in range(back):
        replayed.pop()
        state, legal = states[len(moves) - 1 - step]
        assert replayed._snapshot(replayed) == state
        assert list(replayed.legal_actions()) == legal
    for seat, action in moves[len(moves) - back :]:
        replayed.push(action, seat)
    assert replayed._snapshot(replayed) == final and replayed.phase is Phase.OVER
