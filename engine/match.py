"""A match: a sequence of hands of one game, with its cumulative standing.

The standing is folded from finished hands: a hand's result is settled into it when the next
hand is dealt, so that the action ending a hand can still be taken back until then.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.cards import Card, pack_difference
from engine.errors import DealError, DeckMismatch, MatchOver
from engine.game import Game, Standing
from engine.hand import Deal, Hand

_PACK_INDICES: dict[int, tuple[tuple[Card, ...], list[int]]] = {}


def _pack_indices(pack: tuple[Card, ...]) -> list[int]:
    """A pack's card indices in order: what a shuffled deal of it must sort back into."""
    # Keyed by identity: a game's pack is one long-lived tuple, and hashing its cards costs more.
    known = _PACK_INDICES.get(id(pack))
    if known is None or known[0] is not pack:
        known = _PACK_INDICES[id(pack)] = (pack, sorted(c.index for c in pack))
    return known[1]


class Match:
    def __init__(
        self,
        game: Game,
        options: Any = None,
        players: int | None = None,
        start: Mapping[str, Any] | None = None,
    ) -> None:
        self.game = game
        self.players = players if players is not None else game.default_players()
        self.options = options if options is not None else game.options(None, self.players)
        self._settled = game.start(self.players, self.options, start)
        self.hands: list[Hand] = []
        self._pack_indices = _pack_indices(game.pack)
        self._folded: tuple[Hand, int, Standing] | None = None  # the current hand's result, cached

    @property
    def current(self) -> Hand | None:
        return self.hands[-1] if self.hands else None

    @property
    def standing(self) -> Standing:
        """The match state now, counting the current hand if it has ended."""
        hand = self.current
        if hand is None or not hand.is_over():
            return self._settled
        cached = self._folded
        if cached is None or cached[0] is not hand or cached[1] != hand.version:
            cached = self._folded = (hand, hand.version, self.game.after_hand(self._settled, hand))
        return cached[2]

    def next_dealer(self) -> int | None:
        return self.standing.next_dealer

    def deal(self, hands: Sequence[Sequence[Card]], rest: Sequence[Card] = (), dealer: int | None = None) -> Hand:
        """Start the next hand with these cards; the dealer follows the rotation if omitted."""
        standing = self.standing
        if standing.over:
            raise MatchOver("the match is over: no further hand can be dealt")
        if self.hands and not self.hands[-1].is_over():
            raise DealError("the current hand has not ended: it cannot be dealt again yet")
        dealer = self._check_dealer(dealer, standing.next_dealer)
        self._check_cards(hands, rest, dealer)
        self._settled = standing
        deal = Deal(dealer, tuple(tuple(h) for h in hands), tuple(rest))
        hand = self.game.new_hand(deal, self.options, self._settled)
        self.hands.append(hand)
        return hand

    def _check_dealer(self, dealer: int | None, expected: int | None) -> int:
        if dealer is None:
            if expected is None:
                raise DealError("the first deal must name its dealer")
            return expected
        if not 0 <= dealer < self.players:
            raise DealError(f"dealer {dealer} is not a seat (seats are 0 to {self.players - 1})")
        if expected is not None and dealer != expected:
            raise DealError(f"seat {dealer} cannot deal: by the rules seat {expected} deals this hand")
        return dealer

    def _check_cards(self, hands: Sequence[Sequence[Card]], rest: Sequence[Card], dealer: int) -> None:
        if len(hands) != self.players:
            raise DealError(f"the deal has {len(hands)} hands, one per seat is {self.players}")
        dealt = [c.index for h in hands for c in h]
        dealt.extend([c.index for c in rest])
        dealt.sort()
        if dealt != self._pack_indices:  # a cheap comparison first; the cards are named after
            difference = pack_difference(self.game.pack, [c for h in hands for c in h] + list(rest))
            raise DeckMismatch(f"the cards dealt are not the {self.game.title} pack: {difference.describe()}")
        shape = self.game.deal_shape(self.players, self.options, dealer)
        if [len(h) for h in hands] != list(shape.per_seat):
            seat, size = next((s, n) for s, n in enumerate(shape.per_seat) if len(hands[s]) != n)
            raise DealError(f"seat {seat} was dealt {len(hands[seat])} cards; {self.game.title} deals it {size}")
        if len(rest) != shape.rest:
            raise DealError(f"{len(rest)} cards were left undealt; {self.game.title} leaves {shape.rest}")
