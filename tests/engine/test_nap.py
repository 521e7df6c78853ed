"""Nap: properties of random legal hands, calling and settlement."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import PASS, play
from engine.cards import STANDARD_52, card, cards
from engine.errors import BadNotation, IllegalAction, InvalidOption
from engine.games.nap import BLUCHER, MISERY, NAP, NAP_GAME, ONE, THREE, TWO, WELLINGTON, NapHand
from engine.hand import Deal
from engine.log import dumps, hand_report, log_of_match, referee_text
from engine.match import Match
from tests.conftest import LOGS
from tests.engine.playouts import assert_each_pop_restores, deal_random, random_match

SEEDS = st.integers(0, 2**32)
FAST = settings(max_examples=25, deadline=None)
VARIANTS = st.fixed_dictionaries(
    {
        "pool": st.booleans(),
        "double-header": st.booleans(),
        "misery": st.booleans(),
        "wellington": st.booleans(),
        "min-call": st.sampled_from([1, 2]),
        "stake": st.integers(1, 3),
    }
)


@FAST
@given(SEEDS, st.integers(2, 6), VARIANTS)
def test_balances_sum_to_zero_and_the_pool_holds_what_was_paid_in(seed, players, raw):
    options = NAP_GAME.options(raw, players)
    match = random_match(NAP_GAME, seed, 8, options, players)
    standing = match.standing
    assert sum(standing.score) == 0
    paid_in = sum(sum(dict(h.result().extra).get("pool", ())) for h in match.hands)
    assert standing.pool == -paid_in
    for hand in match.hands:
        result = hand.result()
        assert result.score is not None and sum(result.score) == 0
        assert sum(result.tricks) == len(hand.tricks) <= 5


@FAST
@given(SEEDS, st.integers(2, 6), VARIANTS.map(lambda raw: {**raw, "pool": True}))
def test_the_match_score_excludes_pool_payments(seed, players, raw):
    # docs/table-log.md: "money paid into a Nap pool is not part of score"; each hand's `pool`
    # reports it, and the match's `pool` is what the pool holds.
    options = NAP_GAME.options(raw, players)
    match = random_match(NAP_GAME, seed, 8, options, players)
    results = [h.result() for h in match.hands]
    stakes = [sum(r.score[seat] for r in results if r.score is not None) for seat in range(players)]
    assert list(match.standing.score) == stakes
    report = referee_text(dumps(log_of_match(match))).report()
    assert report["match"]["score"] == stakes
    assert any(any(hand["pool"]) for hand in report["hands"])  # money did go into the pool


def test_a_stake_paid_into_the_pool_is_not_in_the_score():
    # N1 (a three made by seat 3, dealt by seat 0) played with the pool: the dealer's stake goes
    # into the pool, reported by the hand, and the match's score is the stakes alone.
    log = json.loads((LOGS / "nap" / "n1-three-made-early-end.json").read_text())
    log["options"] = {"pool": True, "stake": 2}
    report = referee_text(json.dumps(log)).report()
    assert report["hands"][0]["score"] == [-6, -6, -6, 18]
    assert report["hands"][0]["pool"] == [-2, 0, 0, 0]
    assert report["match"]["score"] == [-6, -6, -6, 18]
    assert report["match"]["pool"] == 2


@FAST
@given(SEEDS, st.integers(2, 6), VARIANTS)
def test_pop_after_push_restores_the_state_exactly(seed, players, raw):
    rng = random.Random(seed)
    match = Match(NAP_GAME, NAP_GAME.options(raw, players), players)
    hand = deal_random(match, rng, dealer=rng.randrange(players))
    assert_each_pop_restores(hand, rng)


@settings(max_examples=10, deadline=None)
@given(SEEDS, st.integers(2, 6), VARIANTS)
def test_replaying_the_dumped_log_reproduces_the_live_results(seed, players, raw):
    match = random_match(NAP_GAME, seed, 5, NAP_GAME.options(raw, players), players)
    replayed = referee_text(dumps(log_of_match(match))).report()
    assert replayed["hands"] == [hand_report(h, []) for h in match.hands]
    assert replayed["match"] == match.standing.report()


@FAST
@given(SEEDS)
def test_the_first_lead_fixes_trumps_and_play_stops_early(seed):
    hand = random_match(NAP_GAME, seed, 1).hands[0]
    assert isinstance(hand, NapHand)
    if hand.contract is None:
        return
    assert hand.trump is not None and hand.tricks[0].cards[0].suit is hand.trump
    assert hand.tricks[0].leader == hand.declarer
    won = hand.tricks_won[hand.declarer]
    needed = {ONE: 1, TWO: 2, THREE: 3}.get(hand.contract, 4 if hand.contract.text == "4" else 5)
    assert won >= needed or len(hand.tricks) - won > 5 - needed


def _hand(players: int = 4, dealer: int = 0, **raw: object) -> NapHand:
    options = NAP_GAME.options(raw, players)
    shape = NAP_GAME.deal_shape(players, options, dealer)
    pack, hands = list(STANDARD_52), []
    for size in shape.per_seat:
        hands.append(tuple(pack[:size]))
        del pack[:size]
    return NAP_GAME.new_hand(Deal(dealer, tuple(hands), tuple(pack)), options, NAP_GAME.start(players, options, None))


def test_one_call_each_from_the_dealers_left_each_higher():
    hand = _hand()
    assert hand.to_act == 1
    hand.push(TWO, 1)
    with pytest.raises(IllegalAction) as caught:
        hand.push(ONE, 2)
    assert caught.value.rule == "call-too-low"
    hand.push(PASS, 2)
    hand.push(THREE, 3)
    hand.push(PASS, 0)
    assert hand.declarer == 3 and hand.contract is THREE and hand.to_act == 3


def test_six_players_the_dealer_sits_out_and_does_not_call():
    hand = _hand(players=6, dealer=2)
    assert hand.deal.hands[2] == () and hand.active == (0, 1, 3, 4, 5)
    for seat in (3, 4, 5, 0, 1):
        assert hand.to_act == seat
        hand.push(PASS, seat)
    assert hand.declarer == 3 and hand.contract is ONE and hand.to_act == 3


def test_dealer_sits_out_option():
    assert NAP_GAME.options({}, 6).dealer_sits_out is True
    assert NAP_GAME.options({}, 5).dealer_sits_out is False
    assert NAP_GAME.options({"dealer-sits-out": True}, 5).dealer_sits_out is True
    with pytest.raises(InvalidOption):
        NAP_GAME.options({"dealer-sits-out": True}, 4)


def test_wellington_only_over_nap_and_blucher_only_over_wellington():
    hand = _hand(wellington=True)
    assert WELLINGTON not in hand.legal_actions()
    with pytest.raises(IllegalAction) as caught:
        hand.push(WELLINGTON, 1)
    assert caught.value.rule == "wellington-needs-nap"
    hand.push(NAP, 1)
    assert hand.legal_actions() == (PASS, WELLINGTON)
    hand.push(WELLINGTON, 2)
    assert hand.legal_actions() == (PASS, BLUCHER)


def test_misery_ranks_just_below_three():
    hand = _hand(misery=True)
    hand.push(TWO, 1)
    hand.push(MISERY, 2)
    assert TWO not in hand.legal_actions() and THREE in hand.legal_actions()


def test_vocabulary_follows_the_options():
    options = NAP_GAME.options({}, 4)
    assert NAP_GAME.parse_call("5", options) is NAP and NAP_GAME.parse_call("Nap", options) is NAP
    for text in ("misery", "wellington", "blucher", "6"):
        with pytest.raises(BadNotation):
            NAP_GAME.parse_call(text, options)
    with pytest.raises(BadNotation):
        NAP_GAME.parse_call("1", NAP_GAME.options({"min-call": 2}, 4))


def test_min_call_two_still_forces_eldest_to_play_one():
    hand = _hand(**{"min-call": 2})
    assert ONE not in hand.legal_actions()
    for seat in (1, 2, 3, 0):
        hand.push(PASS, seat)
    assert hand.contract is ONE and hand.forced and hand.declarer == 1


def test_misery_fails_at_the_first_trick_won():
    # Seat 1 calls misery and leads the ace: nobody can beat it.
    held = [cards("AS 2H 3H 4H 5H"), cards("2S 6H 7H 8H 9H"), cards("3S TH JH QH KH"), cards("4S 2D 3D 4D 5D")]
    used = {c for h in held for c in h}
    options = NAP_GAME.options({"misery": True}, 4)
    deal = Deal(3, tuple(tuple(h) for h in held), tuple(c for c in STANDARD_52 if c not in used))
    hand = NAP_GAME.new_hand(deal, options, NAP_GAME.start(4, options, None))
    hand.push(MISERY, 0)
    for seat in (1, 2, 3):
        hand.push(PASS, seat)
    for seat, code in ((0, "AS"), (1, "2S"), (2, "3S"), (3, "4S")):
        hand.push(play(card(code)), seat)
    result = hand.result()
    assert result.result == "set" and result.score == (-9, 3, 3, 3) and len(hand.tricks) == 1
