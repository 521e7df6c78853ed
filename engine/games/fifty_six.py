"""Fifty-Six: rules.md section 3 (the rule sheet's "White House").

Six players in two teams of three, seated alternately (team 0 is the even seats). The
doubled 48-card pack: J 9 A T K Q of each suit, twice, worth 3 2 1 1 0 0 (56 in all). The
player after the dealer must open at 28 or more; bids name a number and a suit or no-trump
and rise by at least one point; passes are not final; double and redouble multiply the
reward; five consecutive passes or a redouble end the auction. The first player after the
dealer leads; of two identical cards in a trick the earlier wins. The losing team pays
chips from the reward table; a team that cannot pay loses the match.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.actions import DOUBLE, PASS, REDOUBLE, Call, CallKind
from engine.cards import FIFTY_SIX_48, Card, Suit
from engine.errors import BadNotation, Fact, IllegalAction
from engine.game import DealShape, Game, Standing, int_list, start_fields
from engine.hand import Deal, Hand, HandResult
from engine.options import RevokePolicy, bounds
from engine.tricks import TrickRules, trick_rules

RANK_ORDER = "J9ATKQ"
LOWEST, HIGHEST = 28, 56
THANI_LEVEL = HIGHEST + 1


@dataclass(frozen=True, slots=True)
class FiftySixOptions:
    revoke: RevokePolicy = "reject"
    direction: Literal["clockwise", "counter-clockwise"] = "clockwise"
    double_scoring: Literal["multiply", "add"] = "multiply"
    chips: int = field(default=12, metadata=bounds(1, 10_000))
    match_end: Literal["cannot-pay", "zero-chips"] = "cannot-pay"
    thani: bool = False
    early_end: bool = False


# --- cards ----------------------------------------------------------------------------------

_POINTS_BY_RANK = {"J": 3, "9": 2, "A": 1, "T": 1, "K": 0, "Q": 0}
POINTS: tuple[int, ...] = tuple(_POINTS_BY_RANK.get("23456789TJQKA"[i % 13], 0) if i < 52 else 0 for i in range(54))
SEED_LETTERS = {"J": "P", "9": "M", "A": "S", "T": "D", "K": "N", "Q": "R"}
_SUIT_SYMBOLS = {Suit.SPADES: "\u2660", Suit.HEARTS: "\u2665", Suit.DIAMONDS: "\u2666", Suit.CLUBS: "\u2663"}


def seed_notation(card: Card, symbols: bool = True) -> str:
    """The rule sheet's letters (P M S D N R for J 9 A 10 K Q): "P\u2660", or "PS" without symbols."""
    code = str(card)
    letter = SEED_LETTERS.get(code[0])
    if letter is None or card.suit is None:
        raise BadNotation(f"{code} is not a Fifty-Six card")
    return letter + (_SUIT_SYMBOLS[card.suit] if symbols else card.suit.letter)


def card_points(indices: Sequence[int]) -> int:
    return sum(map(POINTS.__getitem__, indices))


# --- calls ----------------------------------------------------------------------------------

DENOMINATIONS: tuple[Suit | None, ...] = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES, None)
BIDS: tuple[Call, ...] = tuple(
    Call(f"{n}{d.letter if d is not None else 'NT'}", CallKind.BID, n)
    for n in range(LOWEST, HIGHEST + 1)
    for d in DENOMINATIONS
)
THANI = Call("thani", CallKind.BID, THANI_LEVEL)
# Bids below the opening minimum: a player may say one, but it is never legal (a violation).
UNDER: tuple[Call, ...] = tuple(
    Call(f"{n}{d.letter if d is not None else 'NT'}", CallKind.BID, n) for n in range(1, LOWEST) for d in DENOMINATIONS
)
TRUMP_OF: dict[Call, Suit | None] = {c: DENOMINATIONS[i % 5] for i, c in enumerate((*UNDER, *BIDS))}
TRUMP_OF[THANI] = None
_CALLS = {c.text: c for c in (PASS, DOUBLE, REDOUBLE, *UNDER, *BIDS)}

PLAIN, WITH_DOUBLE, WITH_REDOUBLE = 0, 1, 2


def _legal_tables(thani: bool) -> tuple[tuple[Call, ...], dict[tuple[int, int], tuple[Call, ...]]]:
    top = (THANI,) if thani else ()
    opening = (*BIDS, *top)
    after: dict[tuple[int, int], tuple[Call, ...]] = {}
    for level in range(LOWEST, THANI_LEVEL + 1):
        raises = (*(b for b in BIDS if b.level > level), *(top if level < THANI_LEVEL else ()))
        after[level, PLAIN] = (PASS, *raises)
        after[level, WITH_DOUBLE] = (PASS, DOUBLE, *raises)
        after[level, WITH_REDOUBLE] = (PASS, REDOUBLE, *raises)
    return opening, after


_TABLES = {thani: _legal_tables(thani) for thani in (False, True)}
_RULES: dict[Suit | None, TrickRules] = {trump: trick_rules(RANK_ORDER, trump) for trump in DENOMINATIONS}

# (made, lost) chips by bid: 28-39, 40-47, 48-55, 56; a thani wins 5 and loses 6.
THANI_REWARD = (5, 6)


def reward(level: int) -> tuple[int, int]:
    if level >= THANI_LEVEL:
        return THANI_REWARD
    if level >= 56:
        return (4, 5)
    if level >= 48:
        return (3, 4)
    if level >= 40:
        return (2, 3)
    return (1, 2)


def chips_for(contract: Call, made: bool, doubled: int, scoring: str) -> int:
    """The chips a contract moves, doubled (1) or redoubled (2) under the scoring option."""
    base = reward(contract.level)[0 if made else 1]
    if contract is THANI or not doubled:
        return base
    return base + doubled if scoring == "add" else base * 2**doubled


class FiftySixHand(Hand):
    STATE = (*Hand.STATE, "declarer", "contract", "trump", "doubled", "_bid", "_bidder", "_passes")
    GAME = "fifty-six"

    def __init__(self, deal: Deal, options: FiftySixOptions) -> None:
        super().__init__(deal, options, direction=1 if options.direction == "clockwise" else -1)
        self.opener = self.next_seat(self.dealer)
        self._opening, self._after = _TABLES[options.thani]
        self._early = options.early_end
        self.declarer: int | None = None
        self.contract: Call | None = None
        self.trump: Suit | None = None
        self.doubled = 0  # 0, 1 doubled, 2 redoubled
        self._bid: Call | None = None  # the standing bid
        self._bidder = -1
        self._passes = 0  # consecutive passes since the last bid or double

    @property
    def standing_bid(self) -> Call | None:
        """The highest bid so far (None before the opening)."""
        return self._bid

    @property
    def bidder(self) -> int:
        """The seat that made the standing bid (-1 before the opening)."""
        return self._bidder

    # --- auction -------------------------------------------------------------------

    def _legal_calls(self) -> Sequence[Call]:
        bid = self._bid
        if bid is None:
            return self._opening
        ours = (self._bidder ^ self.to_act) & 1 == 0  # type: ignore[operator]
        doubled = self.doubled
        if ours:
            return self._after[bid.level, WITH_REDOUBLE if doubled == 1 else PLAIN]
        return self._after[bid.level, WITH_DOUBLE if doubled == 0 else PLAIN]

    def _apply_call(self, call: Call) -> None:
        seat = self.to_act
        assert seat is not None
        kind = call.kind
        if kind is CallKind.PASS:
            self._passes += 1
            if self._passes == 5:
                return self._end_auction()
        elif kind is CallKind.BID:
            self._bid, self._bidder, self.doubled, self._passes = call, seat, 0, 0
            if call is THANI:  # nothing can outbid or double it: the auction is over, as after a redouble
                return self._end_auction()
        elif kind is CallKind.DOUBLE:
            self.doubled, self._passes = 1, 0
        else:
            self.doubled = 2
            return self._end_auction()
        self.to_act = self._next[seat]

    def _end_auction(self) -> None:
        assert self._bid is not None
        self.declarer, self.contract = self._bidder, self._bid
        self.trump = TRUMP_OF[self._bid]
        self.start_play(self.opener, _RULES[self.trump])

    def _explain(self, action: Any) -> IllegalAction:
        seat = self.to_act
        assert isinstance(action, Call) and seat is not None
        bid = self._bid
        if bid is None:
            if action.kind is CallKind.BID and action.level < LOWEST:
                return IllegalAction(
                    "bid-below-28", f"seat {seat} bid {action.text}: the lowest bid is 28", seat, {"call": action.text}
                )
            return IllegalAction(
                "opening-compulsory",
                f"seat {seat} must open the bidding with 28 or more: the player after the dealer may not "
                f"{'pass' if action.kind is CallKind.PASS else action.text}",
                seat,
                {"call": action.text},
            )
        if action.kind is CallKind.BID:
            return self._explain_bid(seat, action, bid)
        if action.kind is CallKind.DOUBLE:
            return self._explain_double(seat, bid)
        return self._explain_redouble(seat, bid)

    def _explain_bid(self, seat: int, action: Call, bid: Call) -> IllegalAction:
        facts: dict[str, Fact] = {"call": action.text, "standing": bid.text}
        if action.level < LOWEST:
            return IllegalAction(
                "bid-below-28", f"seat {seat} bid {action.text}: the lowest bid is 28", seat, {"call": action.text}
            )
        if bid.level >= HIGHEST and action is not THANI:
            return IllegalAction(
                "bid-too-low", f"seat {seat} cannot bid {action.text}: no bid is higher than 56", seat, facts
            )
        return IllegalAction(
            "bid-too-low",
            f"seat {seat} cannot bid {action.text}: the bid is {bid.text}, so a new bid must be at least "
            f"{bid.level + 1} (suits do not rank)",
            seat,
            facts | {"least": bid.level + 1},
        )

    def _explain_double(self, seat: int, bid: Call) -> IllegalAction:
        # A bid that is already doubled is the first thing wrong with any second double
        # (rules.md F7: seat 4's "double" after seat 3's is illegal as "already doubled").
        if self.doubled:
            return IllegalAction(
                "already-doubled",
                f"seat {seat} cannot double {bid.text}: it has already been doubled",
                seat,
                {"standing": bid.text},
            )
        return IllegalAction(
            "double-own-team",
            f"seat {seat} cannot double {bid.text}: it is his own team's bid (seat {self._bidder}); "
            "only the other team may double",
            seat,
            {"standing": bid.text, "bidder": self._bidder},
        )

    def _explain_redouble(self, seat: int, bid: Call) -> IllegalAction:
        if self.doubled == 0:
            return IllegalAction(
                "redouble-not-doubled",
                f"seat {seat} cannot redouble {bid.text}: it has not been doubled",
                seat,
                {"standing": bid.text},
            )
        team = tuple(range(self._bidder % 2, self.players, 2))
        return IllegalAction(
            "redouble-by-wrong-team",
            f"seat {seat} cannot redouble {bid.text}: only the team that bid it "
            f"(seats {', '.join(map(str, team))}) may redouble",
            seat,
            {"standing": bid.text, "team": team},
        )

    # --- play ----------------------------------------------------------------------

    def _play_finished(self) -> bool:
        if self.contract is THANI:
            return self._tricks[-1].winner != self.declarer
        if not self._early:
            return False
        assert self.contract is not None and self.declarer is not None
        points = self.points()
        ours, theirs = points[self.declarer % 2], points[1 - self.declarer % 2]
        return ours >= self.contract.level or theirs > HIGHEST - self.contract.level

    def points(self) -> tuple[int, int]:
        """Card points taken so far by team 0 and team 1."""
        taken = [0, 0]
        for trick in self._tricks:
            taken[trick.winner % 2] += card_points(trick.indices)
        return taken[0], taken[1]

    # --- result --------------------------------------------------------------------

    def outcome(self) -> str | None:
        if not self.is_over():
            return None
        assert self.contract is not None and self.declarer is not None
        if self.contract is THANI:
            return "made" if self._won[self.declarer] == len(self._tricks) == 8 else "set"
        return "made" if self.points()[self.declarer % 2] >= self.contract.level else "set"

    def contract_text(self) -> str | None:
        if self.contract is None:
            return None
        return self.contract.text + ("", "x", "xx")[self.doubled]

    def result(self) -> HandResult:
        outcome = self.outcome()
        score: tuple[int, ...] | None = None
        if outcome is not None:
            assert self.contract is not None and self.declarer is not None
            made = outcome == "made"
            chips = chips_for(self.contract, made, self.doubled, self.options.double_scoring)
            receiver = self.declarer % 2 if made else 1 - self.declarer % 2
            score = (chips, -chips) if receiver == 0 else (-chips, chips)
        return HandResult(
            dealer=self.dealer,
            declarer=self.declarer,
            contract=self.contract_text(),
            trump=self.trump,
            tricks=self.team_tricks(),
            result=outcome,
            score=score,
            phase=self.phase,
            to_act=self.to_act,
            points=self.points(),
        )


@dataclass(frozen=True, slots=True)
class FiftySixStanding(Standing):
    """``score`` is each team's chips."""

    def report(self) -> dict[str, Any]:
        return {"score": list(self.score), "over": self.over, "winner": self.winner, "chips": list(self.score)}


def settle(chips: tuple[int, ...], score: tuple[int, ...], match_end: str) -> tuple[tuple[int, int], int | None]:
    """Pay a hand's chips; return the new chips and the winning team if the match ends."""
    payer = 0 if score[0] < 0 else 1
    owed = -score[payer]
    paid = min(owed, chips[payer])
    new = list(chips)
    new[payer] -= paid
    new[1 - payer] += paid
    lost = owed > chips[payer] or (match_end == "zero-chips" and new[payer] <= 0 and owed > 0)
    return (new[0], new[1]), (1 - payer if lost else None)


_SHAPE = DealShape((8,) * 6, 0)


class FiftySix(Game):
    name = "fifty-six"
    title = "Fifty-Six"
    pack = FIFTY_SIX_48
    seat_counts = (6,)
    options_type = FiftySixOptions

    def parse_call(self, text: str, options: Any) -> Call:
        key = text.strip()
        lower = key.lower()
        if lower == "thani" and options.thani:
            return THANI
        call = _CALLS.get(lower if lower in ("pass", "double", "redouble") else key.upper())
        if call is None:
            thani = ", thani" if options.thani else ""
            raise BadNotation(
                f"{text!r} is not a Fifty-Six call (pass, double, redouble, or 28 to 56 and a suit or NT: "
                f"32C, 40NT{thani})"
            )
        return call

    def deal_shape(self, players: int, options: Any, dealer: int) -> DealShape:
        return _SHAPE

    def new_hand(self, deal: Deal, options: Any, standing: Standing) -> FiftySixHand:
        return FiftySixHand(deal, options)

    def start(self, players: int, options: Any, start: Mapping[str, Any] | None) -> FiftySixStanding:
        fields = start_fields(start, {"chips"})
        chips = int_list(fields.get("chips", [options.chips] * 2), "chips", 2, 0, 100_000)
        return FiftySixStanding(score=chips)

    def after_hand(self, standing: Standing, hand: Hand) -> FiftySixStanding:
        assert isinstance(hand, FiftySixHand)
        result = hand.result()
        assert result.score is not None
        chips, winner = settle(standing.score, result.score, hand.options.match_end)
        step = 1 if hand.options.direction == "clockwise" else -1
        return FiftySixStanding(
            score=chips,
            next_dealer=(hand.dealer + step) % 6,
            over=winner is not None,
            winner=winner,
            hands_played=standing.hands_played + 1,
        )


FIFTY_SIX = FiftySix()
