"""Fifty-Six: properties of random legal hands, and auction legality."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import DOUBLE, PASS, REDOUBLE
from engine.cards import FIFTY_SIX_48, card, cards
from engine.errors import IllegalAction, InvalidOption
from engine.games.fifty_six import FIFTY_SIX, POINTS, FiftySixHand, chips_for, seed_notation, settle
from engine.hand import Deal
from engine.log import dumps, hand_report, log_of_match, referee_text
from engine.match import Match
from tests.engine.playouts import assert_each_pop_restores, deal_random, play_out, random_match

SEEDS = st.integers(0, 2**32)
FAST = settings(max_examples=25, deadline=None)
RANKS = "J9ATKQ"


def _call(text: str):  # type: ignore[no-untyped-def]
    return FIFTY_SIX.parse_call(text, FIFTY_SIX.options())


@FAST
@given(SEEDS)
def test_card_points_of_a_hand_total_56(seed):
    match = random_match(FIFTY_SIX, seed, 1)
    result = match.hands[0].result()
    assert result.points is not None and sum(result.points) == 56
    assert sum(POINTS[c.index] for c in FIFTY_SIX_48) == 56
    assert sum(result.tricks) == 8


@FAST
@given(SEEDS, st.sampled_from(["multiply", "add"]), st.sampled_from(["cannot-pay", "zero-chips"]))
def test_chips_are_conserved_between_the_teams(seed, scoring, match_end):
    options = FIFTY_SIX.options({"double-scoring": scoring, "match-end": match_end, "chips": 5})
    match = random_match(FIFTY_SIX, seed, 12, options)
    assert sum(match.standing.score) == 10
    assert all(c >= 0 for c in match.standing.score)
    if match.standing.over:
        assert match.standing.score[1 - match.standing.winner] <= 0 or match_end == "cannot-pay"


def _expected_winner(trick, trump):  # type: ignore[no-untyped-def]
    """rules.md 3.7's pseudo-code, written independently of the trick core."""
    best, best_key = None, None
    led = trick.cards[0].suit
    for position, c in enumerate(trick.cards):
        rank = len(RANKS) - RANKS.index(str(c)[0])
        key = (2, rank) if c.suit is trump else (1, rank) if c.suit is led else None
        if key is not None and (best_key is None or key > best_key):
            best, best_key = position, key
    return trick.seats[best]


@FAST
@given(SEEDS)
def test_identical_cards_in_a_trick_are_resolved_by_play_order(seed):
    hand = random_match(FIFTY_SIX, seed, 1).hands[0]
    assert isinstance(hand, FiftySixHand)
    for trick in hand.tricks:
        assert trick.winner == _expected_winner(trick, hand.trump)


def test_the_earlier_of_two_identical_cards_wins():
    from engine.games.fifty_six import _RULES  # the contract's rules, as play uses them

    rules_trick = [card("JH").index, card("JH").index]
    for trump in (None, card("JH").suit):
        assert _RULES[trump].winner(rules_trick) == 0
        assert _RULES[trump].winner([card("QH").index, *rules_trick]) == 1


@FAST
@given(SEEDS)
def test_pop_after_push_restores_the_state_exactly(seed):
    rng = random.Random(seed)
    match = Match(FIFTY_SIX)
    hand = deal_random(match, rng, dealer=rng.randrange(6))
    assert_each_pop_restores(hand, rng)


@settings(max_examples=10, deadline=None)
@given(SEEDS, st.booleans())
def test_replaying_the_dumped_log_reproduces_the_live_results(seed, thani):
    options = FIFTY_SIX.options({"thani": thani, "early-end": thani, "direction": "counter-clockwise"})
    match = random_match(FIFTY_SIX, seed, 4, options)
    replayed = referee_text(dumps(log_of_match(match))).report()
    assert replayed["hands"] == [hand_report(h, []) for h in match.hands]
    assert replayed["match"] == match.standing.report()


def test_bookkeeping_across_f1_f2_f3():
    chips = (12, 12)
    for score, after in (((1, -1), (13, 11)), ((3, -3), (16, 8)), ((4, -4), (20, 4))):
        chips, winner = settle(chips, score, "cannot-pay")
        assert chips == after and winner is None


def test_reward_table_and_doubling():
    assert chips_for(_call("28C"), True, 0, "multiply") == 1
    assert chips_for(_call("39C"), False, 0, "multiply") == 2
    assert chips_for(_call("40NT"), False, 1, "multiply") == 6
    assert chips_for(_call("48S"), True, 2, "multiply") == 12
    assert chips_for(_call("56H"), False, 2, "add") == 7


def test_seed_letters():
    assert [seed_notation(c, symbols=False) for c in cards("JS 9H AD TC KS QH")] == ["PS", "MH", "SD", "DC", "NS", "RH"]
    assert seed_notation(card("JS")) == "P\u2660"


# --- auction legality ---------------------------------------------------------------------


def _hand(**options: object) -> FiftySixHand:
    pack = list(FIFTY_SIX_48)
    return FiftySixHand(Deal(5, tuple(tuple(pack[i::6]) for i in range(6))), FIFTY_SIX.options(options))


def _refused(hand: FiftySixHand, seat: int, text: str) -> IllegalAction:
    with pytest.raises(IllegalAction) as caught:
        hand.push(_call(text), seat)
    return caught.value


def test_the_opening_is_compulsory_and_at_least_28():
    hand = _hand()
    assert _refused(hand, 0, "pass").rule == "opening-compulsory"
    error = _refused(hand, 0, "27S")
    assert error.rule == "bid-below-28" and "lowest bid is 28" in error.message
    hand.push(_call("28S"), 0)


def test_a_bid_must_be_higher_whatever_the_suit():
    hand = _hand()
    hand.push(_call("28S"), 0)
    error = _refused(hand, 1, "28H")
    assert error.rule == "bid-too-low" and "at least 29" in error.message


def test_double_only_of_the_other_teams_bid():
    hand = _hand()
    hand.push(_call("28S"), 0)
    hand.push(PASS, 1)
    error = _refused(hand, 2, "double")
    assert error.rule == "double-own-team" and "own team" in error.message
    hand.push(PASS, 2)
    hand.push(DOUBLE, 3)
    # Once doubled, "already doubled" is what is wrong with any second double (rules.md F7).
    assert _refused(hand, 4, "double").rule == "already-doubled"
    hand.push(PASS, 4)
    assert _refused(hand, 5, "double").rule == "already-doubled"


def test_redouble_only_by_the_doubled_team_and_it_ends_the_auction():
    hand = _hand()
    hand.push(_call("28S"), 0)
    assert _refused(hand, 1, "redouble").rule == "redouble-not-doubled"
    hand.push(DOUBLE, 1)
    assert REDOUBLE in hand.legal_actions()  # seat 2 is on the bidder's team
    hand.push(PASS, 2)
    error = _refused(hand, 3, "redouble")
    assert error.rule == "redouble-by-wrong-team" and "seats 0, 2, 4" in error.message
    hand.push(PASS, 3)
    hand.push(REDOUBLE, 4)
    assert hand.contract_text() == "28Sxx" and hand.to_act == 0


def test_a_new_bid_cancels_the_double_and_five_passes_end_the_auction():
    hand = _hand()
    for seat, call in enumerate(["28S", "29H", "double", "pass", "30NT"]):
        hand.push(DOUBLE if call == "double" else _call(call), seat)
    assert hand.doubled == 0
    for seat in (5, 0, 1, 2, 3):
        hand.push(PASS, seat)
    assert hand.contract_text() == "30NT" and hand.declarer == 4 and hand.trump is None


def test_counter_clockwise_play_goes_the_other_way():
    hand = _hand(direction="counter-clockwise")
    assert hand.to_act == 4
    hand.push(_call("28S"), 4)
    assert hand.to_act == 3


def test_thani_is_a_call_of_its_own_and_never_doubled():
    with pytest.raises(Exception, match="not a Fifty-Six call"):
        FIFTY_SIX.parse_call("thani", FIFTY_SIX.options())
    options = FIFTY_SIX.options({"thani": True})
    thani = FIFTY_SIX.parse_call("thani", options)
    hand = _hand(thani=True)
    hand.push(_call("56S"), 0)
    hand.push(thani, 1)
    # Nothing can outbid or double a thani, so the auction ends at once and play begins.
    assert hand.phase.value == "play" and hand.declarer == 1 and hand.contract is thani
    assert _refused(hand, 2, "double").rule == "not-auction-now"


def test_thani_is_lost_at_the_first_trick_the_declarer_does_not_win():
    rng = random.Random(4)
    options = FIFTY_SIX.options({"thani": True})
    for _ in range(20):
        match = Match(FIFTY_SIX, options)
        hand = deal_random(match, rng, dealer=0)
        assert isinstance(hand, FiftySixHand)
        hand.push(FIFTY_SIX.parse_call("thani", options))
        while hand.phase.value == "auction":
            hand.push(PASS)
        play_out(hand, rng)
        result = hand.result()
        assert result.contract == "thani" and result.trump is None
        if result.result == "set":
            assert hand.tricks[-1].winner != 1 and result.score == (6, -6)
        else:
            assert len(hand.tricks) == 8 and result.score == (-5, 5)


def test_bad_options_are_refused():
    with pytest.raises(InvalidOption):
        FIFTY_SIX.options({"double-scoring": "triple"})
