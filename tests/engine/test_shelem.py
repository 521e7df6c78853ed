"""Shelem (rules.md section 2): properties of random legal hands, scoring, the match end."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import PASS, Discard, play
from engine.cards import card, cards
from engine.errors import IllegalAction
from engine.game import Standing
from engine.games.shelem import SHELEM, ShelemHand, ShelemOptions, hand_score
from engine.log import dumps, log_of_match, referee_text
from engine.match import Match
from tests.engine.playouts import assert_undo_unwinds, deal_hand, play_out

SEEDS = st.integers(0, 2**32 - 1)
OPTIONS = st.builds(
    ShelemOptions,
    direction=st.sampled_from(["counter-clockwise", "clockwise"]),
    all_pass=st.sampled_from(["void", "eldest-opens-100"]),
    buried_pile=st.sampled_from(["declarer", "last-trick"]),
    made_score=st.sampled_from(["taken", "bid"]),
    must_trump=st.booleans(),
)


@settings(max_examples=60, deadline=None)
@given(SEEDS, OPTIONS)
def test_points_total_165_and_scores_follow_the_formula(seed, options):
    rng = random.Random(seed)
    _, hand = deal_hand(SHELEM, rng, options)
    play_out(hand, rng)
    r = hand.result()
    if r.result == "void":
        assert r.score == (0, 0) and options.all_pass == "void"
        return
    assert sum(r.points) == 165 and sum(r.tricks) == 13
    team = r.declarer % 2
    bid, ours, theirs = int(r.contract), r.points[team], r.points[1 - team]
    if ours >= bid:
        expected = 330 if ours == 165 else (ours if options.made_score == "taken" else bid)
    else:
        expected = -2 * bid if ours < theirs else -bid
    assert r.score[team] == expected and r.score[1 - team] == theirs
    assert r.result == ("made" if ours >= bid else "set")


@settings(max_examples=30, deadline=None)
@given(SEEDS)
def test_undo_restores_the_state_exactly(seed):
    rng = random.Random(seed)
    _, hand = deal_hand(SHELEM, rng)
    assert_undo_unwinds(hand, rng)


@settings(max_examples=20, deadline=None)
@given(SEEDS)
def test_replaying_the_dumped_log_gives_the_live_result(seed):
    rng = random.Random(seed)
    match, hand = deal_hand(SHELEM, rng)
    play_out(hand, rng)
    report = referee_text(dumps(log_of_match(match))).report()
    live = hand.result()
    got = report["hands"][0]
    assert (got["result"], got["score"], got["tricks"]) == (live.result, list(live.score), list(live.tricks))
    assert report["match"]["score"] == list(match.standing.score)


def test_hand_score_formula():
    assert hand_score("taken", 115, 135, 30) == (135, 30)
    assert hand_score("taken", 145, 120, 45) == (-145, 45)
    assert hand_score("taken", 100, 80, 85) == (-200, 85)
    assert hand_score("taken", 165, 165, 0) == (330, 0)
    assert hand_score("bid", 115, 135, 30) == (115, 30)
    assert hand_score("bid", 120, 165, 0) == (330, 0)


def test_a_tie_past_the_target_goes_to_the_declaring_side():
    class Tied(ShelemHand):
        def score(self):
            return (60, 80)

    rng = random.Random(1)
    _, hand = deal_hand(SHELEM, rng, dealer=0)
    tied = Tied(hand.deal, ShelemOptions())
    tied.declarer = 1
    after = SHELEM.after_hand(Standing(score=(990, 970)), tied)
    assert after.score == (1050, 1050) and after.over and after.winner == 1


def test_all_pass_with_eldest_opens_100():
    rng = random.Random(2)
    _, hand = deal_hand(SHELEM, rng, ShelemOptions(all_pass="eldest-opens-100"), dealer=1)
    for _ in range(4):
        hand.push(PASS)
    assert hand.declarer == 0 and hand.contract is not None and hand.contract.text == "100"
    assert len(hand.holding(0)) == 16


def test_must_trump_breach_is_a_revoke():
    deal_hands = [
        cards("AH AS KS QS JS TS 9S 8S 7S 6S 5S 4S"),
        cards("QH KH 2C 3C 4C 5C 6C 7C 8C 9C TC JC"),
        cards("JH TH 9H QC KC AC 2D 3D 4D 5D 6D 7D"),
        cards("8H 7H 6H 5H 4H 3H 2H 8D 9D TD JD QD"),
    ]
    match = Match(SHELEM, ShelemOptions(must_trump=True, revoke="penalise", direction="clockwise"))
    hand = match.deal(deal_hands, cards("KD AD 2S 3S"), dealer=3)
    hand.push(SHELEM.parse_call("100", None))
    for _ in range(3):
        hand.push(PASS)
    hand.push(Discard(tuple(cards("2S 3S KD AD"))))
    for code in ("AH", "QH", "JH", "8H", "AS"):  # the first lead makes hearts trumps
        hand.push(play(card(code)))
    assert [a.card for a in hand.legal_actions()] == [card("KH")]
    with pytest.raises(IllegalAction) as refused:
        hand.push(play(card("2C")))
    assert refused.value.rule == "must-trump"
    hand.push(play(card("2C")), allow_revoke=True)  # as under `penalise`: the card stands
    assert [r.rule for r in hand.revokes] == ["must-trump"]
