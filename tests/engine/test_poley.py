"""Poley, rules.md section 1: auction, declaring, the seven of diamonds, early end, horses."""

from __future__ import annotations

import pytest

from engine.actions import HOLD, PASS, Declare, play
from engine.cards import Suit, card, cards
from engine.errors import CardNotHeld, IllegalAction, NotYourTurn
from engine.games.poley import LADDER, POLEY, PoleyHand, PoleyOptions, PoleyStanding, schimpf_dealer
from engine.hand import Deal, Phase
from engine.match import Match

N, E, S, W = range(4)
P1 = {N: "QS JS AH KH 7D", E: "AS KS JH 8H 9C", S: "9S QH TH AC 8C", W: "TS KC QC JC TC"}
P2 = {N: "AS TS AH 8H 9C", E: "9S TH KC QC JC", S: "KH QH JH 9H AC", W: "KS QS JS 8C 7D"}


def new_hand(hands=P1, rest="8S 9H", dealer=S, **options) -> PoleyHand:
    deal = Deal(dealer, tuple(tuple(cards(hands[s])) for s in range(4)), tuple(cards(rest)))
    return PoleyHand(deal, PoleyOptions(**options))


def call(hand: PoleyHand, seat: int, text: str) -> None:
    hand.push(POLEY.parse_call(text, hand.options), seat)


def auction(hand: PoleyHand, script: str) -> None:
    for item in script.split(", "):
        who, text = item.split(" ")
        call(hand, "NESW".index(who), text)


def plays(hand: PoleyHand, script: str) -> None:
    for item in script.split(", "):
        who, code = item.split(" ")
        hand.push(play(card(code)), "NESW".index(who))


def test_p1_two_hot_made_in_two_tricks():
    hand = new_hand()
    auction(hand, "W 1, N 1H, W hold, N 2, W pass, E 2H, N hold, E pass, S pass")
    assert (hand.declarer, hand.contract, hand.phase, hand.to_act) == (N, LADDER[3], Phase.PLAY, W)
    plays(hand, "W KC, N 7D, E 9C, S 8C, N AH, E 8H, S TH, W TS")
    r = hand.result()
    assert (r.result, r.tricks, r.score, r.trump) == ("made", (2, 0), (4, 0), None)
    assert hand.tricks[0].winner == N  # the hot seven of diamonds wins on a side suit


def test_p2_the_led_seven_of_diamonds_is_trumped():
    hand = new_hand(P2, "8S TC")
    auction(hand, "W 1, N 2, W pass, E pass, S 3, N pass")
    assert (hand.declarer, hand.phase, hand.to_act) == (S, Phase.DECLARE, S)
    hand.push(Declare(trump=Suit.HEARTS), S)
    plays(hand, "W 7D, N 8H, E TH, S JH")
    assert hand.tricks[0].winner == S


def test_p7_the_older_hand_holds_and_the_survivor_cannot_raise():
    hand = new_hand()
    auction(hand, "W 2, N 2H, W hold, N 3, W 3H, N pass, E 4, W hold, E 4H, W pass")
    with pytest.raises(IllegalAction) as caught:
        call(hand, S, "hold")
    assert caught.value.rule == "hold-by-younger-hand"
    auction(hand, "S 5, E hold, S pass")
    assert (hand.declarer, hand.contract.text, hand.phase) == (E, "5", Phase.DECLARE)


def test_the_younger_hand_must_go_higher_and_the_older_may_match():
    hand = new_hand()
    call(hand, W, "2")
    assert HOLD not in hand.legal_actions()
    with pytest.raises(IllegalAction) as caught:
        call(hand, N, "2")
    assert caught.value.rule == "bid-too-low" and "higher than 2" in caught.value.message
    call(hand, N, "2H")
    assert HOLD in hand.legal_actions() and hand.to_act == W


def test_shooter_shuts_out_even_the_older_hand():
    hand = new_hand()
    auction(hand, "W 1, N 5H")
    assert (hand.declarer, hand.contract.text, hand.phase, hand.to_act) == (N, "5H", Phase.PLAY, W)


def test_an_opening_shooter_ends_the_auction_at_once():
    hand = new_hand()
    auction(hand, "W pass, N 5H")
    assert hand.declarer == N and hand.phase is Phase.PLAY


def test_vorhand_may_pass_and_the_contests_start_after_the_opener():
    hand = new_hand()
    auction(hand, "W pass, N pass, E 1")
    assert hand.to_act == S
    auction(hand, "S 2, E pass")
    assert hand.declarer == S and hand.contract.text == "2"


def test_all_pass_throws_the_hand_in_or_vorhand_plays_one():
    hand = new_hand()
    auction(hand, "W pass, N pass, E pass, S pass")
    assert hand.is_over() and hand.result().result == "void" and hand.result().score == (0, 0)
    forced = new_hand(all_pass="vorhand-plays-one")
    auction(forced, "W pass, N pass, E pass, S pass")
    assert (forced.declarer, forced.contract.text, forced.phase) == (W, "1", Phase.DECLARE)


def test_diamonds_cannot_be_trumps():
    hand = new_hand(P2, "8S TC")
    auction(hand, "W 1, N 2, W pass, E pass, S 3, N pass")
    with pytest.raises(IllegalAction) as caught:
        hand.push(Declare(trump=Suit.DIAMONDS), S)
    assert caught.value.rule == "no-diamond-trumps"
    assert hand.phase is Phase.DECLARE


def test_the_seven_of_diamonds_cannot_be_played_while_its_holder_can_follow():
    hand = new_hand()
    auction(hand, "W 1, N 1H, W pass, E pass, S pass")
    plays(hand, "W TS")
    with pytest.raises(IllegalAction) as caught:
        hand.push(play(card("7D")), N)
    assert caught.value.rule == "must-follow-suit"
    assert "seat 0 holds spades and must follow suit" in caught.value.message


def test_in_a_suit_contract_the_seven_played_on_another_suit_is_a_discard():
    hand = new_hand(P2, "8S TC")
    auction(hand, "W 1, N pass, E pass, S pass")
    hand.push(Declare(trump=Suit.SPADES), W)
    plays(hand, "W 8C, N 9C, E JC, S AC")
    assert hand.tricks[0].winner == S
    hand2 = new_hand({N: "9C AS TS AH 8H", E: "9S TH KC QC JC", S: "KH QH JH 9H AC", W: "KS QS JS 8C 7D"}, "8S TC")
    auction(hand2, "W 1, N pass, E pass, S pass")
    hand2.push(Declare(trump=Suit.CLUBS), W)
    plays(hand2, "W KS, N AS, E 9S, S KH")
    assert hand2.tricks[0].winner == N  # hearts on spades: a discard


def test_play_stops_as_soon_as_the_contract_is_set():
    hand = new_hand()
    auction(hand, "W pass, N 5, E pass, S pass")
    hand.push(Declare(trump=Suit.HEARTS), N)
    plays(hand, "W TS, N QS, E AS, S 9S")  # E-W take one trick: poley is set
    r = hand.result()
    assert hand.is_over() and (r.result, r.score) == ("set", (0, 10))
    with pytest.raises(IllegalAction) as caught:
        hand.push(play(card("KC")), W)
    assert caught.value.rule == "hand-over"


def test_out_of_turn_and_during_the_auction():
    hand = new_hand()
    with pytest.raises(NotYourTurn):
        call(hand, N, "1")
    with pytest.raises(IllegalAction) as caught:
        hand.push(play(card("TS")), W)
    assert caught.value.rule == "not-play-now"
    with pytest.raises(CardNotHeld):
        hand.push(play(card("AS")), W)


def test_a_revoke_stands_under_penalise_and_is_recorded():
    hand = new_hand()
    auction(hand, "W 1, N 1H, W pass, E pass, S pass")
    plays(hand, "W TS")
    hand.push(play(card("7D")), N, allow_revoke=True)
    assert hand.revokes[0].seat == N and hand.revokes[0].rule == "must-follow-suit"
    hand.pop()
    assert hand.revokes == () and hand.to_act == N


@pytest.mark.parametrize(
    ("contract", "value"),
    [("1", 1), ("1H", 2), ("2", 2), ("2H", 4), ("3", 3), ("3H", 6), ("4", 4), ("4H", 8), ("5", 10), ("5H", 20)],
)
def test_contract_values(contract, value):
    from engine.games.poley import VALUES

    assert VALUES[POLEY.parse_call(contract, None).level] == value


def test_schimpf_follows_the_deal_history():
    # Won on the winning side's own deal: the dealer's partner deals, skipping the left-hand opponent.
    assert schimpf_dealer(S, 0, (-1, -1, 0, -1)) == N
    # Won on an opponent's deal: normally the next player on the left.
    assert schimpf_dealer(W, 0, (0, 1, 2, 3)) == N
    # Neither member of the winning side has dealt: the deal passes to the left.
    assert schimpf_dealer(E, 0, (-1, 0, -1, -1)) == S
    # The exception: E dealt hand 3 and N-S won a horse, so N dealt hand 4 (a Schimpf); E-W win
    # a horse on that deal. E, on N's left, dealt more recently than W, so W deals, not E.
    assert schimpf_dealer(N, 1, (4, 3, 2, 1)) == W


def test_a_horse_resets_both_scores_and_two_horses_end_the_game():
    match = Match(POLEY, start={"score": [18, 7], "horses": [0, 1]})
    hand = match.deal([cards(P1[s]) for s in range(4)], cards("8S 9H"), dealer=S)
    auction(hand, "W 1, N 1H, W hold, N 2, W pass, E 2H, N hold, E pass, S pass")
    plays(hand, "W KC, N 7D, E 9C, S 8C, N AH, E 8H, S TH, W TS")
    standing = match.standing
    assert isinstance(standing, PoleyStanding)
    assert (standing.score, standing.horses, standing.over, standing.winner) == ((0, 0), (0, 2), True, 0)


def test_pop_restores_every_state_attribute():
    hand = new_hand()
    before = hand._snapshot(hand)
    auction(hand, "W 1, N 1H, W hold")
    for _ in range(3):
        hand.pop()
    assert hand._snapshot(hand) == before and hand.moves == []
    with pytest.raises(IllegalAction):
        hand.pop()


def test_legal_actions_are_exactly_what_push_accepts():
    hand = new_hand()
    auction(hand, "W 1, N 1H, W hold, N 2, W pass, E 2H, N hold, E pass, S pass")
    plays(hand, "W KC")
    legal = set(hand.legal_actions())
    for c in hand.holding(N):
        assert hand.is_legal(play(c)) == (play(c) in legal)
    assert PASS not in legal
