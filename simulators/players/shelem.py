"""A simulated Shelem player: bids by counting sure tricks and point cards, buries well.

The estimate of what a hand can take: sure tricks (aces, kings behind their own ace, the
length of a long suit beyond four) at about 12 points each, plus half the card points held,
on top of what an average partner and the widow bring. A player bids the lowest bid allowed
while it is within the estimate, and passes otherwise. The declarer makes his longest suit
trumps, buries his weakest cards outside it, and leads its highest card.
"""

from __future__ import annotations

from engine.actions import PASS, Action, Call, Discard
from engine.cards import Card, Rank, Suit
from engine.games.shelem import BIDS, CARD_POINTS, ShelemHand
from engine.hand import Hand, Phase
from simulators.players.base import RandomPlayer
from simulators.players.tricks import choose_play

BASE_ESTIMATE = 70  # what partner and the widow are worth to an average hand
POINTS_PER_SURE_TRICK = 12


def longest_suit(held: list[Card]) -> Suit:
    by_suit = {s: [c for c in held if c.suit is s] for s in Suit}
    return max(Suit, key=lambda s: (len(by_suit[s]), sum(CARD_POINTS[c.index] + c.index % 13 for c in by_suit[s])))


def sure_tricks(held: list[Card]) -> int:
    tricks = 0
    for suit in Suit:
        ranks = {c.rank for c in held if c.suit is suit}
        tricks += (Rank.ACE in ranks) + (Rank.ACE in ranks and Rank.KING in ranks) + max(0, len(ranks) - 4)
    return tricks


def estimate(held: list[Card]) -> int:
    """The points this hand expects its side to take as declarer."""
    points = sum(CARD_POINTS[c.index] for c in held)
    return BASE_ESTIMATE + POINTS_PER_SURE_TRICK * sure_tricks(held) + points // 2


def keep_value(c: Card, trump: Suit) -> int:
    """How much the declarer wants to keep a card: trumps, aces, then by rank."""
    rank = c.index % 13
    return (100 if c.suit is trump else 0) + (50 if c.rank is Rank.ACE else 0) + rank


class ShelemPlayer(RandomPlayer):
    def choose(self, hand: Hand, seat: int) -> Action:
        assert isinstance(hand, ShelemHand)
        if hand.phase is Phase.AUCTION:
            return self._call(hand, seat)
        if hand.phase is Phase.DISCARD:
            return self._bury(hand, seat)
        if hand.phase is Phase.PLAY and not hand.tricks and not hand.current_trick:
            held = hand.holding(seat)
            trump = longest_suit(held)
            best = max((c for c in held if c.suit is trump), key=lambda c: c.index)
            return next(a for a in hand.legal_actions() if getattr(a, "card", None) == best)
        return choose_play(hand, seat, hand.trick_rules)

    @staticmethod
    def _call(hand: ShelemHand, seat: int) -> Call:
        legal = [a for a in hand.legal_actions() if isinstance(a, Call)]
        bids = [c for c in legal if c is not PASS]
        worth = estimate(hand.holding(seat))
        if bids and int(bids[0].text) <= min(worth, int(BIDS[-1].text)):
            return bids[0]
        return PASS if PASS in legal else legal[0]

    @staticmethod
    def _bury(hand: ShelemHand, seat: int) -> Discard:
        held = hand.holding(seat)
        trump = longest_suit(held)
        weakest = sorted(held, key=lambda c: keep_value(c, trump))[:4]
        return Discard(tuple(weakest))
