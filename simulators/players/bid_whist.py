"""A simulated Bid Whist player: bids by counting sure books, takes the kitty sensibly.

For each possible contract (a trump suit high or low, no-trump high or low) the player
counts sure books: the unbroken run of top cards in each suit in that direction, the jokers
and the length beyond three in the trump suit, the length beyond four in a no-trump suit
headed by two top cards. With the kitty and an average partner's two books on top, the
best contract that reaches the table's bid is bid at the lowest level allowed.
"""

from __future__ import annotations

from engine.actions import PASS, Action, Call, Declare, Direction, Discard, JokerSwap
from engine.cards import Card, Suit
from engine.games.bid_whist import KINDS, BidWhistHand, bid_kind, bid_number
from engine.hand import Hand, Phase
from simulators.players.base import RandomPlayer
from simulators.players.tricks import choose_play

ORDERS = {Direction.HIGH: "AKQJT98765432", Direction.LOW: "A23456789TJQK"}
PARTNER_AND_KITTY = 3


def _letters(held: list[Card], suit: Suit) -> set[str]:
    return {str(c)[0] for c in held if c.suit is suit}


def top_run(held: list[Card], suit: Suit, direction: Direction) -> int:
    letters, run = _letters(held, suit), 0
    for letter in ORDERS[direction]:
        if letter not in letters:
            break
        run += 1
    return run


def books(held: list[Card], direction: Direction, trump: Suit | None) -> int:
    """Sure books of a hand for a contract (``trump`` None: no-trump)."""
    total = 0
    for suit in Suit:
        run = top_run(held, suit, direction)
        length = len(_letters(held, suit))
        total += run
        if suit is trump:
            total += max(0, length - 3 - run) + sum(c.is_joker for c in held)
        elif trump is None and run >= 2:
            total += max(0, length - 4)
    return total


def best_contract(held: list[Card]) -> tuple[int, str, Suit | None, Direction]:
    """(books, kind, trump, direction) of the strongest contract for this hand."""
    options = []
    for direction in Direction:
        kind = "high" if direction is Direction.HIGH else "low"
        for suit in Suit:
            options.append((books(held, direction, suit), kind, suit, direction))
        options.append((books(held, direction, None), "no", None, direction))
    return max(options, key=lambda o: (o[0], KINDS.index(o[1])))


def keep_value(c: Card, trump: Suit | None, direction: Direction) -> int:
    if c.is_joker:
        return 200 if trump is not None else -1  # worthless in no-trump: lay it away
    assert c.suit is not None
    strength = 13 - ORDERS[direction].index(str(c)[0])
    return (100 if c.suit is trump else 0) + strength


class BidWhistPlayer(RandomPlayer):
    def choose(self, hand: Hand, seat: int) -> Action:
        assert isinstance(hand, BidWhistHand)
        phase = hand.phase
        if phase is Phase.AUCTION:
            return self._call(hand, seat)
        if phase is Phase.DECLARE:
            return self._declare(hand, seat)
        if phase is Phase.DISCARD:
            return self._discard(hand, seat)
        if phase is Phase.JOKER_SWAP:  # a joker is worthless in no-trump: draw blind from the kitty
            swaps = [a for a in hand.legal_actions() if isinstance(a, JokerSwap) and a.card is not None]
            return swaps[self.rng.randrange(len(swaps))] if swaps else hand.legal_actions()[0]
        return choose_play(hand, seat, hand.trick_rules)

    @staticmethod
    def _call(hand: BidWhistHand, seat: int) -> Call:
        legal = [a for a in hand.legal_actions() if isinstance(a, Call)]
        count, kind, _, _ = best_contract(hand.holding(seat))
        level = count + PARTNER_AND_KITTY - 6
        wanted = [c for c in legal if c is not PASS and bid_kind(c) == kind and bid_number(c) <= level]
        if wanted:
            return wanted[0]
        return PASS if PASS in legal else legal[0]  # the dealer's forced bid: the cheapest

    @staticmethod
    def _declare(hand: BidWhistHand, seat: int) -> Declare:
        held = hand.holding(seat)
        assert hand.contract is not None
        kind = bid_kind(hand.contract)
        if kind == "no":
            direction = max(Direction, key=lambda d: books(held, d, None))
            return Declare(direction=direction)
        direction = Direction.HIGH if kind == "high" else Direction.LOW
        return Declare(trump=max(Suit, key=lambda s: books(held, direction, s)))

    @staticmethod
    def _discard(hand: BidWhistHand, seat: int) -> Discard:
        assert hand.direction is not None
        held = hand.holding(seat)
        value = {c: keep_value(c, hand.trump, hand.direction) for c in held}
        # Prefer to empty short side suits: a card's value rises with the length of its suit.
        length = {s: sum(c.suit is s for c in held) for s in Suit}
        ranked = sorted(held, key=lambda c: value[c] + (3 * length[c.suit] if c.suit is not None else 0))
        return Discard(tuple(ranked[:6]))


__all__ = ["BidWhistPlayer"]
