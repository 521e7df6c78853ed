"""Nap (Napoleon), after W. H. Peel: rules.md section 5.

Two to six players, each for himself, five cards each from a 52-card pack (the rest is not
used; at six players the dealer deals himself none). One call each from the dealer's left:
a number of tricks, 1 to 4, or Nap (5), each higher than any before. The highest caller,
the senior hand, leads, and his first card fixes trumps. Play stops as soon as he has his
tricks or cannot get them. Stakes are settled between him and every other player. Peel's
variations (pool, double header, misery, Wellington and Blücher, a minimum call of two) are
options, off by default.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.actions import PASS, Call, CallKind
from engine.cards import STANDARD_52, Suit
from engine.errors import BadNotation, IllegalAction, InvalidOption
from engine.game import SCORE_LIMIT, DealShape, Game, Standing, int_list, start_count, start_fields
from engine.hand import Deal, Hand, HandResult
from engine.options import RevokePolicy, bounds, parse_options, shown
from engine.tricks import TrickRules, trick_rules

HAND_SIZE = 5
REVOKE_FINE = 5  # stakes a revoker pays into the pool (revoke: penalise, with the pool)


@dataclass(frozen=True, slots=True)
class NapOptions:
    revoke: RevokePolicy = "reject"
    min_call: int = field(default=1, metadata=bounds(1, 2))
    misery: bool = False
    wellington: bool = False
    double_header: bool = False
    pool: bool = False
    # None only before Nap.options() resolves it from the player count (true with 6 players).
    dealer_sits_out: bool | None = None
    stake: int = field(default=1, metadata=bounds(1, 10_000))


# --- calls: level orders them; misery ranks just below three ----------------------------

ONE, TWO, THREE, FOUR = (Call(str(n), CallKind.BID, 10 * n) for n in range(1, 5))
NAP = Call("nap", CallKind.BID, 50)
MISERY = Call("misery", CallKind.BID, 25)
WELLINGTON = Call("wellington", CallKind.BID, 60)
BLUCHER = Call("blucher", CallKind.BID, 70)
LADDER = (ONE, TWO, MISERY, THREE, FOUR, NAP, WELLINGTON, BLUCHER)

TRICKS_NEEDED = {ONE: 1, TWO: 2, THREE: 3, FOUR: 4, NAP: 5, MISERY: 0, WELLINGTON: 5, BLUCHER: 5}
# (won, lost): what each other player pays the senior hand, or he pays each of them.
STAKES = {
    ONE: (1, 1),
    TWO: (2, 2),
    THREE: (3, 3),
    FOUR: (4, 4),
    NAP: (10, 5),
    MISERY: (3, 3),
    WELLINGTON: (20, 10),
    BLUCHER: (30, 15),
}
_CALLS = {"pass": PASS, "5": NAP, "blücher": BLUCHER, **{c.text: c for c in LADDER}}

_RULES: dict[Suit | None, TrickRules] = {s: trick_rules("AKQJT98765432", s) for s in (*Suit, None)}
_NO_TRUMPS = _RULES[None]


def _legal_table(min_call: int, misery: bool, wellington: bool) -> dict[Call | None, tuple[Call, ...]]:
    """For each highest call so far (None: none yet), the calls a player may make."""
    vocabulary = [c for c in LADDER if _allowed(c, min_call, misery, wellington)]
    table: dict[Call | None, tuple[Call, ...]] = {}
    for high in (None, *vocabulary):
        floor = high.level if high is not None else 0
        calls = [c for c in vocabulary if c.level > floor and c not in (WELLINGTON, BLUCHER)]
        if high is NAP and wellington:
            calls.append(WELLINGTON)
        if high is WELLINGTON:
            calls.append(BLUCHER)
        table[high] = (PASS, *calls)
    return table


def _allowed(call: Call, min_call: int, misery: bool, wellington: bool) -> bool:
    if call is ONE:
        return min_call <= 1
    if call is MISERY:
        return misery
    if call in (WELLINGTON, BLUCHER):
        return wellington
    return True


_TABLES: dict[tuple[int, bool, bool], dict[Call | None, tuple[Call, ...]]] = {}


def legal_table(options: NapOptions) -> dict[Call | None, tuple[Call, ...]]:
    key = (options.min_call, options.misery, options.wellington)
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = _legal_table(*key)
    return table


class NapHand(Hand):
    STATE = (*Hand.STATE, "declarer", "contract", "trump", "forced", "_high", "_called")
    TEAMS = 0
    GAME = "nap"

    def __init__(self, deal: Deal, options: NapOptions, multiplier: int = 1, pool: int = 0) -> None:
        super().__init__(deal, options)
        self.multiplier = multiplier  # 2 while a double header's doubled stakes last
        self.pool_before = pool  # what the pool held when this hand was dealt
        self._table = legal_table(options)
        self.declarer: int | None = None  # the senior hand
        self.contract: Call | None = None
        self.trump: Suit | None = None
        self.forced = False  # everybody passed and eldest hand stands for one
        self._high: Call | None = None
        self._called = 0

    # --- calling -------------------------------------------------------------------

    def _legal_calls(self) -> Sequence[Call]:
        return self._table[self._high]

    def _apply_call(self, call: Call) -> None:
        seat = self.to_act
        assert seat is not None
        if call is not PASS:
            self._high, self.declarer = call, seat
        self._called += 1
        if self._called == len(self.active):
            return self._end_calling()
        self.to_act = self._next[seat]

    def _end_calling(self) -> None:
        if self._high is None:
            if self.options.double_header:
                self.declarer = None
                return self.end_hand()
            self._high, self.declarer, self.forced = ONE, self._next[self.dealer], True
        self.contract = self._high
        assert self.declarer is not None
        self.start_play(self.declarer, _NO_TRUMPS)

    def _explain(self, action: Any) -> IllegalAction:
        seat = self.to_act
        assert isinstance(action, Call)
        high = self._high
        if action is WELLINGTON and high is not NAP:
            return IllegalAction("wellington-needs-nap", f"seat {seat} may call Wellington only over a Nap", seat)
        if action is BLUCHER and high is not WELLINGTON:
            return IllegalAction(
                "blucher-needs-wellington", f"seat {seat} may call Blücher only over a Wellington", seat
            )
        assert high is not None
        return IllegalAction(
            "call-too-low",
            f"seat {seat} cannot call {action.text}: seat {self.declarer} has called {high.text}, "
            "so he must call higher or pass",
            seat,
            {"call": action.text, "standing": high.text, "bidder": self.declarer},
        )

    # --- play ----------------------------------------------------------------------

    def _on_lead(self, seat: int, index: int) -> None:
        if self.trump is None and not self._tricks:
            self.trump = Suit(index // 13)
            self._rules = _RULES[self.trump]

    def _play_finished(self) -> bool:
        assert self.contract is not None and self.declarer is not None
        won = self._won[self.declarer]
        needed = TRICKS_NEEDED[self.contract]
        if needed == 0:  # misery fails at the first trick he wins
            return won > 0
        return won >= needed or len(self._tricks) - won > HAND_SIZE - needed

    # --- result --------------------------------------------------------------------

    def outcome(self) -> str | None:
        if not self.is_over():
            return None
        if self.contract is None or self.declarer is None:
            return "void"
        won = self._won[self.declarer]
        needed = TRICKS_NEEDED[self.contract]
        made = won == 0 if needed == 0 else won >= needed
        return "made" if made else "set"

    def stakes(self, outcome: str | None) -> tuple[int, ...] | None:
        """Each seat's stakes won or lost in this hand (they sum to zero)."""
        if outcome is None:
            return None
        if outcome == "void":
            return (0,) * self.players
        assert self.contract is not None and self.declarer is not None
        won, lost = STAKES[self.contract]
        each = (won if outcome == "made" else -lost) * self.options.stake * self.multiplier
        others = self.players - 1
        return tuple(each * others if s == self.declarer else -each for s in range(self.players))

    def pool_flows(self) -> tuple[int, ...]:
        """What each seat pays into (negative) or takes from the pool in this hand: the
        dealer's stake, revoke fines, and a winning Nap (Wellington, Blücher) takes it all."""
        flows = [0] * self.players
        stake = self.options.stake
        flows[self.dealer] -= stake
        for revoke in self._revokes:
            flows[revoke.seat] -= REVOKE_FINE * stake
        if self.outcome() == "made" and self.contract in (NAP, WELLINGTON, BLUCHER):
            assert self.declarer is not None
            flows[self.declarer] += self.pool_before - sum(flows)
        return tuple(flows)

    def result(self) -> HandResult:
        outcome = self.outcome()
        return HandResult(
            dealer=self.dealer,
            declarer=self.declarer if self.contract is not None else None,
            contract=self.contract.text if self.contract is not None else None,
            trump=self.trump,
            tricks=self._won,
            result=outcome,
            score=self.stakes(outcome),
            phase=self.phase,
            to_act=self.to_act,
            extra=(("pool", list(self.pool_flows())),) if self.options.pool and outcome is not None else (),
        )


@dataclass(frozen=True, slots=True)
class NapStanding(Standing):
    """``score`` is each seat's running balance of stakes. What is paid into the pool, or taken
    out of it, is not part of it (the table-log contract): each hand reports it per seat in its
    ``pool``, and ``pool`` here is what the pool holds."""

    pool: int = 0
    use_pool: bool = False
    doubled: bool = False  # double header: the stakes stay doubled until a senior hand wins

    def report(self) -> dict[str, Any]:
        out: dict[str, Any] = {"score": list(self.score), "over": False, "winner": None}
        if self.use_pool:
            out["pool"] = self.pool
        return out


_SHAPES: dict[tuple[int, bool, int], DealShape] = {}


class Nap(Game):
    name = "nap"
    title = "Nap"
    pack = STANDARD_52
    seat_counts = (2, 3, 4, 5, 6)
    options_type = NapOptions

    def default_players(self) -> int:
        return 4

    def options(self, raw: Mapping[str, Any] | None = None, players: int | None = None) -> NapOptions:
        players = players if players is not None else self.default_players()
        raw = dict(raw or {})
        sits_out = raw.pop("dealer-sits-out", players == 6)  # its default depends on the players
        if not isinstance(sits_out, bool):
            raise InvalidOption(f"option 'dealer-sits-out' must be true or false, not {shown(sits_out)}")
        if sits_out and players < 5:
            raise InvalidOption(f"option 'dealer-sits-out' can be true only with 5 or 6 players, not {players}")
        return dataclasses.replace(parse_options(NapOptions, raw), dealer_sits_out=sits_out)

    def parse_call(self, text: str, options: Any) -> Call:
        call = _CALLS.get(text.strip().lower())
        if call is None or not _allowed(call, options.min_call, options.misery, options.wellington):
            known = ", ".join(self._vocabulary(options))
            raise BadNotation(f"{text!r} is not a Nap call under these options ({known})")
        return call

    @staticmethod
    def _vocabulary(options: Any) -> list[str]:
        allowed = [c.text for c in LADDER if _allowed(c, options.min_call, options.misery, options.wellington)]
        return ["pass", *allowed]

    def deal_shape(self, players: int, options: Any, dealer: int) -> DealShape:
        key = (players, options.dealer_sits_out, dealer)
        shape = _SHAPES.get(key)
        if shape is None:
            per_seat = tuple(0 if options.dealer_sits_out and s == dealer else HAND_SIZE for s in range(players))
            shape = _SHAPES[key] = DealShape(per_seat, 52 - sum(per_seat))
        return shape

    def new_hand(self, deal: Deal, options: Any, standing: Standing) -> NapHand:
        assert isinstance(standing, NapStanding)
        return NapHand(deal, options, 2 if standing.doubled else 1, standing.pool)

    def start(self, players: int, options: Any, start: Mapping[str, Any] | None) -> NapStanding:
        fields = start_fields(start, {"score", "pool"} if options.pool else {"score"})
        score = int_list(fields.get("score", [0] * players), "score", players, -SCORE_LIMIT, SCORE_LIMIT)
        pool = start_count(fields.get("pool", 0), "pool", 0, SCORE_LIMIT, unit="stakes")
        return NapStanding(score=score, pool=pool, use_pool=options.pool)

    def after_hand(self, standing: Standing, hand: Hand) -> NapStanding:
        assert isinstance(standing, NapStanding) and isinstance(hand, NapHand)
        outcome = hand.outcome()
        balances = list(standing.score)
        for seat, amount in enumerate(hand.stakes(outcome) or ()):
            balances[seat] += amount
        pool = standing.pool - sum(hand.pool_flows()) if standing.use_pool else standing.pool
        doubled = standing.doubled
        if hand.options.double_header:
            doubled = outcome == "void" or (doubled and outcome != "made")
        return NapStanding(
            score=tuple(balances),
            next_dealer=(hand.dealer + 1) % hand.players,
            hands_played=standing.hands_played + 1,
            pool=pool,
            use_pool=standing.use_pool,
            doubled=doubled,
        )


NAP_GAME = Nap()
