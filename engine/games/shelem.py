"""Shelem: rules.md section 2.

Four players in two pairs, 52 cards, twelve each and a widow of four. The auction runs from
100 to 165 in fives (passes are final); the declarer takes the widow, buries four cards
(his side's first trick) and leads: the suit of that card is trumps. Aces and tens are worth
10, fives 5, and every trick 5, so a hand is worth 165 in all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from engine.actions import PASS, Call, CallKind, Discard
from engine.cards import CARDS, STANDARD_52, Suit
from engine.combinations import Discards, discard_mask
from engine.errors import BadNotation, IllegalAction
from engine.game import SCORE_LIMIT, DealShape, Game, Standing, int_list, refused_call, start_fields
from engine.hand import DISCARD, Deal, Hand, HandResult
from engine.options import RevokePolicy, bounds
from engine.tricks import NO_SUIT, TrickRules, trick_rules


@dataclass(frozen=True, slots=True)
class ShelemOptions:
    revoke: RevokePolicy = "reject"
    direction: Literal["counter-clockwise", "clockwise"] = "counter-clockwise"
    all_pass: Literal["void", "eldest-opens-100"] = "void"
    buried_pile: Literal["declarer", "last-trick"] = "declarer"
    made_score: Literal["taken", "bid"] = "taken"
    target: int = field(default=1000, metadata=bounds(5, 100_000))
    must_trump: bool = False


BIDS: tuple[Call, ...] = tuple(Call(str(100 + 5 * level), CallKind.BID, level) for level in range(14))
TOP = BIDS[-1]  # 165: cannot be overbid, ends the auction at once
_CALLS = {c.text: c for c in (PASS, *BIDS)}
_LEGAL_CALLS = tuple((PASS, *BIDS[level:]) for level in range(len(BIDS)))  # by the lowest bid allowed
ALL_SEATS = 0b1111
BURY = 4
ALL_TRICKS = 165
SLAM_SCORE = 330
TRICK_POINTS = 5
ORDER = "AKQJT98765432"

# Card points: aces and tens 10, fives 5 (100 in the pack).
CARD_POINTS: tuple[int, ...] = tuple(
    {"A": 10, "T": 10, "5": 5}.get("23456789TJQKA"[i % 13], 0) if i < 52 else 0 for i in range(54)
)
POINT_CARDS = sum(1 << i for i, p in enumerate(CARD_POINTS) if p)


class MustTrumpRules(TrickRules):
    """Trick rules with the ``must-trump`` option: a player void in the led suit must trump."""

    __slots__ = ()

    def legal_mask(self, hand: int, trick: Sequence[int]) -> int:
        if not trick:
            return hand
        following = hand & self.suit_masks[self.suit_of[trick[0]]]
        return following or hand & self.trump_mask or hand


_PLAIN = trick_rules(ORDER, None)  # until the first lead fixes trumps
_RULES = {s: trick_rules(ORDER, s) for s in Suit}
_MUST_TRUMP = {s: MustTrumpRules(r.suit_of, r.suit_masks, r.strength, r.trump_mask) for s, r in _RULES.items()}


def card_points(mask: int) -> int:
    """The card points in a mask of distinct cards."""
    return sum(CARD_POINTS[i] for i in range(52) if mask >> i & 1) if mask & POINT_CARDS else 0


def hand_score(made_score: str, bid: int, declared: int, opponents: int) -> tuple[int, int]:
    """The score change of the declaring side and of the opponents (rules.md 2.8)."""
    if declared >= bid:
        gained = SLAM_SCORE if declared == ALL_TRICKS else (declared if made_score == "taken" else bid)
    else:
        gained = -2 * bid if declared < opponents else -bid
    return gained, opponents


class ShelemHand(Hand):
    STATE = (*Hand.STATE, "declarer", "contract", "trump", "buried", "_bid", "_bidder", "_passed")
    GAME = "shelem"

    def __init__(self, deal: Deal, options: ShelemOptions) -> None:
        super().__init__(deal, options, direction=-1 if options.direction == "counter-clockwise" else 1)
        self.eldest = self.next_seat(self.dealer)
        self.declarer: int | None = None
        self.contract: Call | None = None
        self.trump: Suit | None = None
        self.buried: int | None = None  # the mask of the buried cards, once laid away
        self._bid = -1  # the standing bid's level, -1 before the first bid
        self._bidder = -1
        self._passed = 0  # a bit per seat that has passed
        self._widow = sum(1 << c.index for c in deal.rest)

    @property
    def trick_rules(self) -> TrickRules | None:
        """The trick rules in force (for players that reason about the trick)."""
        return self._rules

    # --- auction -------------------------------------------------------------------

    def _legal_calls(self) -> Sequence[Call]:
        return _LEGAL_CALLS[self._bid + 1] if self._bid < TOP.level else (PASS,)

    def _apply_call(self, call: Call) -> None:
        seat = self.to_act
        assert seat is not None
        if call is PASS:
            self._passed |= 1 << seat
            if self._passed == ALL_SEATS:
                return self._all_passed()
        else:
            self._bid, self._bidder = call.level, seat
            if call is TOP:
                return self._end_auction()
        if self._bid >= 0 and self._passed.bit_count() == 3:
            return self._end_auction()
        nxt = self.next_seat(seat)
        while self._passed >> nxt & 1:
            nxt = self.next_seat(nxt)
        self.to_act = nxt

    def _all_passed(self) -> None:
        if self.options.all_pass == "void":
            return self.end_hand()
        self._bid, self._bidder = 0, self.eldest
        self._end_auction()

    def _end_auction(self) -> None:
        self.declarer, self.contract = self._bidder, BIDS[self._bid]
        self._exchange(self.declarer, take=self._widow)
        self.phase = DISCARD
        self.to_act = self.declarer

    # --- the widow and play --------------------------------------------------------

    def _legal_discards(self) -> Sequence[Discard]:
        assert self.to_act is not None
        return Discards(self._hands[self.to_act], BURY)

    def _apply_discard(self, discard: Discard) -> None:
        assert self.declarer is not None
        mask = discard_mask(discard)
        self._exchange(self.declarer, give=mask)
        self.buried = mask
        self.start_play(self.declarer, _PLAIN)

    def _on_lead(self, seat: int, index: int) -> None:
        if self.trump is None:  # the declarer's first card names trumps
            self.trump = Suit(index // 13)
            self._rules = (_MUST_TRUMP if self.options.must_trump else _RULES)[self.trump]

    def _explain_play(self, seat: int, index: int) -> IllegalAction:
        assert self._rules is not None and self.trump is not None
        led = self._rules.led_suit(self._trick)
        held = self._hands[seat]
        if led != NO_SUIT and not held & self._rules.suit_masks[led]:
            return IllegalAction(
                "must-trump",
                f"seat {seat} has no {Suit(led).plural} but holds {self.trump.plural}, and must trump; "
                f"{CARDS[index]} is not a trump",
                seat,
                {"card": str(CARDS[index]), "led": Suit(led).letter, "trump": self.trump.letter},
            )
        return super()._explain_play(seat, index)

    def _explain(self, action: Any) -> IllegalAction:
        seat = self.to_act
        if isinstance(action, Discard):
            return IllegalAction(
                "bury-four-cards",
                f"seat {seat} must bury exactly four cards, not {len(action.cards)}",
                seat,
                {"count": len(action.cards), "need": 4},
            )
        assert isinstance(action, Call)
        standing = BIDS[self._bid].text if self._bid >= 0 else None
        return refused_call(seat, action, standing)

    # --- result --------------------------------------------------------------------

    def pile_owner(self) -> int | None:
        """The team the buried pile counts for, once that is known."""
        if self.buried is None or self.declarer is None:
            return None
        if self.options.buried_pile == "declarer":
            return self.declarer % 2
        if self.is_over() and self._tricks:
            return self._tricks[-1].winner % 2
        return None

    def counts(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """Tricks and points per team, the buried pile included once its owner is known."""
        tricks, points = [0, 0], [0, 0]
        for trick in self._tricks:
            team = trick.winner % 2
            tricks[team] += 1
            points[team] += TRICK_POINTS + sum(map(CARD_POINTS.__getitem__, trick.indices))
        owner = self.pile_owner()
        if owner is not None and self.buried is not None:
            tricks[owner] += 1
            points[owner] += TRICK_POINTS + card_points(self.buried)
        return (tricks[0], tricks[1]), (points[0], points[1])

    def outcome(self) -> str | None:
        return self._settle(self.counts()[1])[0]

    def score(self) -> tuple[int, int] | None:
        return self._settle(self.counts()[1])[1]

    def _settle(self, points: tuple[int, int]) -> tuple[str | None, tuple[int, int] | None]:
        """The outcome and the score change per team, from the points per team."""
        if not self.is_over():
            return None, None
        if self.contract is None or self.declarer is None:
            return "void", (0, 0)
        team, bid = self.declarer % 2, int(self.contract.text)
        ours, theirs = hand_score(self.options.made_score, bid, points[team], points[1 - team])
        return ("made" if points[team] >= bid else "set"), ((ours, theirs) if team == 0 else (theirs, ours))

    def result(self) -> HandResult:
        tricks, points = self.counts()
        outcome, score = self._settle(points)
        return HandResult(
            dealer=self.dealer,
            declarer=self.declarer,
            contract=self.contract.text if self.contract else None,
            trump=self.trump,
            tricks=tricks,
            result=outcome,
            score=score,
            phase=self.phase,
            to_act=self.to_act,
            points=points if self.contract is not None else None,
        )


class Shelem(Game):
    name = "shelem"
    title = "Shelem"
    pack = STANDARD_52
    seat_counts = (4,)
    options_type = ShelemOptions
    events: ClassVar[frozenset[str]] = frozenset({"deal", "call", "discard", "play", "undo"})

    def parse_call(self, text: str, options: Any) -> Call:
        call = _CALLS.get(text.strip().lower())
        if call is None:
            raise BadNotation(f"{text!r} is not a Shelem call (pass, or 100 to 165 in steps of 5)")
        return call

    def deal_shape(self, players: int, options: Any, dealer: int) -> DealShape:
        return DealShape((12, 12, 12, 12), 4)

    def new_hand(self, deal: Deal, options: Any, standing: Standing) -> ShelemHand:
        return ShelemHand(deal, options)

    def start(self, players: int, options: Any, start: Mapping[str, Any] | None) -> Standing:
        fields = start_fields(start, {"score"})
        score = int_list(fields.get("score", [0, 0]), "score", 2, -SCORE_LIMIT, options.target - 1)
        return Standing(score=score)

    def after_hand(self, standing: Standing, hand: Hand) -> Standing:
        assert isinstance(hand, ShelemHand)
        change = hand.score() or (0, 0)
        score = (standing.score[0] + change[0], standing.score[1] + change[1])
        step = -1 if hand.options.direction == "counter-clockwise" else 1
        over = max(score) >= hand.options.target
        winner = None
        if over:
            if score[0] != score[1]:
                winner = 0 if score[0] > score[1] else 1
            else:  # a tie: the declaring side of this hand wins
                winner = hand.declarer % 2 if hand.declarer is not None else None
        return Standing(
            score=score,
            next_dealer=(hand.dealer + step) % 4,
            over=over,
            winner=winner,
            hands_played=standing.hands_played + 1,
        )


SHELEM = Shelem()
