"""Cards, packs and the shared trick core."""

from __future__ import annotations

import pytest

from engine.cards import FIFTY_SIX_48, POLEY_22, STANDARD_52, WITH_JOKERS_54, Card, Suit, card, cards, pack_difference
from engine.errors import BadNotation
from engine.hand import codes, hand_mask
from engine.tricks import NO_SUIT, TrickRules, natural_suits, strength_by_rank, trick_rules


def idx(codes_: str) -> tuple[int, ...]:
    return tuple(c.index for c in cards(codes_))


def test_codes_round_trip_and_are_case_insensitive():
    for c in WITH_JOKERS_54:
        assert Card.from_str(str(c)) is c
        assert Card.from_str(str(c).lower()) is c
    assert str(card("th")) == "TH"
    assert card("TH").name() == "the ten of hearts"
    assert card("BJ").name() == "the big joker" and card("BJ").suit is None


@pytest.mark.parametrize("text", ["", "T", "1H", "TX", "10H", "JJ", "AH ", None, 7])
def test_bad_codes_raise_bad_notation(text):
    with pytest.raises(BadNotation):
        Card.from_str(text)


def test_every_pack_has_its_cards():
    assert len(POLEY_22) == 22 and len(set(POLEY_22)) == 22
    assert card("7D") in POLEY_22 and sum(c.suit is Suit.DIAMONDS for c in POLEY_22) == 1
    assert len(STANDARD_52) == 52 and len(WITH_JOKERS_54) == 54
    assert len(FIFTY_SIX_48) == 48 and len(set(FIFTY_SIX_48)) == 24
    assert all(FIFTY_SIX_48.count(c) == 2 for c in set(FIFTY_SIX_48))


def test_pack_difference_names_missing_and_extra_cards():
    dealt = list(POLEY_22)
    dealt.remove(card("9H"))
    dealt.append(card("QS"))
    difference = pack_difference(POLEY_22, dealt)
    assert difference.missing == (card("9H"),) and difference.extra == (card("QS"),)
    assert difference.describe() == "missing 9H; extra QS"
    assert not pack_difference(FIFTY_SIX_48, list(reversed(FIFTY_SIX_48)))


def test_a_second_copy_is_held_apart_but_plays_as_the_same_card():
    mask = hand_mask(cards("JH JH 9S"))
    assert codes(mask) == hand_mask(cards("JH 9S"))
    assert mask != codes(mask)


def test_follow_suit_if_able_else_anything():
    rules = trick_rules("AKQJT98765432", Suit.SPADES)
    hand = hand_mask(cards("AH 2H KC 3S"))
    assert rules.legal_mask(hand, idx("5H")) == hand_mask(cards("AH 2H"))
    assert rules.legal_mask(hand, idx("5D")) == hand  # void: any card, trumping not forced
    assert rules.legal_mask(hand, ()) == hand


def test_highest_trump_wins_else_highest_of_the_led_suit():
    rules = trick_rules("AKQJT98765432", Suit.SPADES)
    assert rules.winner(idx("5H AH 2S KH")) == 2
    assert rules.winner(idx("5H AH 2S 3S")) == 3
    assert rules.winner(idx("5H AD KC 2H")) == 0  # other suits cannot win


def test_of_two_identical_cards_the_earlier_wins():
    rules = trick_rules("J9ATKQ", None)
    assert rules.winner(idx("QH JH 9H JH TH 9H")) == 1
    assert rules.winner(idx("QH JS JS")) == 0


def test_a_suitless_card_never_wins_and_a_led_one_lets_the_next_card_set_the_suit():
    suit_of, masks = natural_suits()
    rules = TrickRules(suit_of, masks, strength_by_rank("AKQJT98765432"))
    assert suit_of[52] == NO_SUIT
    assert rules.led_suit(idx("BJ 4C")) == Suit.CLUBS
    assert rules.winner(idx("BJ 4C AH 2C")) == 1
    hand = hand_mask(cards("KC AH"))
    assert rules.legal_mask(hand, idx("BJ")) == hand
    assert rules.legal_mask(hand, idx("BJ 4C")) == hand_mask(cards("KC"))
