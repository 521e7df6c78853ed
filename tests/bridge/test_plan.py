"""The host's tally: fair slot choice, and a pack checked as it is read, with cards named."""

from __future__ import annotations

import random
from collections import Counter
from itertools import permutations

import pytest

from controller.dealing import EngineNames, plan_for
from engine.cards import FIFTY_SIX_48, card
from engine.games import get_game
from firmware_bridge.plan import DealPlan, DeckMismatch, Tally
from firmware_bridge.protocol import REST


def tally(game="poley", **kw):
    g = get_game(game)
    return Tally(plan_for(g, g.default_players()), **kw)


def test_a_foreign_card_is_named():
    with pytest.raises(DeckMismatch, match=r"the 2 of clubs \(2C\) does not belong in the Poley pack"):
        tally().choose(card("2C").index)


def test_a_second_copy_is_named():
    t = tally()
    t.choose(card("QS").index)
    with pytest.raises(DeckMismatch, match=r"two queens of spades \(QS\): the Poley pack has one"):
        t.choose(card("QS").index)


def test_a_third_copy_in_fifty_six_is_named_and_two_are_fine():
    t = tally("fifty-six")
    t.choose(card("9H").index)
    t.choose(card("9H").index)
    with pytest.raises(DeckMismatch, match=r"three 9s of hearts \(9H\): the Fifty-Six pack has two"):
        t.choose(card("9H").index)


def test_missing_cards_are_named():
    t = tally()
    for c in get_game("poley").pack:
        if str(c) not in ("9H", "TC"):
            t.choose(c.index)
    assert t.missing_message() == "the 10 of clubs (TC) and the 9 of hearts (9H) are missing"
    one = tally()
    for c in get_game("poley").pack:
        if str(c) != "9H":
            one.choose(c.index)
    assert one.missing_message() == "the 9 of hearts (9H) is missing"


def test_fifty_six_copies_may_go_to_different_seats():
    t = tally("fifty-six")
    seats = {t.choose(c.index) for c in FIFTY_SIX_48 if str(c) == "JS"}
    # Not always different, but both copies are dealt and counted.
    assert t.counted[card("JS").index] == 2 and seats <= set(range(6))


def test_a_returned_card_can_be_read_again():
    t = tally()
    dest = t.choose(card("AS").index)
    t.give_back(card("AS").index, dest)
    assert t.choose(card("AS").index) in (*range(4), REST)
    assert t.left() == 21


def test_every_deal_is_equally_likely_whatever_the_order():
    # 4 distinct cards to 2 seats of 1 and a rest of 2: 12 deals. Read in a fixed order,
    # each deal must come up about equally often.
    plan = DealPlan(pack=(0, 1, 2, 3), seats=(1, 1), rest=2, names=EngineNames())
    counts: Counter[tuple[int, ...]] = Counter()
    rng = random.Random(7)
    for _ in range(12000):
        t = Tally(plan, rng)  # type: ignore[arg-type]
        counts[tuple(t.choose(c) for c in (0, 1, 2, 3))] += 1
    assert len(counts) == 12
    assert set(counts) == set(permutations((0, 1, REST, REST)))
    assert all(800 < n < 1200 for n in counts.values()), counts


def test_a_predetermined_deal_is_followed():
    g = get_game("poley")
    pack = list(g.pack)
    hands = (*(tuple(pack[i * 5 : i * 5 + 5]) for i in range(4)), tuple(pack[20:]))
    from engine.log import DealEvent

    plan = plan_for(g, 4, DealEvent(hands=hands[:4], rest=hands[4], dealer=0))
    t = Tally(plan)
    for seat, hand in enumerate(hands):
        for c in hand:
            assert t.choose(c.index) == (REST if seat == 4 else seat)
