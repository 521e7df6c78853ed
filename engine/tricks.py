"""The trick-taking core shared by all five games.

A game describes its contract's trick rules as data, a :class:`TrickRules`:

- ``suit_of[i]``: the suit a card belongs to *for following* (a joker is a trump in a Bid
  Whist trump contract, and belongs to no suit in no-trump);
- ``strength[i]``: how high a card ranks within its suit (higher wins);
- ``trump_mask``: the cards that beat every card that is not one of them. Usually the trump
  suit; in Poley's hot contracts it is the seven of diamonds alone.

From that data the core answers who may play what, and who wins a trick. Cards in a trick
are indices; the comparison is strict in play order, so of two identical cards (Fifty-Six's
two packs) the earlier one wins.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import CARD_COUNT, Suit, suit_mask

NO_SUIT = -1


class TrickRules:
    """A contract's trick rules as data (see the module docstring). Immutable by convention."""

    __slots__ = ("_keys_by_led", "strength", "suit_masks", "suit_of", "trump_mask")

    def __init__(
        self, suit_of: tuple[int, ...], suit_masks: tuple[int, ...], strength: tuple[int, ...], trump_mask: int = 0
    ) -> None:
        self.suit_of = suit_of
        self.suit_masks = suit_masks
        self.strength = strength
        self.trump_mask = trump_mask
        # For each led suit, every card's key in the comparison: trumps above the led suit,
        # the led suit by strength, anything else -1 (it cannot win). Index -1: no suit led.
        self._keys_by_led = tuple(self._keys(led) for led in (*range(len(suit_masks)), NO_SUIT))

    def _keys(self, led: int) -> tuple[int, ...]:
        keys = []
        for index, suit in enumerate(self.suit_of):
            if (self.trump_mask >> index) & 1:
                keys.append(1000 + self.strength[index])
            elif suit == led and led != NO_SUIT:
                keys.append(self.strength[index])
            else:
                keys.append(-1)
        return tuple(keys)

    def led_suit(self, trick: Sequence[int]) -> int:
        """The suit to follow: that of the first card that has one (a led joker sets none)."""
        for index in trick:
            suit = self.suit_of[index]
            if suit != NO_SUIT:
                return suit
        return NO_SUIT

    def legal_mask(self, hand: int, trick: Sequence[int]) -> int:
        """The cards of ``hand`` that may be played to ``trick``: follow suit if able."""
        if not trick:
            return hand
        led = self.suit_of[trick[0]]
        if led == NO_SUIT:
            led = self.led_suit(trick)
            if led == NO_SUIT:
                return hand
        following = hand & self.suit_masks[led]
        return following or hand

    def winner(self, trick: Sequence[int]) -> int:
        """The position in ``trick`` of the winning card (the earlier of two equals)."""
        keys = self._keys_by_led[self.led_suit(trick)]
        best, best_key = 0, keys[trick[0]]
        for position in range(1, len(trick)):
            key = keys[trick[position]]
            if key > best_key:
                best, best_key = position, key
        return best


def natural_suits() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``suit_of`` and ``suit_masks`` for an ordinary pack; jokers have no suit."""
    suit_of = tuple(i // 13 if i < 52 else NO_SUIT for i in range(CARD_COUNT))
    masks = tuple(suit_mask(s) for s in Suit)
    return suit_of, masks


def strength_by_rank(order: str) -> tuple[int, ...]:
    """Strengths from a rank order written high to low ("AKQJT98765432", "J9ATKQ")."""
    strength = [0] * CARD_COUNT
    for i in range(52):
        letter = "23456789TJQKA"[i % 13]
        position = order.find(letter)
        strength[i] = len(order) - position if position >= 0 else 0
    return tuple(strength)


def trick_rules(order: str, trump: Suit | None) -> TrickRules:
    """Plain rules: one rank order in every suit, an optional trump suit."""
    suit_of, masks = natural_suits()
    trump_mask = masks[trump] if trump is not None else 0
    return TrickRules(suit_of, masks, strength_by_rank(order), trump_mask)
