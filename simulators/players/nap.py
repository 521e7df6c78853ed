"""A simulated Nap player: calls the tricks it can count, leads its best suit, plays legal cards."""

from __future__ import annotations

from engine.actions import PASS, Action, Call, play
from engine.cards import Card, Rank, Suit
from engine.games.nap import FOUR, MISERY, NAP, ONE, THREE, TWO, NapHand
from engine.hand import Hand, Phase
from simulators.players.base import RandomPlayer

_BY_TRICKS = {1: ONE, 2: TWO, 3: THREE, 4: FOUR, 5: NAP}


def best_suit(held: list[Card]) -> Suit:
    """The suit to lead for trumps: the longest, then the highest."""
    return max(
        Suit, key=lambda s: (sum(c.suit is s for c in held), max((c.index for c in held if c.suit is s), default=-1))
    )


def sure_tricks(held: list[Card]) -> int:
    """Trumps from the jack up (all of them with five or more), side aces, one for length."""
    trump = best_suit(held)
    trumps = [c for c in held if c.suit is trump]
    tricks = sum(c.rank is not None and c.rank >= Rank.JACK for c in trumps)
    tricks += sum(c.rank is Rank.ACE and c.suit is not trump for c in held)
    if len(trumps) >= 4:
        tricks += 1
    return min(tricks, 5)


class NapPlayer(RandomPlayer):
    def choose(self, hand: Hand, seat: int) -> Action:
        assert isinstance(hand, NapHand)
        if hand.phase is Phase.AUCTION:
            return self._call(hand, seat)
        if hand.trump is None and not hand.tricks and not hand.current_trick:
            held = hand.holding(seat)
            trump = best_suit(held)
            return play(max((c for c in held if c.suit is trump), key=lambda c: c.index))
        return super().choose(hand, seat)

    def _call(self, hand: NapHand, seat: int) -> Call:
        legal = hand.legal_actions()
        held = hand.holding(seat)
        if MISERY in legal and all(c.rank is not None and c.rank <= Rank.SEVEN for c in held):
            return MISERY
        tricks = sure_tricks(held)
        for count in range(tricks, 0, -1):
            if _BY_TRICKS[count] in legal:
                return _BY_TRICKS[count]
        return PASS
