"""A simulated Poley player: the rule sheet's rule of thumb for bidding, random legal play."""

from __future__ import annotations

from engine.actions import Action, Call, CallKind, Declare
from engine.cards import Rank, Suit
from engine.games.poley import LADDER, PoleyHand
from engine.hand import Hand, Phase
from simulators.players.base import RandomPlayer


class PoleyPlayer(RandomPlayer):
    """The Poley rule sheet's rule of thumb: one trick per ace, and hot with the seven of
    diamonds (which counts as a trick too); a player whose partner has bid adds his own
    aces to the partner's bid, as the sheet's strategy section teaches. Trumps: the longest
    suit."""

    def choose(self, hand: Hand, seat: int) -> Action:
        assert isinstance(hand, PoleyHand)
        if hand.phase is Phase.AUCTION:
            return self._call(hand, seat)
        if hand.phase is Phase.DECLARE:
            return self._trumps(hand, seat)
        return super().choose(hand, seat)

    @staticmethod
    def target(hand: Hand, seat: int) -> Call | None:
        """The highest bid this seat will make: its aces and the hot one, plus its partner's bid."""
        held = hand.holding(seat)
        hot = any(c.suit is Suit.DIAMONDS for c in held)
        tricks = sum(c.rank is Rank.ACE for c in held) + hot
        partner = _partners_last_bid(hand, seat)
        if partner is not None and tricks:
            tricks += partner.level // 2 + 1  # the partner's bid showed his aces (and the hot one)
            hot = hot or partner.level % 2 == 1
        return LADDER[2 * (min(tricks, 5) - 1) + hot] if tricks else None

    def _call(self, hand: PoleyHand, seat: int) -> Call:
        legal = [a for a in hand.legal_actions() if isinstance(a, Call)]
        target = self.target(hand, seat)
        bids = [c for c in legal if c.kind is CallKind.BID]
        if target is None or not bids or bids[0].level > target.level:
            # Nothing to show, or the standing bid is already beyond what the hand is worth.
            older = any(c.kind is CallKind.HOLD for c in legal)
            worth_holding = target is not None and bids and bids[0].level - 1 <= target.level
            return next(c for c in legal if c.kind is CallKind.HOLD) if older and worth_holding else legal[0]
        if len(bids) == len(LADDER):  # opening: show the count of aces (and the hot one)
            return target
        if any(c.kind is CallKind.HOLD for c in legal):  # the older hand matches rather than raises
            return next(c for c in legal if c.kind is CallKind.HOLD)
        return bids[0]  # the younger hand goes one step higher

    @staticmethod
    def _trumps(hand: Hand, seat: int) -> Declare:
        counts = {s: 0 for s in (Suit.CLUBS, Suit.HEARTS, Suit.SPADES)}
        for c in hand.holding(seat):
            if c.suit in counts:
                counts[c.suit] += 1
        return Declare(trump=max(counts, key=lambda s: counts[s]))


def _partners_last_bid(hand: Hand, seat: int) -> Call | None:
    partner = (seat + 2) % 4
    bids = [a for s, a in hand.moves if s == partner and isinstance(a, Call) and a.kind is CallKind.BID]
    return bids[-1] if bids else None
