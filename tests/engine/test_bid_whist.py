"""Bid Whist (rules.md section 4): random legal hands, the renege, no-trump jokers, the ladder."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import PASS, Declare, Direction, Discard, JokerSwap, play
from engine.cards import BIG_JOKER, CARDS, LITTLE_JOKER, card, cards
from engine.errors import BadNotation, CardNotHeld, IllegalAction
from engine.game import Standing
from engine.games.bid_whist import BID_WHIST, BidWhistHand, BidWhistOptions, bid_number
from engine.hand import Phase
from engine.log import ActionEvent, DealEvent, Referee, dumps, log_of_match, referee_text
from engine.match import Match
from tests.engine.playouts import assert_undo_unwinds, deal_hand, play_out

SEEDS = st.integers(0, 2**32 - 1)
OPTIONS = st.builds(
    BidWhistOptions,
    revoke=st.sampled_from(["penalise", "reject"]),
    min_bid=st.sampled_from([3, 4]),
    low_equals_high=st.booleans(),
    dealer_may_take=st.booleans(),
    joker_shed=st.booleans(),
    no_trump_double=st.booleans(),
)

B1_HANDS = [
    cards("BJ LJ 7S 6H 5H QD 9D 8D AC QC 9C 8C"),
    cards("QS 4S 2S 3H KD 4D 3D 2D KC JC 6C 3C"),
    cards("AS 6S 3S AH JH TH 7H AD JD TC 5C 2C"),
    cards("KS JS TS 9S 5S KH 9H 4H 7D 6D 5D 4C"),
]
B1_KITTY = cards("8S QH 8H 2H TD 7C")


@settings(max_examples=60, deadline=None)
@given(SEEDS, OPTIONS)
def test_thirteen_books_and_the_score_formula(seed, options):
    rng = random.Random(seed)
    _, hand = deal_hand(BID_WHIST, rng, options)
    play_out(hand, rng)
    r = hand.result()
    assert sum(r.tricks) == 13
    team = r.declarer % 2
    n = bid_number(hand.contract)
    ours, theirs = r.tricks[team], r.tricks[1 - team]
    change = ours - 6 if ours >= 6 + n else -n
    if hand.no_trump and options.no_trump_double:
        change *= 2
    other = theirs - 6 if ours < 6 + n and theirs >= 7 else 0
    assert r.score[team] == change and r.score[1 - team] == other
    assert n >= options.min_bid


@settings(max_examples=30, deadline=None)
@given(SEEDS)
def test_undo_restores_the_state_exactly(seed):
    rng = random.Random(seed)
    _, hand = deal_hand(BID_WHIST, rng)
    assert_undo_unwinds(hand, rng)


@settings(max_examples=20, deadline=None)
@given(SEEDS)
def test_replaying_the_dumped_log_gives_the_live_result(seed):
    rng = random.Random(seed)
    match, hand = deal_hand(BID_WHIST, rng)
    play_out(hand, rng)
    report = referee_text(dumps(log_of_match(match))).report()
    live = hand.result()
    got = report["hands"][0]
    assert (got["result"], got["score"], got["tricks"]) == (live.result, list(live.score), list(live.tricks))


def _b1_to_play(options=None, contract="4high", declare=None):
    match = Match(BID_WHIST, options or BidWhistOptions())
    hand = match.deal(B1_HANDS, B1_KITTY, dealer=1)
    hand.push(BID_WHIST.parse_call(contract, hand.options))  # S (seat 2)
    for _ in range(3):
        hand.push(PASS)
    hand.push(declare or Declare(trump=card("AH").suit))
    hand.push(Discard(tuple(cards("8S 6S 3S 7C 5C 2C"))))
    return match, hand


def _revoke_twice(hand, allow_revoke):
    """Trick 1 as in B1; trick 2: S leads QH, W plays 5D holding KH 9H 4H (a renege)."""
    for code in ("AH", "4H", "5H", "3H", "QH"):
        hand.push(play(card(code)))
    hand.push(play(card("5D")), allow_revoke=allow_revoke)


def test_a_seat_that_reneges_twice_gives_six_books():
    rng = random.Random(4)
    for _ in range(200):  # random legal play, except that seat 3 reneges at its first two chances
        _, hand = deal_hand(BID_WHIST, rng)
        reneges = 0
        while not hand.is_over():
            legal = hand.legal_actions()
            seat = hand.to_act
            if hand.phase is Phase.PLAY and seat == 3 and reneges < 2 and hand.current_trick:
                bad = [c for c in hand.holding(3) if not hand.is_legal(play(c))]
                if bad:
                    hand.push(play(bad[0]), allow_revoke=True)
                    reneges += 1
                    continue
            hand.push(legal[rng.randrange(len(legal))])
        if reneges < 2:
            continue
        raw = [hand.tricks_won[0] + hand.tricks_won[2], hand.tricks_won[1] + hand.tricks_won[3]]
        raw[hand.declarer % 2] += 1  # the kitty
        if raw[1] >= 6:
            assert [r.seat for r in hand.revokes] == [3, 3]
            assert hand.result().tricks == (raw[0] + 6, raw[1] - 6)
            return
    pytest.fail("no hand found in which seat 3 reneged twice and its team kept six books")


def test_renege_penalty_is_capped_by_the_books_held_and_undo_removes_it():
    _, hand = _b1_to_play()
    _revoke_twice(hand, allow_revoke=True)
    assert [r.rule for r in hand.revokes] == ["must-follow-suit"]
    hand.pop()
    assert hand.revokes == ()
    hand.push(play(card("5D")), allow_revoke=True)
    play_out(hand, random.Random(0))  # random legal play to the end
    before = [hand.tricks_won[0] + hand.tricks_won[2] + 1, hand.tricks_won[1] + hand.tricks_won[3]]
    moved = min(3, before[1])
    assert hand.result().tricks == (before[0] + moved, before[1] - moved)


def test_reject_refuses_the_renege_and_the_hand_goes_on():
    match, hand = _b1_to_play(BidWhistOptions(revoke="reject"))
    referee = Referee(BID_WHIST, 4, BidWhistOptions(revoke="reject"))
    referee.match = match
    referee.violations.append([])
    for code, seat in (("AH", 2), ("4H", 3), ("5H", 0), ("3H", 1), ("QH", 2)):
        assert referee.apply(ActionEvent(seat, play(card(code))), 0) is None
    violation = referee.apply(ActionEvent(3, play(card("5D"))), 9)
    assert violation is not None and violation.rule == "must-follow-suit" and violation.event == 9
    assert hand.to_act == 3 and hand.revokes == () and hand.holds(3, card("5D"))
    assert referee.apply(ActionEvent(3, play(card("KH"))), 10) is None


def test_jokers_are_the_top_trumps():
    _, hand = _b1_to_play()
    for code in ("AH", "4H", "5H", "3H", "QH", "KH", "LJ", "2S"):  # B1's first two tricks
        hand.push(play(card(code)))
    assert [t.winner for t in hand.tricks] == [2, 0]


def _b1_no_trump(options=None):
    match = Match(BID_WHIST, options or BidWhistOptions())
    hand = match.deal(B1_HANDS, B1_KITTY, dealer=1)
    hand.push(BID_WHIST.parse_call("4no", hand.options))
    for _ in range(3):
        hand.push(PASS)
    with pytest.raises(IllegalAction) as wrong:
        hand.push(Declare(trump=card("AH").suit))
    assert wrong.value.rule == "name-a-direction"
    hand.push(Declare(direction=Direction.HIGH))
    hand.push(Discard(tuple(cards("8S 6S 3S 7C 5C 2C"))))
    return hand


def test_no_trump_joker_exchange_big_joker_first():
    hand = _b1_no_trump()
    assert hand.phase is Phase.JOKER_SWAP and hand.to_act == 0  # N holds both jokers
    bj, lj = CARDS[BIG_JOKER], CARDS[LITTLE_JOKER]
    with pytest.raises(IllegalAction) as wrong:
        hand.push(JokerSwap(lj, card("7C")), 0)
    assert wrong.value.rule == "big-joker-first"
    with pytest.raises(CardNotHeld):
        hand.check_cards(0, JokerSwap(bj, card("AS")))  # AS is not in the kitty
    hand.push(JokerSwap(bj, card("7C")), 0)
    assert hand.holds(0, card("7C")) and hand.kitty >> BIG_JOKER & 1
    hand.push(JokerSwap(lj, None), 0)  # N keeps the little joker
    assert hand.phase is Phase.PLAY and hand.to_act == 2


def test_no_trump_jokers_never_win_and_a_led_joker_lets_the_next_card_set_the_suit():
    hand = _b1_no_trump()
    hand.push(JokerSwap(CARDS[BIG_JOKER], None), 0)
    hand.push(JokerSwap(CARDS[LITTLE_JOKER], None), 0)
    for code in ("AH", "4H", "5H", "3H"):  # S wins, leads again
        hand.push(play(card(code)))
    for code in ("2H", "KH"):
        hand.push(play(card(code)))
    assert not hand.is_legal(play(card("BJ")))  # N holds hearts: he must follow
    hand.push(play(card("6H")))
    hand.push(play(card("2S")))  # E is void in hearts: any card, and it cannot win
    assert hand.tricks[-1].winner == 3
    # W leads a spade; N holds 7S, so he cannot play a joker
    hand.push(play(card("KS")))
    assert not hand.is_legal(play(card("LJ")))


def test_swaps_outside_no_trump_or_by_the_declarer_are_violations():
    _, hand = _b1_to_play()
    with pytest.raises(IllegalAction) as wrong:
        hand.push(JokerSwap(CARDS[BIG_JOKER], card("7C")), 0)
    assert wrong.value.rule == "swap-only-in-no-trump"
    match = Match(BID_WHIST)
    hands = [B1_HANDS[2], B1_HANDS[1], B1_HANDS[0], B1_HANDS[3]]  # S holds both jokers
    hand = match.deal(hands, B1_KITTY, dealer=1)
    hand.push(BID_WHIST.parse_call("3no", hand.options))
    for _ in range(3):
        hand.push(PASS)
    hand.push(Declare(direction=Direction.LOW))
    hand.push(Discard(tuple(cards("8S 7C 8H 2H TD QH"))))
    assert hand.phase is Phase.PLAY  # the declarer's own jokers are never offered
    with pytest.raises(IllegalAction) as wrong:
        hand.push(JokerSwap(CARDS[BIG_JOKER], card("7C")), 2)
    assert wrong.value.rule == "declarer-cannot-swap"


def test_the_ladder_and_its_options():
    options = BidWhistOptions()
    assert BID_WHIST.parse_call("4", options) is BID_WHIST.parse_call("4HIGH", options)
    with pytest.raises(BadNotation):
        BID_WHIST.parse_call("8high", options)
    with pytest.raises(BadNotation):
        BID_WHIST.parse_call("3high", BidWhistOptions(min_bid=4))
    rng = random.Random(3)
    _, hand = deal_hand(BID_WHIST, rng, BidWhistOptions(low_equals_high=True, dealer_may_take=True), dealer=0)
    hand.push(BID_WHIST.parse_call("4high", hand.options))
    assert not hand.is_legal(BID_WHIST.parse_call("4low", hand.options))
    hand.push(PASS)
    hand.push(PASS)
    assert hand.is_legal(BID_WHIST.parse_call("4high", hand.options))  # the dealer takes it
    hand.push(BID_WHIST.parse_call("4high", hand.options))
    assert hand.declarer == 0


def test_the_game_ends_at_plus_or_minus_seven():
    class Fixed(BidWhistHand):
        def __init__(self, deal, options, change):
            super().__init__(deal, options)
            self.change = change

        def score(self):
            return self.change

    _, hand = deal_hand(BID_WHIST, random.Random(1))
    up = BID_WHIST.after_hand(Standing(score=(4, 2)), Fixed(hand.deal, hand.options, (3, 0)))
    assert up.over and up.winner == 0
    down = BID_WHIST.after_hand(Standing(score=(-4, 2)), Fixed(hand.deal, hand.options, (-3, 0)))
    assert down.over and down.winner == 1
    on = BID_WHIST.after_hand(Standing(score=(4, 2)), Fixed(hand.deal, hand.options, (2, 0)))
    assert not on.over and on.next_dealer == 1


def _exchange_with_jokers_at(big: int, little: int):
    """B1 bid 4no by S (seat 2), with the big joker at seat ``big`` and the little one at
    ``little`` (each swapped with a plain card of that seat), at the joker exchange."""
    hands = [list(h) for h in B1_HANDS]
    for joker, seat, slot in ((card("BJ"), big, 2), (card("LJ"), little, 3)):
        hands[0][hands[0].index(joker)], hands[seat][slot] = hands[seat][slot], joker
    referee = Referee(BID_WHIST, 4, BidWhistOptions())
    referee.apply(DealEvent(tuple(tuple(h) for h in hands), tuple(B1_KITTY), 1), 0)
    for index, (seat, action) in enumerate(
        [
            (2, BID_WHIST.parse_call("4no", BidWhistOptions())),
            (3, PASS),
            (0, PASS),
            (1, PASS),
            (2, Declare(direction=Direction.HIGH)),
            (2, Discard(tuple(cards("8S 6S 3S 7C 5C 2C")))),
        ],
        start=1,
    ):
        assert referee.apply(ActionEvent(seat, action), index) is None
    hand = referee.match.current
    assert hand is not None and hand.phase is Phase.JOKER_SWAP and hand.to_act == big
    return referee, hand


@pytest.mark.parametrize("big", [1, 3])
def test_a_swap_out_of_turn_in_the_exchange_never_names_the_joker_holder(big):
    referee, hand = _exchange_with_jokers_at(big, little=0)
    violation = referee.apply(ActionEvent(0, JokerSwap(card("LJ"), None)), 7)
    assert violation is not None and violation.rule == "big-joker-first"
    assert violation.message == "seat 0 cannot swap the little joker yet: the big joker's holder is asked first"
    with pytest.raises(IllegalAction) as wrong:  # the engine's own check, without the referee's card check
        hand.push(JokerSwap(card("BJ"), None), 4 - big)
    assert wrong.value.rule == "out-of-turn"
    assert wrong.value.message == f"seat {4 - big} acted out of turn: it is the big joker's holder's turn"
    assert hand.whose_turn() == "the big joker's holder" and hand.public_to_act() is None


def test_the_wrong_joker_reads_the_same_whether_or_not_the_seat_holds_the_one_asked():
    both = _exchange_with_jokers_at(big=0, little=0)[0]
    little_only = _exchange_with_jokers_at(big=1, little=0)[0]
    shown = [r.apply(ActionEvent(0, JokerSwap(card("LJ"), None)), 7).to_json() for r in (both, little_only)]
    assert shown[0] == shown[1]
    # The little joker's turn: the big joker's holder (who declined) offers it again.
    for referee, big in ((both, 0), (little_only, 1)):
        referee.apply(ActionEvent(big, JokerSwap(card("BJ"), None)), 8)
    late = [r.apply(ActionEvent(b, JokerSwap(card("BJ"), None)), 9) for r, b in ((both, 0), (little_only, 1))]
    assert [v.rule for v in late] == ["out-of-turn", "out-of-turn"]
    assert late[1].message == "seat 1 cannot swap the big joker now: it is the little joker's holder's turn"
    assert late[0].message == late[1].message.replace("seat 1", "seat 0")
