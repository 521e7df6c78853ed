"""A simulated Fifty-Six player: bids by counting points and sure tricks, plays legal cards."""

from __future__ import annotations

from engine.actions import DOUBLE, PASS, REDOUBLE, Action, Call
from engine.cards import Card, Rank, Suit
from engine.games.fifty_six import BIDS, LOWEST, POINTS, FiftySixHand
from engine.hand import Hand, Phase
from simulators.players.base import RandomPlayer

_BID_BY_TEXT = {c.text: c for c in BIDS}


def estimate(held: list[Card]) -> tuple[int, str]:
    """What the hand is worth to its team, and the denomination to bid it in ("S", "NT").

    A jack is a sure trick when led before its twin; length in trumps wins tricks by
    ruffing. The team's expected share of the points grows from the 28 of an average hand.
    """
    jacks = sum(c.rank is Rank.JACK for c in held)
    points = sum(POINTS[c.index] for c in held)
    best, denomination = 24 + 3 * jacks + points // 3, "NT"
    for suit in Suit:
        length = sum(c.suit is suit for c in held)
        in_suit = sum(POINTS[c.index] for c in held if c.suit is suit)
        value = 24 + 2 * jacks + 3 * max(0, length - 2) + in_suit // 2 + points // 4
        if value > best:
            best, denomination = value, suit.letter
    return min(best, 56), denomination


class FiftySixPlayer(RandomPlayer):
    def choose(self, hand: Hand, seat: int) -> Action:
        assert isinstance(hand, FiftySixHand)
        if hand.phase is Phase.AUCTION:
            return self._call(hand, seat)
        return super().choose(hand, seat)

    def _call(self, hand: FiftySixHand, seat: int) -> Call:
        legal = hand.legal_actions()
        worth, denomination = estimate(hand.holding(seat))
        standing = hand.standing_bid
        if standing is None:  # the compulsory opening
            return _BID_BY_TEXT[f"{max(LOWEST, min(worth, 32))}{denomination}"]
        partner_bid = (hand.bidder - seat) % 2 == 0
        if REDOUBLE in legal and worth >= standing.level + 4:
            return REDOUBLE
        if DOUBLE in legal and standing.level >= 40 and worth <= 30 and self.rng.random() < 0.5:
            return DOUBLE
        margin = 4 if partner_bid else 0
        if standing.level < 56 and worth >= standing.level + 1 + margin:
            bid = _BID_BY_TEXT[f"{standing.level + 1}{denomination}"]
            if bid in legal:
                return bid
        return PASS
