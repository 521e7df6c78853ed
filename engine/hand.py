"""One hand (deal) of a game: phases, whose turn it is, legal actions, push and pop.

:class:`Hand` holds what every game shares: the cards each seat holds, the trick in
progress, the tricks taken, undo. Each game subclasses it and supplies its auction, its
declarer's actions, its trick rules, when play stops and how the hand scores.

The hand's mutable state lives in a few attributes that only ever hold immutable values
(ints, tuples, None); a subclass lists its own in ``STATE``. Before the hand's first action
and before the first card of each trick, ``push`` saves them all; ``pop`` restores the last
save and applies again what followed it, but the last action. Undo is so exact by
construction, while the calls of an auction and the cards inside a trick, the hot path of
every playout, save nothing (fewer allocations also means far less work for Python's
garbage collector).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, NamedTuple

from engine.actions import PLAYS, Action, Call, Declare, Discard, JokerSwap, Play
from engine.cards import CARDS, Card, Suit, cards_of
from engine.errors import CardNotHeld, EngineError, Fact, IllegalAction, NotYourTurn
from engine.tricks import NO_SUIT, TrickRules

COPY_SHIFT = 64  # a second copy of a card (Fifty-Six) is held at bit index + 64
CODE_MASK = (1 << COPY_SHIFT) - 1


class Phase(Enum):
    AUCTION = "auction"
    DECLARE = "declare"
    DISCARD = "discard"
    JOKER_SWAP = "joker-swap"
    PLAY = "play"
    OVER = "over"


# Module-level aliases: looking up an Enum member through its class costs ~0.1 us in
# CPython 3.11, which adds up on the playout hot path.
AUCTION, DECLARE, DISCARD, JOKER_SWAP, PLAY, OVER = Phase


@dataclass(frozen=True, slots=True)
class Deal:
    """What the machine dealt: a card list per seat (empty for a seat that sits out)."""

    dealer: int
    hands: tuple[tuple[Card, ...], ...]
    rest: tuple[Card, ...] = ()


class Trick(NamedTuple):
    """A completed trick: who led, the seats and cards in play order, who won it."""

    leader: int
    seats: tuple[int, ...]
    indices: tuple[int, ...]
    winner: int

    @property
    def cards(self) -> tuple[Card, ...]:
        return tuple(CARDS[i] for i in self.indices)


# Trick(...) runs a Python-level __new__; tuple.__new__ makes the same value at C speed.
_new_trick = functools.partial(tuple.__new__, Trick)


@dataclass(frozen=True, slots=True)
class Revoke:
    """A play that broke a play rule and stood (revoke policy ``penalise``)."""

    seat: int
    move: int  # its index in ``Hand.moves``
    rule: str
    message: str
    facts: Mapping[str, Fact] = field(default_factory=dict)


class HandResult(NamedTuple):
    """A hand's outcome in the terms of the table log's referee result."""

    dealer: int
    declarer: int | None
    contract: str | None
    trump: Suit | None
    tricks: tuple[int, ...]
    result: str | None  # "made", "set", "void", or None while the hand goes on
    score: tuple[int, ...] | None
    phase: Phase
    to_act: int | None
    points: tuple[int, ...] | None = None
    direction: str | None = None
    extra: tuple[tuple[str, Any], ...] = ()


# Every (seat, play) pair a hand can record, made once: a move then costs no allocation.
_SEAT_PLAYS: tuple[tuple[tuple[int, Play], ...], ...] = tuple(tuple((seat, p) for p in PLAYS) for seat in range(8))

# Legal plays as tuples of Play actions, built from a mask of cards. A legal mask is usually
# one suit (following) or a whole hand, so each suit's 13-bit pattern is assembled once and
# kept; whole masks seen before come straight from a bounded cache.
_SUIT_BITS = 13
_PLAYS_BY_SUIT: tuple[dict[int, tuple[Play, ...]], ...] = tuple({} for _ in range(5))  # 4 suits, jokers
_PLAYS_BY_MASK: dict[int, tuple[Play, ...]] = {}


def plays_of(mask: int) -> tuple[Play, ...]:
    """The Play actions of the cards in ``mask``, lowest index first."""
    found = _PLAYS_BY_MASK.get(mask)
    if found is not None:
        return found
    found = ()
    rest, group = mask, 0
    while rest:
        bits = rest & 0x1FFF
        if bits:
            part = _PLAYS_BY_SUIT[group].get(bits)
            if part is None:
                base = group * _SUIT_BITS
                part = _PLAYS_BY_SUIT[group][bits] = tuple(PLAYS[base + i] for i in range(_SUIT_BITS) if bits >> i & 1)
            found += part
        rest >>= _SUIT_BITS
        group += 1
    if len(_PLAYS_BY_MASK) > 100_000:  # bound the memory a long run can take
        _PLAYS_BY_MASK.clear()
    _PLAYS_BY_MASK[mask] = found
    return found


def hand_mask(items: Sequence[Card]) -> int:
    """A seat's holding as a mask; a second copy of a card goes to bit index + 64."""
    mask = 0
    for c in items:
        bit = 1 << c.index
        mask |= bit << COPY_SHIFT if mask & bit else bit
    return mask


def codes(mask: int) -> int:
    """The distinct cards of a holding, one bit each."""
    return (mask | mask >> COPY_SHIFT) & CODE_MASK


@functools.cache
def _orders_table(following: tuple[int, ...], active: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """For each seat that may lead, the seats of a trick in play order."""
    orders = []
    for leader in range(len(following)):
        order = [leader]
        while len(order) < len(active):
            order.append(following[order[-1]])
        orders.append(tuple(order))
    return tuple(orders)


@functools.cache
def _next_table(players: int, active: tuple[int, ...], direction: int) -> tuple[int, ...]:
    """For each seat, the next seat in the direction of play that holds cards."""
    table = []
    for seat in range(players):
        nxt = (seat + direction) % players
        while nxt not in active:
            nxt = (nxt + direction) % players
        table.append(nxt)
    return tuple(table)


class Hand:
    """The shared state machine of a hand. Games subclass it; see the module docstring."""

    STATE: ClassVar[tuple[str, ...]] = (
        "phase",
        "to_act",
        "_hands",
        "_trick",
        "_leader",
        "_tricks",
        "_won",
        "_revokes",
        "_rules",
    )
    # Slots keep attribute access fast on the hot path (an instance dict of 30 or more keys
    # loses CPython's shared-key optimisation). Game subclasses declare their own slots.
    __slots__ = (
        "_hands",
        "_leader",
        "_legal_mask",
        "_legal_version",
        "_next",
        "_offered",
        "_offered_version",
        "_orders",
        "_per_trick",
        "_revokes",
        "_rules",
        "_stack",
        "_trick",
        "_tricks",
        "_won",
        "active",
        "deal",
        "dealer",
        "moves",
        "options",
        "phase",
        "players",
        "to_act",
        "version",
    )
    TEAMS: ClassVar[int] = 2  # partnerships (team = seat % 2); 0 means every seat for itself
    GAME: ClassVar[str] = ""

    _snapshot: operator.attrgetter[Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._snapshot = operator.attrgetter(*cls.STATE)

    def __init__(self, deal: Deal, options: Any, *, direction: int = 1) -> None:
        self.deal = deal
        self.options = options
        self.dealer = deal.dealer
        self.players = len(deal.hands)
        self.active = tuple([s for s in range(self.players) if deal.hands[s]])
        self._per_trick = len(self.active)
        self._next = _next_table(self.players, self.active, direction)
        self._orders = _orders_table(self._next, self.active)
        self.moves: list[tuple[int, Action]] = []
        self.version = 0  # counts every push and pop: a cheap "has this hand changed?" check
        self._legal_version, self._legal_mask = -1, 0  # the last legal-play mask computed
        self._offered_version = -1  # when the last other legal actions were computed
        self._offered: Sequence[Action] = ()
        self._stack: list[tuple[int, tuple[Any, ...]]] = []  # (len(moves) then, state) saves
        self.phase = AUCTION
        self.to_act: int | None = self.next_seat(self.dealer)
        self._hands: tuple[int, ...] = tuple([hand_mask(h) for h in deal.hands])
        self._trick: tuple[int, ...] = ()
        self._leader = -1  # who led the trick in progress
        self._tricks: tuple[Trick, ...] = ()
        self._won: tuple[int, ...] = (0,) * self.players
        self._revokes: tuple[Revoke, ...] = ()
        self._rules: TrickRules | None = None

    # --- seats -------------------------------------------------------------------------

    def next_seat(self, seat: int) -> int:
        """The next seat in the direction of play that holds cards."""
        return self._next[seat]

    def team_of(self, seat: int) -> int:
        return seat % 2 if self.TEAMS else seat

    def seat_order(self, first: int) -> tuple[int, ...]:
        """The seats holding cards, in the direction of play, starting with ``first``."""
        return self._orders[first]

    # --- what the hand looks like ------------------------------------------------------

    def holding(self, seat: int) -> list[Card]:
        mask = self._hands[seat]
        return cards_of(mask & CODE_MASK) + cards_of(mask >> COPY_SHIFT)

    def holds(self, seat: int, card: Card) -> bool:
        return bool(codes(self._hands[seat]) >> card.index & 1)

    @property
    def current_trick(self) -> list[tuple[int, Card]]:
        return [(s, CARDS[i]) for s, i in zip(self._orders[self._leader], self._trick, strict=False)]

    @property
    def tricks(self) -> tuple[Trick, ...]:
        return self._tricks

    @property
    def tricks_won(self) -> tuple[int, ...]:
        """Tricks won per seat."""
        return self._won

    @property
    def revokes(self) -> tuple[Revoke, ...]:
        return self._revokes

    def is_over(self) -> bool:
        return self.phase is OVER

    # --- whose turn, as anyone may know it ---------------------------------------------

    def turn_is_public(self) -> bool:
        """Whether everyone may know which seat is to act. In Bid Whist's joker exchange the seat
        asked is the one holding that joker: naming it would tell where the joker is."""
        return self.phase is not JOKER_SWAP

    def public_to_act(self) -> int | None:
        """The seat to act as the table may show it (its LED, the page, a violation's words)."""
        return self.to_act if self.turn_is_public() else None

    def whose_turn(self) -> str:
        """Whose turn it is, in words anyone at the table may hear."""
        return f"seat {self.to_act}" if self.turn_is_public() else self._unnamed_actor()

    def _unnamed_actor(self) -> str:
        """The seat to act described without naming it, while the turn is not public."""
        return "the seat asked"

    def turn_facts(self) -> dict[str, Fact]:
        """Whose turn it is as a violation's facts: the seat, or (while the turn is not public)
        no seat and what the table asks for instead."""
        if self.turn_is_public():
            return {"turn": self.to_act}
        return {"turn": None, **self._unnamed_actor_facts()}

    def _unnamed_actor_facts(self) -> dict[str, Fact]:
        """The facts of :meth:`_unnamed_actor` (Bid Whist: the joker asked for)."""
        return {}

    def team_tricks(self) -> tuple[int, ...]:
        if not self.TEAMS:
            return self._won
        return (sum(self._won[0::2]), sum(self._won[1::2]))

    # --- legal actions -----------------------------------------------------------------

    def legal_actions(self) -> Sequence[Action]:
        """Every action the seat to act may take now (empty once the hand is over)."""
        phase = self.phase
        if phase is PLAY:
            mask = self._hands[self.to_act]  # type: ignore[index]
            legal = self._rules.legal_mask((mask | mask >> COPY_SHIFT) & CODE_MASK, self._trick)  # type: ignore[union-attr]
            self._legal_version, self._legal_mask = self.version, legal
            return plays_of(legal)
        if self._offered_version == self.version:  # asked again before anything changed
            return self._offered
        offered: Sequence[Action] = ()
        if phase is AUCTION:
            offered = self._legal_calls()
        elif phase is DECLARE:
            offered = self._legal_declares()
        elif phase is DISCARD:
            offered = self._legal_discards()
        elif phase is JOKER_SWAP:
            offered = self._legal_swaps()
        self._offered_version, self._offered = self.version, offered
        return offered

    def is_legal(self, action: Action) -> bool:
        try:
            self._check(action, self.to_act)
        except EngineError:
            return False
        return True

    # --- push and pop ------------------------------------------------------------------

    def push(self, action: Action, seat: int | None = None, *, allow_revoke: bool = False) -> None:
        """Apply ``action`` for the seat to act (``seat``, if given, must be that seat).

        Raises :class:`IllegalAction` (nothing changes) when the rules forbid it, and
        :class:`CardNotHeld` for a card the seat does not hold. With ``allow_revoke`` a
        play that fails to follow suit (or breaks another play rule) stands and is
        recorded as a revoke, as under the ``penalise`` revoke policy.
        """
        if type(action) is Play:
            if self.phase is PLAY and (seat is None or seat == self.to_act):
                # The hot path of every playout: a held, legal card for the seat to act.
                actor: int = self.to_act  # type: ignore[assignment]
                index = action.card.index
                mask = self._hands[actor]
                held = (mask | mask >> COPY_SHIFT) & CODE_MASK
                if held >> index & 1:
                    if self._legal_version == self.version:
                        legal = self._legal_mask
                    else:
                        legal = self._rules.legal_mask(held, self._trick)  # type: ignore[union-attr]
                    if legal >> index & 1:
                        if not self._trick:  # a lead: save the state; other cards need not
                            self._stack.append((len(self.moves), self._snapshot(self)))
                        self.version += 1
                        self.moves.append(_SEAT_PLAYS[actor][index])
                        self._place_card(actor, index)
                        return
        elif (
            type(action) is Call
            and self.phase is AUCTION
            and (seat is None or seat == self.to_act)
            and action in self.legal_actions()
        ):
            self._record(action)
            self._apply_call(action)
            return
        self._push_checked(action, seat, allow_revoke)

    def _push_checked(self, action: Action, seat: int | None, allow_revoke: bool) -> None:
        """The general path of :meth:`push`: every check, with a reason for each refusal."""
        actor = self.to_act if seat is None else seat
        if type(action) is Play:
            self._push_play(action.card.index, actor, allow_revoke)
            return
        self._check(action, seat)
        self._record(action)
        self._apply(action)

    def _apply(self, action: Action) -> None:
        """Carry out an accepted call, declaration, discard or swap (the game's own rules)."""
        if type(action) is Call:
            self._apply_call(action)
        elif type(action) is Declare:
            self._apply_declare(action)
        elif type(action) is Discard:
            self._apply_discard(action)
        elif type(action) is JokerSwap:
            self._apply_swap(action)

    def _record(self, action: Action, seat: int | None = None) -> None:
        """Note the move, saving the state first at the hand's first move and at each lead."""
        if not self._stack or (type(action) is Play and not self._trick):
            self._stack.append((len(self.moves), self._snapshot(self)))
        self.version += 1
        self.moves.append((self.to_act if seat is None else seat, action))  # type: ignore[arg-type]

    def pop(self) -> Action:
        """Take back the last action and return it."""
        if not self.moves:
            raise IllegalAction("nothing-to-undo", "there is nothing to take back in this hand")
        last = len(self.moves) - 1
        saved_at, state = self._stack[-1]
        for name, value in zip(self.STATE, state, strict=True):
            setattr(self, name, value)
        if saved_at == last:
            self._stack.pop()
        action = self.moves.pop()[1]
        for number in range(saved_at, last):  # what was done since that save, but the last
            self._replay(number)
        self.version += 1
        return action

    def _replay(self, number: int) -> None:
        """Apply move ``number`` again after a restore. It was accepted once, so it is not
        checked again (a revoke that stood is recorded again, as it was)."""
        action = self.moves[number][1]
        if type(action) is Play:
            self._replay_play(number)
        else:
            self._apply(action)

    def _replay_play(self, number: int) -> None:
        seat, action = self.moves[number]
        index = action.card.index  # type: ignore[union-attr]
        legal = self._rules.legal_mask(codes(self._hands[seat]), self._trick)  # type: ignore[union-attr]
        if not legal >> index & 1:
            error = self._explain_play(seat, index)
            self._revokes = (*self._revokes, Revoke(seat, number, error.rule, error.message, error.facts))
        self._place_card(seat, index)

    def check_cards(self, seat: int, action: Action) -> None:
        """Raise :class:`CardNotHeld` if ``action`` uses a card ``seat`` does not hold.

        This is about the input, not the rules: a table log must never contain it.
        """
        if isinstance(action, Play):
            needed = [action.card]
        elif isinstance(action, Discard):
            needed = list(action.cards)
        elif isinstance(action, JokerSwap):
            needed = [action.joker]
        else:
            return
        held = self.holding(seat)
        for c in needed:
            if c not in held:
                raise CardNotHeld(f"seat {seat} does not hold {c}")
            held.remove(c)
        if isinstance(action, JokerSwap):
            self._check_swap_card(action)

    def _check_swap_card(self, swap: JokerSwap) -> None:
        """Raise :class:`CardNotHeld` if a swap asks for a card that is not in the kitty."""

    def _check(self, action: Action, seat: int | None) -> None:
        if type(action) is Play:
            actor = self.to_act if seat is None else seat
            if actor is None:
                self._check_phase(PLAY, action, seat)
            elif not self._check_play(action.card.index, actor) >> action.card.index & 1:
                raise self._explain_play(actor, action.card.index)
            return
        wanted = {Call: AUCTION, Declare: DECLARE, Discard: DISCARD, JokerSwap: JOKER_SWAP}
        self._check_phase(wanted[type(action)], action, seat)
        if action not in self.legal_actions():
            raise self._explain(action)

    def _check_phase(self, phase: Phase, action: Action, seat: int | None) -> None:
        who = f"seat {seat}" if seat is not None else "nobody"
        if self.phase is OVER:
            raise IllegalAction("hand-over", f"play has stopped in this hand: {who} cannot {_verb(action)} now", seat)
        if self.phase is not phase:
            raise IllegalAction(
                f"not-{phase.value}-now",
                f"{who} cannot {_verb(action)} now: the hand is in the {self.phase.value.replace('-', ' ')} phase",
                seat,
                {"phase": self.phase.value},
            )
        if seat is not None and seat != self.to_act:
            raise NotYourTurn(
                "out-of-turn",
                f"seat {seat} acted out of turn: it is {self.whose_turn()}'s turn",
                seat,
                self.turn_facts(),
            )

    def _check_play(self, index: int, seat: int) -> int:
        """Check a play and return the seat's mask of legal cards; raise if not allowed."""
        if not codes(self._hands[seat]) >> index & 1:
            raise CardNotHeld(f"seat {seat} does not hold {CARDS[index]}")
        self._check_phase(PLAY, PLAYS[index], seat)
        assert self._rules is not None
        return self._rules.legal_mask(codes(self._hands[seat]), self._trick)

    def _push_play(self, index: int, seat: int | None, allow_revoke: bool) -> None:
        if seat is None:
            self._check_phase(PLAY, PLAYS[index], seat)
        assert seat is not None
        legal = self._check_play(index, seat)
        error = None
        if not legal >> index & 1:
            error = self._explain_play(seat, index)
            if not allow_revoke:
                raise error
        self._record(PLAYS[index], seat)
        self.moves[-1] = _SEAT_PLAYS[seat][index]
        if error is not None:
            self._revokes = (*self._revokes, Revoke(seat, len(self.moves) - 1, error.rule, error.message, error.facts))
        self._place_card(seat, index)

    def _exchange(self, seat: int, give: int = 0, take: int = 0) -> None:
        """``seat`` gives up the cards of mask ``give`` and takes those of ``take`` (single pack):
        a widow or kitty picked up, a discard laid away, a joker swapped."""
        hands = list(self._hands)
        hands[seat] = hands[seat] & ~give | take
        self._hands = tuple(hands)

    def _place_card(self, seat: int, index: int) -> None:
        hands = list(self._hands)  # list-and-back is the cheapest way to replace one item
        mask = hands[seat]
        bit = 1 << index
        hands[seat] = mask ^ (bit << COPY_SHIFT) if (mask >> COPY_SHIFT) & bit else mask ^ bit
        self._hands = tuple(hands)
        trick = self._trick
        if not trick:
            self._leader = seat
            self._on_lead(seat, index)
        trick = self._trick = (*trick, index)
        if len(trick) < self._per_trick:
            self.to_act = self._next[seat]
        else:
            self._complete_trick(trick)

    def _complete_trick(self, trick: tuple[int, ...]) -> None:
        seats = self._orders[self._leader]
        winner = seats[self._rules.winner(trick)]  # type: ignore[union-attr]
        self._tricks = (*self._tricks, _new_trick((self._leader, seats, trick, winner)))
        won = list(self._won)
        won[winner] += 1
        self._won = tuple(won)
        self._trick = ()
        self.to_act = winner
        if not self._hands[winner] or self._play_finished():
            self.phase = OVER
            self.to_act = None

    def _explain_play(self, seat: int, index: int) -> IllegalAction:
        assert self._rules is not None
        led = self._rules.led_suit(self._trick)
        suit = Suit(led).plural if led != NO_SUIT else "the suit led"
        return IllegalAction(
            "must-follow-suit",
            f"seat {seat} holds {suit} and must follow suit; {CARDS[index]} is not {suit}",
            seat,
            {"card": str(CARDS[index]), "led": Suit(led).letter if led != NO_SUIT else None},
        )

    # --- what each game supplies -------------------------------------------------------

    def _legal_calls(self) -> Sequence[Call]:
        return []

    def _legal_declares(self) -> Sequence[Declare]:
        return []

    def _legal_discards(self) -> Sequence[Discard]:
        return []

    def _legal_swaps(self) -> Sequence[JokerSwap]:
        return []

    def _apply_call(self, call: Call) -> None:
        raise NotImplementedError

    def _apply_declare(self, declare: Declare) -> None:
        raise NotImplementedError

    def _apply_discard(self, discard: Discard) -> None:
        raise NotImplementedError

    def _apply_swap(self, swap: JokerSwap) -> None:
        raise NotImplementedError

    def _explain(self, action: Action) -> IllegalAction:
        """Why ``action`` (not among the legal actions) is not allowed, in words."""
        return IllegalAction("not-allowed", f"seat {self.to_act} may not {_verb(action)} now", self.to_act)

    def _on_lead(self, seat: int, index: int) -> None:
        """Called before a led card joins the trick (Shelem and Nap fix trumps by the first lead)."""

    def _play_finished(self) -> bool:
        """Whether play stops after the trick just completed (early ends)."""
        return False

    def start_play(self, leader: int, rules: TrickRules) -> None:
        """Move to the play phase with ``leader`` to lead under ``rules``."""
        self.phase = PLAY
        self.to_act = leader
        self._rules = rules

    def end_hand(self) -> None:
        self.phase = OVER
        self.to_act = None

    def result(self) -> HandResult:
        raise NotImplementedError


def _verb(action: Action) -> str:
    if isinstance(action, Play):
        return f"play {action.card}"
    if isinstance(action, Call):
        return f"call {action.text}"
    if isinstance(action, Declare):
        return "declare"
    if isinstance(action, Discard):
        return "discard"
    return "swap a joker"
