"""Poley: rules.md section 1.

Four players in two pairs, a 22-card pack, five cards each. The auction is a knock-out of
pairwise contests in which the older hand may hold; the declarer names trumps (never
diamonds) or plays hot, where the lone seven of diamonds wins every trick it is in.
Vorhand always leads; play stops as soon as the contract is made or set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, ClassVar, Literal

from engine.actions import HOLD, PASS, Call, CallKind, Declare
from engine.cards import POLEY_22, Suit
from engine.errors import BadNotation, IllegalAction
from engine.game import DealShape, Game, Standing, int_list, refused_call, start_fields
from engine.hand import DECLARE, Deal, Hand, HandResult
from engine.options import RevokePolicy
from engine.tricks import TrickRules, trick_rules


@dataclass(frozen=True, slots=True)
class PoleyOptions:
    revoke: RevokePolicy = "reject"
    all_pass: Literal["throw-in", "vorhand-plays-one"] = "throw-in"


LADDER: tuple[Call, ...] = tuple(
    Call(f"{n}{'H' if hot else ''}", CallKind.BID, 2 * (n - 1) + hot) for n in range(1, 6) for hot in (0, 1)
)
SHOOTER = LADDER[-1]
VALUES = (1, 2, 2, 4, 3, 6, 4, 8, 10, 20)
NAMES = {"5": "poley", "5H": "shooter"}
HORSE_AT = 20
_SHAPE = DealShape((5, 5, 5, 5), 2)  # five cards each, two dead cards
TRUMP_SUITS = (Suit.CLUBS, Suit.HEARTS, Suit.SPADES)
DECLARES = tuple(Declare(trump=s) for s in TRUMP_SUITS)

_OPENING = (PASS, *LADDER)
_YOUNGER = tuple((PASS, *LADDER[level + 1 :]) for level in range(10))
_OLDER = tuple((PASS, HOLD, *LADDER[level + 1 :]) for level in range(10))
_CALLS = {c.text: c for c in (PASS, HOLD, *LADDER)}

_SUIT_RULES = {s: trick_rules("AKQJT98", s) for s in TRUMP_SUITS}
_PLAIN = trick_rules("AKQJT98", None)
# Hot: no trumps, but the seven of diamonds beats everything it meets. It stays a diamond for
# following, so it can only be played on a lead or when void, exactly as the rules say.
HOT_RULES = TrickRules(_PLAIN.suit_of, _PLAIN.suit_masks, _PLAIN.strength, trump_mask=1 << (13 * Suit.DIAMONDS + 5))


def tricks_needed(contract: Call) -> int:
    return contract.level // 2 + 1


def is_hot(contract: Call) -> bool:
    return contract.level % 2 == 1


class Stage(IntEnum):
    OPENING = 0  # nobody has bid yet: the next player in order may open at any level
    YOUNGER = 1  # the younger hand must bid higher than the standing bid, or pass
    OLDER = 2  # the holder (older hand) answers: pass, hold, or raise


class PoleyHand(Hand):
    __slots__ = ("_bid", "_holder", "_next_idx", "_stage", "contract", "declarer", "order", "trump")
    STATE = (*Hand.STATE, "declarer", "contract", "trump", "_bid", "_holder", "_next_idx", "_stage")
    GAME = "poley"

    def __init__(self, deal: Deal, options: PoleyOptions) -> None:
        super().__init__(deal, options)
        self.order = self.seat_order(self.next_seat(self.dealer))  # vorhand, mittelhand, hinterhand, dealer
        self.declarer: int | None = None
        self.contract: Call | None = None
        self.trump: Suit | None = None
        self._bid = -1  # standing bid's ladder level, -1 before the opening
        self._holder = -1
        self._next_idx = 0  # position in ``order`` of the player who speaks next as younger hand
        self._stage = Stage.OPENING
        self.to_act = self.order[0]

    @property
    def vorhand(self) -> int:
        return self.order[0]

    # --- auction -------------------------------------------------------------------

    def _legal_calls(self) -> Sequence[Call]:
        if self._stage is Stage.OPENING:
            return _OPENING
        if self._stage is Stage.YOUNGER:
            return _YOUNGER[self._bid]
        return _OLDER[self._bid]

    def _apply_call(self, call: Call) -> None:
        if self._stage is Stage.OPENING:
            self._opening(call)
        elif self._stage is Stage.YOUNGER:
            self._younger(call)
        else:
            self._older(call)

    def _opening(self, call: Call) -> None:
        self._next_idx += 1
        if call.kind is CallKind.BID:
            self._bid, self._holder = call.level, self.order[self._next_idx - 1]
            if call is SHOOTER:
                return self._end_auction()
            self._stage = Stage.YOUNGER
        if self._next_idx == 4:
            return self._end_auction()
        self.to_act = self.order[self._next_idx]

    def _younger(self, call: Call) -> None:
        younger = self.order[self._next_idx]
        if call.kind is CallKind.PASS:
            return self._next_contest()
        self._bid = call.level
        if call is SHOOTER:  # a shut-out bid: nobody may answer it, not even the older hand
            self._holder = younger
            return self._end_auction()
        self._stage = Stage.OLDER
        self.to_act = self._holder

    def _older(self, call: Call) -> None:
        younger = self.order[self._next_idx]
        if call.kind is CallKind.PASS:
            self._holder = younger
            return self._next_contest()
        if call.kind is CallKind.BID:
            self._bid = call.level
            if call is SHOOTER:
                return self._end_auction()
        self._stage = Stage.YOUNGER
        self.to_act = younger

    def _next_contest(self) -> None:
        self._next_idx += 1
        if self._next_idx == 4:  # three players have passed: no raise after the last contest
            return self._end_auction()
        self._stage = Stage.YOUNGER
        self.to_act = self.order[self._next_idx]

    def _end_auction(self) -> None:
        if self._bid < 0:
            if self.options.all_pass == "throw-in":
                return self.end_hand()
            self._bid, self._holder = 0, self.vorhand
        self.declarer, self.contract = self._holder, LADDER[self._bid]
        if is_hot(self.contract):
            return self.start_play(self.vorhand, HOT_RULES)
        self.phase = DECLARE
        self.to_act = self.declarer

    def _explain(self, action: Any) -> IllegalAction:
        seat = self.to_act
        if isinstance(action, Declare):
            if action.trump is Suit.DIAMONDS:
                return IllegalAction(
                    "no-diamond-trumps",
                    f"seat {seat} cannot name diamonds: in Poley trumps are clubs, hearts or spades",
                    seat,
                )
            return IllegalAction(
                "name-a-trump-suit", f"seat {seat} must name the trump suit (clubs, hearts or spades)", seat
            )
        assert isinstance(action, Call)
        standing = LADDER[self._bid].text if self._bid >= 0 else None
        if action.kind is CallKind.HOLD:
            if self._stage is Stage.OPENING:
                return IllegalAction("hold-without-bid", f"seat {seat} cannot hold: nobody has bid yet", seat)
            return IllegalAction(
                "hold-by-younger-hand",
                f"seat {seat} cannot hold: only the older hand (seat {self._holder}) may match {standing}; "
                f"seat {seat} must bid higher or pass",
                seat,
                {"standing": standing, "older": self._holder},
            )
        return refused_call(seat, action, standing)

    # --- declaring and play --------------------------------------------------------

    def _legal_declares(self) -> Sequence[Declare]:
        return DECLARES

    def _apply_declare(self, declare: Declare) -> None:
        assert declare.trump is not None
        self.trump = declare.trump
        self.start_play(self.vorhand, _SUIT_RULES[declare.trump])

    def _play_finished(self) -> bool:
        assert self.contract is not None and self.declarer is not None
        needed = self.contract.level // 2 + 1
        won = self._won
        ours = won[self.declarer] + won[(self.declarer + 2) % 4]
        return ours >= needed or (sum(won) - ours) >= 6 - needed

    # --- result --------------------------------------------------------------------

    def outcome(self) -> str | None:
        if not self.is_over():
            return None
        if self.contract is None or self.declarer is None:
            return "void"
        made = self.team_tricks()[self.declarer % 2] >= tricks_needed(self.contract)
        return "made" if made else "set"

    def score(self) -> tuple[int, int] | None:
        """The contract's value to the side that earned it; None while the hand goes on."""
        outcome = self.outcome()
        if outcome is None or outcome == "void":
            return None if outcome is None else (0, 0)
        assert self.contract is not None and self.declarer is not None
        winner = self.declarer % 2 if outcome == "made" else 1 - self.declarer % 2
        points = VALUES[self.contract.level]
        return (points, 0) if winner == 0 else (0, points)

    def result(self) -> HandResult:
        return HandResult(
            dealer=self.dealer,
            declarer=self.declarer,
            contract=self.contract.text if self.contract else None,
            trump=self.trump,
            tricks=self.team_tricks(),
            result=self.outcome(),
            score=self.score(),
            phase=self.phase,
            to_act=self.to_act,
        )


@dataclass(frozen=True, slots=True)
class PoleyStanding(Standing):
    horses: tuple[int, ...] = (0, 0)  # horses counted against each team
    last_dealt: tuple[int, ...] = (-1, -1, -1, -1)  # the hand number each seat last dealt

    def report(self) -> dict[str, Any]:
        return {"score": list(self.score), "over": self.over, "winner": self.winner, "horses": list(self.horses)}


class Poley(Game):
    name = "poley"
    title = "Poley"
    pack = POLEY_22
    seat_counts = (4,)
    options_type = PoleyOptions
    events: ClassVar[frozenset[str]] = frozenset({"deal", "call", "declare", "play", "undo"})

    def parse_call(self, text: str, options: Any) -> Call:
        call = _CALLS.get(
            text.strip().upper() if text.strip().lower() not in ("pass", "hold") else text.strip().lower()
        )
        if call is None:
            raise BadNotation(f"{text!r} is not a Poley call (pass, hold, 1, 1H, 2, 2H ... 5, 5H)")
        return call

    def deal_shape(self, players: int, options: Any, dealer: int) -> DealShape:
        return _SHAPE

    def new_hand(self, deal: Deal, options: Any, standing: Standing) -> PoleyHand:
        return PoleyHand(deal, options)

    def start(self, players: int, options: Any, start: Mapping[str, Any] | None) -> PoleyStanding:
        fields = start_fields(start, {"score", "horses"})
        score = int_list(fields.get("score", [0, 0]), "score", 2, 0, HORSE_AT - 1)
        horses = int_list(fields.get("horses", [0, 0]), "horses", 2, 0, 1)
        return PoleyStanding(score=score, horses=horses)

    def after_hand(self, standing: Standing, hand: Hand) -> PoleyStanding:
        assert isinstance(standing, PoleyStanding) and isinstance(hand, PoleyHand)
        dealt = list(standing.last_dealt)
        dealt[hand.dealer] = standing.hands_played
        last_dealt = tuple(dealt)
        gained = hand.score() or (0, 0)
        score = (standing.score[0] + gained[0], standing.score[1] + gained[1])
        horses = standing.horses
        next_dealer = (hand.dealer + 1) % 4
        horse_winner = 0 if score[0] >= HORSE_AT else 1 if score[1] >= HORSE_AT else None
        if horse_winner is not None:  # a horse against the other side; both scores start again
            horses = (horses[0], horses[1] + 1) if horse_winner == 0 else (horses[0] + 1, horses[1])
            score = (0, 0)
            next_dealer = schimpf_dealer(hand.dealer, horse_winner, last_dealt)
        loser = 0 if horses[0] >= 2 else 1 if horses[1] >= 2 else None
        return PoleyStanding(
            score=score,
            horses=horses,
            last_dealt=last_dealt,
            next_dealer=next_dealer,
            over=loser is not None,
            winner=None if loser is None else 1 - loser,
            hands_played=standing.hands_played + 1,
        )


def schimpf_dealer(dealer: int, winning_team: int, last_dealt: tuple[int, ...]) -> int:
    """After a horse the deal goes to the member of the winning side who has not dealt last."""
    a, b = winning_team, winning_team + 2
    if last_dealt[a] == last_dealt[b]:  # neither has dealt yet
        return (dealer + 1) % 4
    return a if last_dealt[a] < last_dealt[b] else b


POLEY = Poley()
