"""A violation as a sentence a player understands, in the seat names the table chose.

The engine judges an action with a rule code ("must-follow-suit") and the rule's reasons as
values (the card played, the suit led, the standing bid: ``IllegalAction.facts``); this is
the one place that turns them into words for people: "Anna played the 9♠ but holds hearts:
Anna must follow suit". The page, its alerts, the terminal and anything spoken or printed at
the table use it. The table log keeps the engine's own ``message`` as its record.

A sentence says only what its facts say, and the facts only what is public: a hidden holder
(the joker's, in Bid Whist's exchange) is never named, only asked for. No pronoun is guessed:
the seat's name is said again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from engine.actions import Action, Call, CallKind, Declare, Discard, JokerSwap, Play
from engine.errors import Fact
from engine.seat_names import SeatNames
from engine.words import JOKERS, PLURALS, call_words, card_words


@dataclass(frozen=True, slots=True)
class Words:
    """What a sentence needs besides the violation: the game, the seat names, the card letters."""

    game: str
    seats: SeatNames
    letters: bool = False

    def card(self, code: Fact) -> str:
        return "the " + card_words(str(code), self.game, self.letters)

    def call(self, text: Fact) -> str:
        return call_words(self.game, str(text))

    def joker(self, code: Fact) -> str:
        return "the " + JOKERS[str(code)]

    def suit(self, letter: Fact) -> str:
        return PLURALS[str(letter)] if letter is not None else "the suit led"


def violation_sentence(
    rule: str, seat: int | None, action: Action | None, facts: Mapping[str, Fact], words: Words
) -> str:
    """The sentence for one violation; a rule this module does not know still gets one."""
    who = words.seats(seat) if seat is not None else "Someone"
    build = _SENTENCES.get(rule)
    if build is None:
        if rule.startswith("not-") and rule.endswith("-now"):
            build = _wrong_phase
        else:
            return f"{who} broke a rule: {rule.replace('-', ' ')}"
    return build(_Said(who, seat, action, facts, words))


@dataclass(frozen=True, slots=True)
class _Said:
    """One violation being put into words."""

    who: str
    seat: int | None
    action: Action | None
    facts: Mapping[str, Fact]
    words: Words

    def __getitem__(self, name: str) -> Fact:
        return self.facts.get(name)

    def seat_name(self, name: str) -> str:
        value = self.facts.get(name)
        return self.words.seats(value) if isinstance(value, int) else "someone"

    def did(self) -> str:
        """What the seat did, without a card nobody has seen (a discard, a kitty card)."""
        action = self.action
        if isinstance(action, Play):
            return f"played {self.words.card(str(action.card))}"
        if isinstance(action, Call):
            return _CALL_VERBS.get(action.kind, "") or f"called {self.words.call(action.text)}"
        if isinstance(action, Declare):
            return f"named {action.trump.plural}" if action.trump is not None else "named a direction"
        if isinstance(action, Discard):
            return "laid cards away"
        if isinstance(action, JokerSwap):
            return "offered a joker"
        return "acted"

    def do(self) -> str:
        """The same as something the seat may or may not do now."""
        action = self.action
        if isinstance(action, Play):
            return f"play {self.words.card(str(action.card))}"
        if isinstance(action, Call):
            return _CALL_INFINITIVES.get(action.kind, "") or f"call {self.words.call(action.text)}"
        if isinstance(action, Declare):
            return "name trumps" if action.trump is not None else "name a direction"
        if isinstance(action, Discard):
            return "lay cards away"
        if isinstance(action, JokerSwap):
            return "swap a joker"
        return "act"


_CALL_VERBS = {
    CallKind.PASS: "passed",
    CallKind.HOLD: "held",
    CallKind.DOUBLE: "doubled",
    CallKind.REDOUBLE: "redoubled",
}
_CALL_INFINITIVES = {
    CallKind.PASS: "pass",
    CallKind.HOLD: "hold",
    CallKind.DOUBLE: "double",
    CallKind.REDOUBLE: "redouble",
}
_PHASES = {
    "auction": "the auction is still on",
    "declare": "the declarer is naming trumps",
    "discard": "the declarer is laying cards away",
    "joker-swap": "the jokers are being exchanged",
    "play": "the cards are being played",
    "over": "the hand is over",
}


def _out_of_turn(s: _Said) -> str:
    asked = s["asked"]
    turn = f"{s.words.joker(asked)}'s holder" if s["turn"] is None and asked else s.seat_name("turn")
    if s["joker"] is not None:
        return f"{s.who} cannot swap {s.words.joker(s['joker'])} now: it is {turn}'s turn"
    return f"{s.who} {s.did()} out of turn: it is {turn}'s turn"


def _must_follow(s: _Said) -> str:
    return f"{s.who} played {s.words.card(s['card'])} but holds {s.words.suit(s['led'])}: {s.who} must follow suit"


def _must_trump(s: _Said) -> str:
    led, trump = s.words.suit(s["led"]), s.words.suit(s["trump"])
    return f"{s.who} played {s.words.card(s['card'])} with no {led} but holds {trump}, the trumps: {s.who} must trump"


def _must_shed_joker(s: _Said) -> str:
    return (
        f"{s.who} played {s.words.card(s['card'])} but cannot follow {s.words.suit(s['led'])} and holds a joker: "
        f"{s.who} must play the joker"
    )


def _wrong_phase(s: _Said) -> str:
    return f"{s.who} cannot {s.do()} now: {_PHASES.get(str(s['phase']), 'it is not the time')}"


def _bid_too_low(s: _Said) -> str:
    call, standing = s.words.call(s["call"]), s.words.call(s["standing"])
    if s["least"] is not None:
        return f"{s.who} called {call} but the bid is {standing}: a new bid must be at least {s['least']}, in any suit"
    if s.words.game == "fifty-six":
        return f"{s.who} called {call} but the bid is {standing}, and no bid is higher than 56"
    return f"{s.who} called {call} but the bid is {standing}: {s.who} must bid higher or pass"


def _hold_by_younger(s: _Said) -> str:
    standing = s.words.call(s["standing"])
    return (
        f"{s.who} cannot hold: only the older hand, {s.seat_name('older')}, may hold {standing}; "
        f"{s.who} must bid higher or pass"
    )


def _name_a_trump_suit(s: _Said) -> str:
    if s.words.game == "poley":
        return f"{s.who} must name the trump suit: clubs, hearts or spades"
    return f"{s.who} must name the trump suit, not a direction"


def _double_own_team(s: _Said) -> str:
    bidder = s["bidder"]
    whose = f"{s.who}'s own bid" if bidder == s.seat else f"the bid of {s.seat_name('bidder')}, {s.who}'s partner"
    return f"{s.who} cannot double {s.words.call(s['standing'])}: it is {whose}; only the other team may double"


def _redouble_by_wrong_team(s: _Said) -> str:
    team = s["team"]
    seats = s.words.seats.group(team) if isinstance(team, tuple) else "the team that bid it"
    return f"{s.who} cannot redouble {s.words.call(s['standing'])}: only {seats}, who bid it, may redouble"


def _count(verb: str) -> Callable[[_Said], str]:
    return lambda s: f"{s.who} must {verb} exactly {s['need']} cards, not {s['count']}"


_SENTENCES: dict[str, Callable[[_Said], str]] = {
    "out-of-turn": _out_of_turn,
    "must-follow-suit": _must_follow,
    "must-trump": _must_trump,
    "must-shed-joker": _must_shed_joker,
    "hand-over": lambda s: f"{s.who} cannot {s.do()} now: play has stopped in this hand",
    "not-allowed": lambda s: f"{s.who} may not {s.do()} now",
    "call-not-allowed": lambda s: f"{s.who} may not call {s.words.call(s['call'])} now",
    "bid-too-low": _bid_too_low,
    "hold-without-bid": lambda s: f"{s.who} cannot hold: nobody has bid yet",
    "hold-by-younger-hand": _hold_by_younger,
    "no-diamond-trumps": lambda s: f"{s.who} cannot name diamonds: in Poley trumps are clubs, hearts or spades",
    "name-a-trump-suit": _name_a_trump_suit,
    "name-a-direction": lambda s: f"{s.who} bid no trump and must say which way the cards run: high or low",
    "bury-four-cards": _count("bury"),
    "discard-six-cards": _count("lay away"),
    "bid-below-28": lambda s: f"{s.who} called {s.words.call(s['call'])}: the lowest bid is 28",
    "opening-compulsory": lambda s: (
        f"{s.who} {s.did()}, but the player after the dealer must open the bidding with 28 or more"
    ),
    "already-doubled": lambda s: f"{s.who} cannot double {s.words.call(s['standing'])}: it is doubled already",
    "double-own-team": _double_own_team,
    "redouble-not-doubled": lambda s: f"{s.who} cannot redouble {s.words.call(s['standing'])}: it has not been doubled",
    "redouble-by-wrong-team": _redouble_by_wrong_team,
    "swap-only-in-no-trump": lambda s: (
        f"{s.who} cannot swap a joker: jokers are exchanged only in no trump, "
        f"and {s.words.call(s['contract'])} is a trump contract"
    ),
    "declarer-cannot-swap": lambda s: f"{s.who} is the declarer and cannot swap a joker for a kitty card",
    "big-joker-first": lambda s: (
        f"{s.who} cannot swap {s.words.joker(s['joker'])} yet: {s.words.joker(s['asked'])}'s holder is asked first"
    ),
    "swap-for-a-kitty-card": lambda s: f"{s.who} may swap {s.words.joker(s['joker'])} only for a kitty card",
    "dealer-must-bid": lambda s: f"{s.who} is the dealer and the others have passed: {s.who} must bid",
    "wellington-needs-nap": lambda s: f"{s.who} may call Wellington only over a Nap",
    "blucher-needs-wellington": lambda s: f"{s.who} may call Blücher only over a Wellington",
    "call-too-low": lambda s: (
        f"{s.who} called {s.words.call(s['call'])} but {s.seat_name('bidder')} has called "
        f"{s.words.call(s['standing'])}: {s.who} must call higher or pass"
    ),
}

KNOWN_RULES = frozenset(_SENTENCES)
