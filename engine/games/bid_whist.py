"""Bid Whist: rules.md section 4.

Four players in two pairs, 52 cards and two jokers: twelve each and a kitty of six. One
round of bidding on a 15-step ladder (3 high < 3 low < 3 no < 4 high ... 7 no); the dealer
must bid if the others pass. The declarer names trumps (or, in no-trump, the direction),
takes the kitty and lays away six; in no-trump the other joker holders may then swap their
jokers for kitty cards. The kitty is the declaring team's first book; a renege costs three.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.actions import PASS, Call, CallKind, Declare, Direction, Discard, JokerSwap
from engine.cards import BIG_JOKER, CARDS, LITTLE_JOKER, WITH_JOKERS_54, Card, Suit
from engine.combinations import Discards, discard_mask
from engine.errors import BadNotation, CardNotHeld, Fact, IllegalAction
from engine.game import DealShape, Game, Standing, int_list, refused_call, start_fields
from engine.hand import DECLARE, DISCARD, JOKER_SWAP, Deal, Hand, HandResult
from engine.options import RevokePolicy, bounds
from engine.tricks import NO_SUIT, TrickRules, natural_suits, strength_by_rank


@dataclass(frozen=True, slots=True)
class BidWhistOptions:
    revoke: RevokePolicy = "penalise"
    min_bid: int = field(default=3, metadata=bounds(3, 4))
    low_equals_high: bool = False
    dealer_may_take: bool = False
    joker_shed: bool = False
    no_trump_double: bool = False
    target: int = field(default=7, metadata=bounds(1, 99))


KINDS = ("high", "low", "no")
LADDER: tuple[Call, ...] = tuple(
    Call(f"{n}{kind}", CallKind.BID, 3 * (n - 3) + k) for n in range(3, 8) for k, kind in enumerate(KINDS)
)
_CALLS = {c.text: c for c in (PASS, *LADDER)} | {str(n): LADDER[3 * (n - 3)] for n in range(3, 8)}
KITTY = 6
RENEGE_BOOKS = 3
JOKERS = (1 << BIG_JOKER) | (1 << LITTLE_JOKER)
_ORDERS = {Direction.HIGH: "AKQJT98765432", Direction.LOW: "A23456789TJQK"}


def bid_number(call: Call) -> int:
    return call.level // 3 + 3


def bid_kind(call: Call) -> str:
    return KINDS[call.level % 3]


def _rank(call: Call, low_equals_high: bool) -> int:
    """A bid's height for overcalling: with ``low-equals-high``, n low ties n high."""
    k = call.level % 3
    return 3 * (call.level // 3) + (0 if low_equals_high and k == 1 else k)


class JokerShedRules(TrickRules):
    """No-trump rules with ``joker-shed``: a holder who cannot follow must play his joker."""

    __slots__ = ()

    def legal_mask(self, hand: int, trick: Sequence[int]) -> int:
        legal = super().legal_mask(hand, trick)
        if trick and self.led_suit(trick) != NO_SUIT and not hand & self.suit_masks[self.led_suit(trick)]:
            return hand & JOKERS or legal
        return legal


def _trump_rules(trump: Suit, direction: Direction) -> TrickRules:
    suit_of, masks = natural_suits()
    strength = list(strength_by_rank(_ORDERS[direction]))
    strength[BIG_JOKER], strength[LITTLE_JOKER] = 15, 14
    suits = list(suit_of)
    suits[BIG_JOKER] = suits[LITTLE_JOKER] = trump
    suit_masks = tuple(m | JOKERS if s == trump else m for s, m in enumerate(masks))
    return TrickRules(tuple(suits), suit_masks, tuple(strength), suit_masks[trump])


def _no_trump_rules(direction: Direction, shed: bool) -> TrickRules:
    suit_of, masks = natural_suits()
    strength = strength_by_rank(_ORDERS[direction])  # jokers: no suit, strength 0, never win
    return (JokerShedRules if shed else TrickRules)(suit_of, masks, strength, 0)


TRUMP_RULES = {(s, d): _trump_rules(s, d) for s in Suit for d in Direction}
NO_TRUMP_RULES = {(d, shed): _no_trump_rules(d, shed) for d in Direction for shed in (False, True)}
TRUMP_DECLARES = tuple(Declare(trump=s) for s in Suit)
DIRECTION_DECLARES = tuple(Declare(direction=d) for d in Direction)


@functools.cache
def legal_calls(standing: int, dealer: bool, options: BidWhistOptions) -> tuple[Call, ...]:
    """The calls open to a seat: ``standing`` is the ladder level of the bid to beat (-1: none)."""
    leh = options.low_equals_high
    bids = [c for c in LADDER if bid_number(c) >= options.min_bid]
    if standing >= 0:
        height = _rank(LADDER[standing], leh)
        take = dealer and options.dealer_may_take
        bids = [c for c in bids if _rank(c, leh) > height or (take and _rank(c, leh) == height)]
    forced = dealer and standing < 0
    return tuple(bids) if forced else (PASS, *bids)


class BidWhistHand(Hand):
    STATE = (
        *Hand.STATE,
        "declarer",
        "contract",
        "trump",
        "direction",
        "kitty",
        "_high",
        "_bidder",
        "_spoken",
        "_swap_step",
    )
    GAME = "bid-whist"

    def __init__(self, deal: Deal, options: BidWhistOptions) -> None:
        super().__init__(deal, options)
        self.declarer: int | None = None
        self.contract: Call | None = None
        self.trump: Suit | None = None
        self.direction: Direction | None = None
        self.kitty = sum(1 << c.index for c in deal.rest)  # the dealt kitty, then the cards laid away
        self._high = -1  # the highest bid's ladder level
        self._bidder = -1
        self._spoken = 0  # calls made: one round of four
        self._swap_step = 0  # 0: the big joker's holder may swap, 1: the little joker's

    @property
    def trick_rules(self) -> TrickRules | None:
        """The trick rules in force (for players that reason about the trick)."""
        return self._rules

    @property
    def no_trump(self) -> bool:
        return self.contract is not None and self.contract.level % 3 == 2

    # --- auction -------------------------------------------------------------------

    def _legal_calls(self) -> Sequence[Call]:
        return legal_calls(self._high, self.to_act == self.dealer, self.options)

    def _apply_call(self, call: Call) -> None:
        if call is not PASS:
            self._high, self._bidder = call.level, self.to_act  # type: ignore[assignment]
        self._spoken += 1
        if self._spoken < 4:
            assert self.to_act is not None
            self.to_act = self.next_seat(self.to_act)
            return
        self.declarer, self.contract = self._bidder, LADDER[self._high]
        self.phase = DECLARE
        self.to_act = self.declarer
        if not self.no_trump:
            self.direction = Direction.LOW if self.contract.level % 3 == 1 else Direction.HIGH

    # --- the declarer: trumps or direction, the kitty, the joker exchange ----------

    def _legal_declares(self) -> Sequence[Declare]:
        return DIRECTION_DECLARES if self.no_trump else TRUMP_DECLARES

    def _apply_declare(self, declare: Declare) -> None:
        assert self.declarer is not None
        if declare.trump is not None:
            self.trump = declare.trump
        else:
            self.direction = declare.direction
        self._exchange(self.declarer, take=self.kitty)  # he picks up the kitty
        self.phase = DISCARD

    def _legal_discards(self) -> Sequence[Discard]:
        assert self.to_act is not None
        return Discards(self._hands[self.to_act], KITTY)

    def _apply_discard(self, discard: Discard) -> None:
        assert self.declarer is not None
        mask = discard_mask(discard)
        self._exchange(self.declarer, give=mask)
        self.kitty = mask
        if self.no_trump:
            return self._next_swap(0)
        assert self.trump is not None and self.direction is not None
        self.start_play(self.declarer, TRUMP_RULES[self.trump, self.direction])

    def _next_swap(self, step: int) -> None:
        """Offer the exchange to the next joker holder other than the declarer, or start play."""
        for joker in (BIG_JOKER, LITTLE_JOKER)[step:]:
            holder = next((s for s in range(4) if self._hands[s] >> joker & 1), None)
            if holder is not None and holder != self.declarer:
                self.phase, self.to_act, self._swap_step = JOKER_SWAP, holder, step
                return
            step += 1
        assert self.declarer is not None and self.direction is not None
        self.start_play(self.declarer, NO_TRUMP_RULES[self.direction, self.options.joker_shed])

    @property
    def asked_joker(self) -> Card:
        """The joker whose holder the exchange asks now (the big one first)."""
        return CARDS[BIG_JOKER + self._swap_step]

    def _legal_swaps(self) -> Sequence[JokerSwap]:
        joker = self.asked_joker
        return (JokerSwap(joker, None), *(JokerSwap(joker, c) for c in _cards_in(self.kitty)))

    def _unnamed_actor(self) -> str:
        return f"{self.asked_joker.name()}'s holder"

    def _unnamed_actor_facts(self) -> dict[str, Fact]:
        return {"asked": str(self.asked_joker)}

    def _apply_swap(self, swap: JokerSwap) -> None:
        seat = self.to_act
        assert seat is not None
        if swap.card is not None:
            give, take = 1 << swap.joker.index, 1 << swap.card.index
            self._exchange(seat, give, take)
            self.kitty = self.kitty & ~take | give
        self._next_swap(self._swap_step + 1)

    def _check_swap_card(self, swap: JokerSwap) -> None:
        if swap.card is not None and not self.kitty >> swap.card.index & 1:
            raise CardNotHeld(f"{swap.card} is not in the kitty: a joker can only be swapped for a kitty card")

    # --- violations ----------------------------------------------------------------

    def _check(self, action: Any, seat: int | None) -> None:
        if type(action) is JokerSwap and self.contract is not None:
            who = self.to_act if seat is None else seat
            if not self.no_trump:
                raise IllegalAction(
                    "swap-only-in-no-trump",
                    f"seat {who} cannot swap a joker: jokers are exchanged only in no-trump, "
                    f"and {self.contract.text} is a trump contract",
                    who,
                    {"contract": self.contract.text},
                )
            if who == self.declarer:
                raise IllegalAction(
                    "declarer-cannot-swap", f"seat {who} is the declarer and cannot swap a joker for a kitty card", who
                )
            if self.phase is JOKER_SWAP and action.joker != self.asked_joker:
                raise self._not_asked(action.joker, who)
        super()._check(action, seat)

    def _not_asked(self, joker: Card, seat: int | None) -> IllegalAction:
        """A swap of the joker not asked for now. Its words and rule are the same whether or not
        the seat also holds the joker asked for: which they were would tell where that joker is."""
        asked = self.asked_joker
        facts: dict[str, Fact] = {"joker": str(joker), "asked": str(asked), "turn": None}
        if asked.index == BIG_JOKER:
            return IllegalAction(
                "big-joker-first",
                f"seat {seat} cannot swap {joker.name()} yet: {asked.name()}'s holder is asked first",
                seat,
                facts,
            )
        return IllegalAction(
            "out-of-turn",
            f"seat {seat} cannot swap {joker.name()} now: it is {asked.name()}'s holder's turn",
            seat,
            facts,
        )

    def _explain(self, action: Any) -> IllegalAction:
        seat = self.to_act
        if isinstance(action, Declare):
            if self.no_trump:
                return IllegalAction(
                    "name-a-direction", f"seat {seat} bid no-trump and must name a direction (high or low)", seat
                )
            return IllegalAction("name-a-trump-suit", f"seat {seat} must name the trump suit, not a direction", seat)
        if isinstance(action, Discard):
            return IllegalAction(
                "discard-six-cards",
                f"seat {seat} must lay away exactly six cards, not {len(action.cards)}",
                seat,
                {"count": len(action.cards), "need": 6},
            )
        if isinstance(action, JokerSwap):  # the joker asked for, and a card that is not in the kitty
            return IllegalAction(
                "swap-for-a-kitty-card",
                f"seat {seat} may swap {action.joker.name()} only for a kitty card",
                seat,
                {"joker": str(action.joker)},
            )
        return self._explain_call(action)

    def _explain_call(self, call: Call) -> IllegalAction:
        seat = self.to_act
        if call is PASS:
            return IllegalAction(
                "dealer-must-bid", f"seat {seat} is the dealer and the others have passed: the dealer must bid", seat
            )
        return refused_call(seat, call, LADDER[self._high].text if self._high >= 0 else None)

    def _explain_play(self, seat: int, index: int) -> IllegalAction:
        assert self._rules is not None
        led = self._rules.led_suit(self._trick)
        if (
            isinstance(self._rules, JokerShedRules)
            and led != NO_SUIT
            and not self._hands[seat] & self._rules.suit_masks[led]
        ):
            return IllegalAction(
                "must-shed-joker",
                f"seat {seat} cannot follow {Suit(led).plural} and must play the joker; {CARDS[index]} is not a joker",
                seat,
                {"card": str(CARDS[index]), "led": Suit(led).letter},
            )
        return super()._explain_play(seat, index)

    # --- result --------------------------------------------------------------------

    def books(self) -> tuple[int, int]:
        """Books per team: tricks, the kitty once play has begun, renege penalties at the end."""
        won = self._won
        books = [won[0] + won[2], won[1] + won[3]]
        if self._rules is not None and self.declarer is not None:
            books[self.declarer % 2] += 1
        if self.is_over():
            for revoke in self._revokes:
                team = revoke.seat % 2
                moved = min(RENEGE_BOOKS, books[team])
                books[team] -= moved
                books[1 - team] += moved
        return books[0], books[1]

    def score(self) -> tuple[int, int] | None:
        if not self.is_over():
            return None
        assert self.contract is not None and self.declarer is not None
        team = self.declarer % 2
        books = self.books()
        n = bid_number(self.contract)
        ours, theirs = books[team], books[1 - team]
        made = ours >= 6 + n
        change = ours - 6 if made else -n
        if self.no_trump and self.options.no_trump_double:
            change *= 2
        other = theirs - 6 if not made and theirs >= 7 else 0
        return (change, other) if team == 0 else (other, change)

    def outcome(self) -> str | None:
        if not self.is_over():
            return None
        assert self.contract is not None and self.declarer is not None
        return "made" if self.books()[self.declarer % 2] >= 6 + bid_number(self.contract) else "set"

    def result(self) -> HandResult:
        return HandResult(
            dealer=self.dealer,
            declarer=self.declarer,
            contract=self.contract.text if self.contract else None,
            trump=self.trump,
            tricks=self.books(),
            result=self.outcome(),
            score=self.score(),
            phase=self.phase,
            to_act=self.to_act,
            direction=self.direction.value if self.direction else None,
        )


def _cards_in(mask: int) -> list[Any]:
    return [CARDS[i] for i in range(54) if mask >> i & 1]


class BidWhist(Game):
    name = "bid-whist"
    title = "Bid Whist"
    pack = WITH_JOKERS_54
    seat_counts = (4,)
    options_type = BidWhistOptions
    events: ClassVar[frozenset[str]] = frozenset({"deal", "call", "declare", "discard", "joker-swap", "play", "undo"})

    def parse_call(self, text: str, options: Any) -> Call:
        call = _CALLS.get(text.strip().lower())
        if call is None:
            raise BadNotation(f"{text!r} is not a Bid Whist call (pass, or 3 to 7 with high, low or no: 4high, 5low)")
        if call is not PASS and bid_number(call) < options.min_bid:
            raise BadNotation(f"{text!r} is below the minimum bid of {options.min_bid} (option min-bid)")
        return call

    def deal_shape(self, players: int, options: Any, dealer: int) -> DealShape:
        return DealShape((12, 12, 12, 12), KITTY)

    def new_hand(self, deal: Deal, options: Any, standing: Standing) -> BidWhistHand:
        return BidWhistHand(deal, options)

    def start(self, players: int, options: Any, start: Mapping[str, Any] | None) -> Standing:
        fields = start_fields(start, {"score"})
        limit = options.target - 1
        return Standing(score=int_list(fields.get("score", [0, 0]), "score", 2, -limit, limit))

    def after_hand(self, standing: Standing, hand: Hand) -> Standing:
        assert isinstance(hand, BidWhistHand)
        change = hand.score() or (0, 0)
        score = (standing.score[0] + change[0], standing.score[1] + change[1])
        target = hand.options.target
        winner = next((t for t in (0, 1) if score[t] >= target or score[1 - t] <= -target), None)
        return Standing(
            score=score,
            next_dealer=(hand.dealer + 1) % 4,
            over=winner is not None,
            winner=winner,
            hands_played=standing.hands_played + 1,
        )


BID_WHIST = BidWhist()
