"""The table log (format 1, ``shared/table-log.md``): load, validate, replay, dump.

A log is parsed and replayed event by event, so the first bad event is the one reported.
Problems with the log itself raise :class:`MalformedLog` naming the event index; actions a
player was not allowed to make are recorded as :class:`Violation` values and the match
goes on, under the revoke policy of the log's options.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.actions import Action, Call, Declare, Direction, Discard, JokerSwap, Play, play
from engine.cards import Card, Suit
from engine.errors import (
    BadNotation,
    CardNotHeld,
    DealError,
    EngineError,
    Fact,
    IllegalAction,
    InvalidOption,
    InvalidStart,
    MatchOver,
)
from engine.game import Game
from engine.games import get_game
from engine.hand import Hand
from engine.match import Match
from engine.options import options_to_dict

FORMAT = "croupier-table-log"
VERSION = 1
_TOP_LEVEL = {"format", "version", "game", "players", "options", "start", "events"}
_ANNOTATIONS = {"note"}  # free text a table may attach to any event; the referee ignores it


class MalformedLog(EngineError, ValueError):
    """The log itself is wrong. ``event`` is the 0-based index of the first bad event."""

    def __init__(self, message: str, event: int | None = None) -> None:
        super().__init__(f"event {event}: {message}" if event is not None else message)
        self.event = event
        self.reason = message


# --- events ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DealEvent:
    hands: tuple[tuple[Card, ...], ...]
    rest: tuple[Card, ...] = ()
    dealer: int | None = None


@dataclass(frozen=True, slots=True)
class ActionEvent:
    """A call, declare, discard, joker swap or play by ``seat``."""

    seat: int
    action: Action


@dataclass(frozen=True, slots=True)
class UndoEvent:
    pass


Event = DealEvent | ActionEvent | UndoEvent


@dataclass
class TableLog:
    game: Game
    players: int
    options: Any
    start: Mapping[str, Any] | None = None
    events: list[Event] = field(default_factory=list)


# --- parsing --------------------------------------------------------------------------------


def loads(text: str) -> TableLog:
    """Parse a log from JSON text (no replay: see :func:`referee`)."""
    header, raw_events = _parse_header(_json(text))
    log = TableLog(*header)
    log.events = [parse_event(log, raw, i) for i, raw in enumerate(raw_events)]
    return log


# The integers every JSON reader holds exactly (RFC 8259, section 6): a log's numbers are seats,
# counts and scores, far inside it, and an outside tool must read back what the referee read.
MAX_INTEGER = 2**53 - 1


def _json(text: str) -> Any:
    try:
        return json.loads(text, parse_int=_bounded_int, parse_constant=_not_a_json_number)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MalformedLog(f"not JSON: {exc}") from None
    except RecursionError:
        raise MalformedLog("not a table log: JSON nested far too deeply") from None


def _bounded_int(digits: str) -> int:
    # Checked on the text: Python refuses to read an integer of more than 4,300 digits at all.
    length = len(digits.lstrip("-"))
    if length > len(str(MAX_INTEGER)) or abs(value := int(digits)) > MAX_INTEGER:
        shown = digits if length <= 30 else f"an integer of {length} digits"
        raise MalformedLog(f"not a table log: {shown} is too large (a log's integers are within ±(2**53 - 1))")
    return value


def _not_a_json_number(name: str) -> Any:
    raise MalformedLog(f"not JSON: {name} is not a JSON number")


def _parse_header(doc: Any) -> tuple[tuple[Game, int, Any, Mapping[str, Any] | None], list[Any]]:
    if not isinstance(doc, dict):
        raise MalformedLog("a table log must be a JSON object")
    unknown = sorted(set(doc) - _TOP_LEVEL)
    if unknown:
        raise MalformedLog(f"unknown top-level field {unknown[0]!r}")
    if doc.get("format") != FORMAT:
        raise MalformedLog(f"'format' must be {FORMAT!r}, not {doc.get('format')!r}")
    if type(doc.get("version")) is not int or doc.get("version") != VERSION:  # 1, not 1.0 or true
        raise MalformedLog(f"'version' must be {VERSION}, not {doc.get('version')!r}")
    try:
        game = get_game(doc.get("game"))  # type: ignore[arg-type]
    except BadNotation as exc:
        raise MalformedLog(str(exc)) from None
    players = _players(game, doc.get("players"))
    raw_options = doc.get("options", {})
    if not isinstance(raw_options, dict):
        raise MalformedLog("'options' must be an object")
    start = doc.get("start")
    try:
        options = game.options(raw_options, players)
        game.start(players, options, start)
    except (InvalidOption, InvalidStart) as exc:
        raise MalformedLog(str(exc)) from None
    events = doc.get("events")
    if not isinstance(events, list):
        raise MalformedLog("'events' must be a list")
    return (game, players, options, start), events


def _players(game: Game, value: Any) -> int:
    if value is None:
        if len(game.seat_counts) > 1:
            raise MalformedLog(
                f"'players' is required for {game.title} ({game.seat_counts[0]} to {game.seat_counts[-1]})"
            )
        return game.seat_counts[0]
    if isinstance(value, bool) or not isinstance(value, int) or value not in game.seat_counts:
        allowed = " or ".join(str(n) for n in game.seat_counts)
        raise MalformedLog(f"'players' must be {allowed} for {game.title}, not {value!r}")
    return value


def parse_event(log: TableLog, raw: Any, index: int) -> Event:
    """One event, checked for its shape, field types, codes and the game's vocabulary."""
    try:
        return _parse_event(log, raw)
    except (BadNotation, _FieldError) as exc:
        raise MalformedLog(str(exc), index) from None


class _FieldError(ValueError):
    pass


def _shown(value: Any, width: int = 40) -> str:
    """A value from the log as JSON, cut short: a message stays one readable line."""
    text = json.dumps(value)
    return text if len(text) <= width else text[: width - 3] + "..."


_FIELDS: dict[str, tuple[set[str], set[str]]] = {  # type: (required, optional) fields
    "deal": ({"hands", "rest"}, {"dealer"}),
    "call": ({"seat", "call"}, set()),
    "declare": ({"seat"}, {"trump", "direction"}),
    "discard": ({"seat", "cards"}, set()),
    "joker-swap": ({"seat", "joker", "card"}, set()),
    "play": ({"seat", "card"}, set()),
    "undo": (set(), set()),
}


def _parse_event(log: TableLog, raw: Any) -> Event:
    if not isinstance(raw, dict):
        raise _FieldError("an event must be a JSON object")
    if "type" not in raw:
        raise _FieldError("an event needs the field 'type'")
    kind = raw["type"]
    if not isinstance(kind, str):
        raise _FieldError(f"'type' must be an event type such as 'play', not {_shown(kind)}")
    if kind not in _FIELDS:
        raise _FieldError(f"unknown event type {kind!r}")
    if kind not in log.game.events:
        raise _FieldError(f"{log.game.title} has no {kind!r} events")
    required, optional = _FIELDS[kind]
    missing = sorted(required - set(raw))
    if missing:
        raise _FieldError(f"a {kind!r} event needs the field {missing[0]!r}")
    extra = sorted(set(raw) - required - optional - _ANNOTATIONS - {"type"})
    if extra:
        raise _FieldError(f"a {kind!r} event has no field {extra[0]!r}")
    if kind == "deal":
        return _parse_deal(log, raw)
    if kind == "undo":
        return UndoEvent()
    seat = _seat(log, raw["seat"], "seat")
    return ActionEvent(seat, _parse_action(log, kind, raw))


def _parse_deal(log: TableLog, raw: dict[str, Any]) -> DealEvent:
    hands = raw["hands"]
    if not isinstance(hands, list) or len(hands) != log.players:
        raise _FieldError(f"'hands' must be a list of {log.players} card lists, one per seat")
    dealer = raw.get("dealer")
    return DealEvent(
        hands=tuple(_card_list(h, f"hands[{i}]") for i, h in enumerate(hands)),
        rest=_card_list(raw["rest"], "rest"),
        dealer=None if dealer is None else _seat(log, dealer, "dealer"),
    )


def _parse_action(log: TableLog, kind: str, raw: dict[str, Any]) -> Action:
    if kind == "call":
        text = raw["call"]
        if not isinstance(text, str):
            raise _FieldError("'call' must be a string")
        return log.game.parse_call(text, log.options)
    if kind == "play":
        return play(_card(raw["card"], "card"))
    if kind == "declare":
        return _parse_declare(raw)
    if kind == "discard":
        return Discard(_card_list(raw["cards"], "cards"))
    card = raw["card"]
    return JokerSwap(_card(raw["joker"], "joker"), None if card is None else _card(card, "card"))


def _parse_declare(raw: dict[str, Any]) -> Declare:
    trump, direction = raw.get("trump"), raw.get("direction")
    if (trump is None) == (direction is None):
        raise _FieldError("a 'declare' event names either 'trump' or 'direction'")
    if trump is not None:
        if not isinstance(trump, str):
            raise _FieldError("'trump' must be a suit letter")
        return Declare(trump=Suit.from_letter(trump))
    if direction not in ("high", "low"):
        raise _FieldError(f"'direction' must be 'high' or 'low', not {direction!r}")
    return Declare(direction=Direction(direction))


def _seat(log: TableLog, value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < log.players:
        raise _FieldError(f"'{name}' must be a seat from 0 to {log.players - 1}, not {value!r}")
    return value


def _card(value: Any, name: str) -> Card:
    if not isinstance(value, str):
        raise _FieldError(f"'{name}' must be a card code such as 'TH', not {value!r}")
    try:
        return Card.from_str(value)
    except BadNotation:
        raise _FieldError(f"'{name}': {value!r} is not a card code") from None


def _card_list(value: Any, name: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise _FieldError(f"'{name}' must be a list of card codes")
    return tuple(_card(v, f"{name}[{i}]") for i, v in enumerate(value))


# --- replay ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Violation:
    """An action a rule forbade. ``message`` is the table log's record of it; ``action`` (what
    the seat did) and ``facts`` (the rule's reasons as values) are what
    :mod:`engine.violation_words` builds the table's sentence from."""

    event: int
    seat: int | None
    rule: str
    message: str
    action: Action | None = None
    facts: Mapping[str, Fact] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"event": self.event, "seat": self.seat, "rule": self.rule, "message": self.message}


class Referee:
    """Applies events to a match one at a time: the single place the table log's rules live."""

    def __init__(self, game: Game, players: int, options: Any, start: Mapping[str, Any] | None = None) -> None:
        self.match = Match(game, options, players, start)
        self.violations: list[list[Violation]] = []
        self.penalise = getattr(options, "revoke", "reject") == "penalise"

    @classmethod
    def for_log(cls, log: TableLog) -> Referee:
        return cls(log.game, log.players, log.options, log.start)

    def apply(self, event: Event, index: int) -> Violation | None:
        """Apply one event; return the violation it was, if any. Raise MalformedLog."""
        try:
            return self._apply(event, index)
        except (DealError, MatchOver, CardNotHeld) as exc:
            raise MalformedLog(str(exc), index) from None

    def _apply(self, event: Event, index: int) -> Violation | None:
        if isinstance(event, DealEvent):
            self.match.deal(event.hands, event.rest, event.dealer)
            self.violations.append([])
            return None
        hand = self.match.current
        if hand is None:
            raise MalformedLog("no hand has been dealt yet", index)
        if isinstance(event, UndoEvent):
            if not hand.moves:
                raise MalformedLog("'undo' with nothing to undo in the current hand", index)
            hand.pop()
            return None
        if self.match.standing.over:
            raise MalformedLog("the match is over: no event may follow except an undo", index)
        return self._apply_action(hand, event, index)

    def _apply_action(self, hand: Hand, event: ActionEvent, index: int) -> Violation | None:
        hand.check_cards(event.seat, event.action)
        try:
            hand.push(event.action, event.seat, allow_revoke=self.penalise)
        except IllegalAction as exc:
            violation = Violation(index, event.seat, exc.rule, exc.message, event.action, exc.facts)
            self.violations[-1].append(violation)
            return violation
        revoke = hand.revokes[-1] if hand.revokes else None
        if revoke is not None and revoke.move == len(hand.moves) - 1:
            violation = Violation(index, event.seat, revoke.rule, revoke.message, event.action, revoke.facts)
            self.violations[-1].append(violation)
            return violation
        return None

    def report(self) -> dict[str, Any]:
        """The referee's JSON result (``table-log.md``)."""
        hands = [hand_report(h, v) for h, v in zip(self.match.hands, self.violations, strict=True)]
        return {"game": self.match.game.name, "hands": hands, "match": self.match.standing.report()}


def hand_report(hand: Hand, violations: Iterable[Violation]) -> dict[str, Any]:
    r = hand.result()
    out: dict[str, Any] = {
        "dealer": r.dealer,
        "declarer": r.declarer,
        "contract": r.contract,
        "trump": r.trump.letter if r.trump is not None else None,
    }
    if r.direction is not None:
        out["direction"] = r.direction
    out["tricks"] = list(r.tricks)
    if r.points is not None:
        out["points"] = list(r.points)
    out["result"] = r.result
    out["score"] = list(r.score) if r.score is not None else None
    out.update(dict(r.extra))
    out["violations"] = [v.to_json() for v in violations]
    if r.result is None:
        out["phase"] = r.phase.value
        out["to_act"] = r.to_act
    return out


def referee_text(text: str) -> Referee:
    """Parse and replay a log, event by event (so the first bad event is the one reported).

    Returns the referee, whose ``report()`` is the JSON result; raises MalformedLog.
    """
    header, raw_events = _parse_header(_json(text))
    log = TableLog(*header)
    referee = Referee.for_log(log)
    for index, raw in enumerate(raw_events):
        referee.apply(parse_event(log, raw, index), index)
    return referee


def replay(log: TableLog) -> Referee:
    referee = Referee.for_log(log)
    for index, event in enumerate(log.events):
        referee.apply(event, index)
    return referee


# --- writing --------------------------------------------------------------------------------


def events_of_hand(hand: Hand) -> list[Event]:
    """The events that recreate a hand: its deal, then every action taken in it."""
    deal: list[Event] = [DealEvent(hand.deal.hands, hand.deal.rest, hand.deal.dealer)]
    return deal + [ActionEvent(seat, action) for seat, action in hand.moves]


def log_of_match(match: Match, start: Mapping[str, Any] | None = None) -> TableLog:
    events = [e for hand in match.hands for e in events_of_hand(hand)]
    return TableLog(match.game, match.players, match.options, start, events)


def to_document(log: TableLog) -> dict[str, Any]:
    doc: dict[str, Any] = {"format": FORMAT, "version": VERSION, "game": log.game.name, "players": log.players}
    options = options_to_dict(log.options)
    if options:
        doc["options"] = options
    if log.start:
        doc["start"] = dict(log.start)
    doc["events"] = [event_to_json(e) for e in log.events]
    return doc


def dumps(log: TableLog) -> str:
    return json.dumps(to_document(log), indent=1)


def event_to_json(event: Event) -> dict[str, Any]:
    if isinstance(event, DealEvent):
        out: dict[str, Any] = {"type": "deal"}
        if event.dealer is not None:
            out["dealer"] = event.dealer
        out["hands"] = [[str(c) for c in h] for h in event.hands]
        out["rest"] = [str(c) for c in event.rest]
        return out
    if isinstance(event, UndoEvent):
        return {"type": "undo"}
    return {"seat": event.seat, **action_to_json(event.action)}


def action_to_json(action: Action) -> dict[str, Any]:
    if isinstance(action, Call):
        return {"type": "call", "call": action.text}
    if isinstance(action, Play):
        return {"type": "play", "card": str(action.card)}
    if isinstance(action, Declare):
        if action.trump is not None:
            return {"type": "declare", "trump": action.trump.letter}
        assert action.direction is not None
        return {"type": "declare", "direction": action.direction.value}
    if isinstance(action, Discard):
        return {"type": "discard", "cards": [str(c) for c in action.cards]}
    return {"type": "joker-swap", "joker": str(action.joker), "card": str(action.card) if action.card else None}
