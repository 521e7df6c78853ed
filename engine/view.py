"""What is public at the table: the state and the events as anyone watching may see them.

The referee knows every card, because the dealing machine read them all. The players do not:
until a hand has ended, nobody may learn a card in another player's hand, the widow, the
kitty, the dead cards or the stock, the cards buried or laid away, or the kitty card a Bid
Whist joker holder took. This module is the one place that decides what may be shown, so the
web page, the WebSocket and any future display all show the same thing.

Public during a hand: the dealer, the seats in use, how many cards each holds, the phase and
whose turn it is, every call, the contract, declarer, trumps and direction, how many cards
were laid away, which joker was given up (and whether a card was taken for it), every card
played to a trick (a card put on the mat has been seen, even when the referee refuses it),
the tricks and the points they hold, the violations, and the match's standing. Once a hand
has ended, its whole deal and every action in it are public as a hand record.

Everything a person reads comes with the state in words (:mod:`engine.words`,
:mod:`engine.seat_names`, :mod:`engine.violation_words`): the seats' names and the teams', each
call and contract in its game's words, each violation as a sentence, how the cards' ranks are
drawn. The page shows those words as they are, so it says exactly what the terminal says.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.actions import Action, Call, Declare, Discard, JokerSwap
from engine.games import get_game
from engine.games.shelem import TRICK_POINTS, ShelemHand, card_points
from engine.hand import Hand, HandResult, Phase
from engine.log import Referee, Violation, action_to_json, event_to_json, events_of_hand, hand_report
from engine.options import options_to_dict
from engine.seat_names import SeatNames
from engine.violation_words import Words, violation_sentence
from engine.words import JOKERS, call_words, contract_words, declaration_words, rank_faces, suit_words


def table_words(referee: Referee, names: Sequence[str] = (), letters: bool = False) -> Words:
    """How this table names things: its game, its seats (the chosen names, else the compass
    points) and whether Fifty-Six's cards carry the rule sheet's letters."""
    match = referee.match
    return Words(match.game.name, SeatNames.of(match.players, names), letters)


def public_state(referee: Referee, words: Words | None = None) -> dict[str, Any]:
    """The match as anyone at the table may see it now (JSON-ready), with its words."""
    match = referee.match
    words = words or table_words(referee)
    finished = list(zip(match.hands, referee.violations, strict=True))
    current = finished.pop() if finished else None
    return {
        "game": match.game.name,
        "players": match.players,
        "options": options_to_dict(match.options),
        "seat_names": _seat_names(words),
        "card_faces": {"ranks": rank_faces(words.game, words.letters), "jokers": JOKERS, "letters": words.letters},
        "match": match.standing.report(),
        # Hands before the current one have ended: their results are public.
        "history": [_history_hand(hand, violations, words) for hand, violations in finished],
        "hand": public_hand(current[0], current[1], len(match.hands), words) if current is not None else None,
    }


def _seat_names(words: Words) -> dict[str, Any]:
    seats = words.seats
    return {
        "names": list(seats.names),
        "short": [seats.short(seat) for seat in range(len(seats.names))],  # where room is short
        "teams": list(seats.teams()),
        "chosen": seats.chosen,
    }


def _history_hand(hand: Hand, violations: Sequence[Violation], words: Words) -> dict[str, Any]:
    report = hand_report(hand, violations)
    report["contract_words"] = contract_words(words.game, report["contract"], report["trump"], report.get("direction"))
    report["violations"] = [public_violation(v, words) for v in violations]
    return report


def public_violation(violation: Violation, words: Words) -> dict[str, Any]:
    """A violation as the table shows it: the log's record, and ``text``, its sentence."""
    text = violation_sentence(violation.rule, violation.seat, violation.action, violation.facts, words)
    return violation.to_json() | {"text": text}


def violation_of(referee: Referee, found: Mapping[str, Any] | None, words: Words) -> dict[str, Any] | None:
    """The violation just recorded (``found``: its log record) in its public form, with its sentence."""
    if found is None:
        return None
    for violation in reversed(referee.violations[-1] if referee.violations else []):
        if violation.event == found.get("event"):
            return public_violation(violation, words)
    return dict(found)


def public_hand(
    hand: Hand, violations: Iterable[Violation], number: int = 1, words: Words | None = None
) -> dict[str, Any]:
    """One hand as the table sees it; its full record once it has ended."""
    result = hand.result()
    words = words or Words(hand.GAME, SeatNames.of(hand.players))
    trump = result.trump.letter if result.trump is not None else None
    return {
        "number": number,
        "dealer": hand.dealer,
        "seats": list(hand.active),
        "cards_held": [len(hand.holding(seat)) for seat in range(hand.players)],
        "phase": hand.phase.value,
        "to_act": public_to_act(hand),
        "auction": [
            {"seat": seat, "call": action.text, "words": call_words(words.game, action.text)}
            for seat, action in hand.moves
            if isinstance(action, Call)
        ],
        "declarer_actions": [
            _declarer_action(seat, action, words) for seat, action in hand.moves if _is_declarers(action)
        ],
        "declarer": result.declarer,
        "contract": result.contract,
        "contract_words": contract_words(words.game, result.contract, trump, result.direction),
        "trump": trump,
        "trump_words": suit_words(trump) if trump is not None else None,
        "direction": result.direction,
        "trick": [{"seat": seat, "card": str(card)} for seat, card in hand.current_trick],
        "tricks": [_trick(hand, i) for i in range(len(hand.tricks))],
        "tricks_won": list(result.tricks),
        "points": _public_points(hand, result),
        "legal": public_legal(hand, words.game),
        "violations": [public_violation(v, words) for v in violations],
        "result": result.result,
        "score": list(result.score) if result.score is not None else None,
        "record": hand_record(hand) if hand.is_over() else None,
    }


def hand_record(hand: Hand) -> dict[str, Any]:
    """The whole deal and every action of a hand: public once the hand has ended."""
    deal, *actions = events_of_hand(hand)
    return {**event_to_json(deal), "dealer": hand.dealer, "events": [event_to_json(e) for e in actions]}


def public_legal(hand: Hand, game: str = "") -> dict[str, Any] | None:
    """What the seat to act may do, never naming a card it holds (legal plays would); each call
    and declaration also in words (``words``)."""
    phase = hand.phase
    if phase is Phase.OVER or hand.to_act is None:
        return None
    out: dict[str, Any] = {"seat": public_to_act(hand), "type": _PHASE_ACTION[phase]}
    if phase is Phase.AUCTION:
        out["calls"] = [call.text for call in hand.legal_actions() if isinstance(call, Call)]
        out["words"] = [call_words(game or hand.GAME, call) for call in out["calls"]]
    elif phase is Phase.DECLARE:
        out["declarations"] = [_declaration(d) for d in hand.legal_actions() if isinstance(d, Declare)]
    elif phase is Phase.DISCARD:
        out["count"] = len(hand.deal.rest)  # he took the widow or kitty and lays away as many
    elif phase is Phase.JOKER_SWAP:
        # The table asks the holder of this joker, whoever he is; the kitty's cards stay hidden.
        swap = next(a for a in hand.legal_actions() if isinstance(a, JokerSwap))
        out["joker"] = str(swap.joker)
    return out


_PHASE_ACTION = {
    Phase.AUCTION: "call",
    Phase.DECLARE: "declare",
    Phase.DISCARD: "discard",
    Phase.JOKER_SWAP: "joker-swap",
    Phase.PLAY: "play",
}


def public_to_act(hand: Hand) -> int | None:
    """Whose turn it is, as the page and the panel's LEDs show it. In Bid Whist's joker exchange
    the seat asked is a joker's holder, which would tell where the joker is: the table asks "the
    big joker's holder" instead, and no seat is shown."""
    return hand.public_to_act()


def _declaration(declare: Declare) -> dict[str, str]:
    if declare.trump is not None:
        return {"trump": declare.trump.letter, "words": declaration_words(trump=declare.trump.letter)}
    assert declare.direction is not None
    return {"direction": declare.direction.value, "words": declaration_words(direction=declare.direction.value)}


def _is_declarers(action: Action) -> bool:
    return isinstance(action, Declare | Discard | JokerSwap)


def _declarer_action(seat: int, action: Action, words: Words) -> dict[str, Any]:
    shown = _public(action_to_json(action) | {"seat": seat}, applied=True)
    return shown | {"words": _declarer_words(shown, words)}


def _declarer_words(shown: Mapping[str, Any], words: Words) -> str:
    """A declarer's (or joker holder's) action in words, from its public form only."""
    who = words.seats(shown.get("seat"))
    kind = shown["type"]
    if kind == "declare":
        named = suit_words(shown["trump"]) if "trump" in shown else declaration_words(direction=shown["direction"])
        return f"{who} named {named}"
    if kind == "discard":
        return f"{who} laid away {shown['count']} {'card' if shown['count'] == 1 else 'cards'}"
    if shown.get("took_card"):
        return f"{who} gave up the {JOKERS[shown['joker']]} for a kitty card"
    return "a joker's holder kept the joker"


def _trick(hand: Hand, index: int) -> dict[str, Any]:
    trick = hand.tricks[index]
    cards = [{"seat": seat, "card": str(card)} for seat, card in zip(trick.seats, trick.cards, strict=False)]
    return {"leader": trick.leader, "cards": cards, "winner": trick.winner}


def _public_points(hand: Hand, result: HandResult) -> list[int] | None:
    """The points the tricks hold. Shelem counts the buried pile for its owner, but its
    points would tell what was buried: they are left out until the hand ends."""
    if result.points is None:
        return None
    points = list(result.points)
    if isinstance(hand, ShelemHand) and not hand.is_over() and hand.buried is not None:
        owner = hand.pile_owner()
        if owner is not None:
            points[owner] -= TRICK_POINTS + card_points(hand.buried)
    return points


# --- events -------------------------------------------------------------------------------------


def public_event(game: str, event: Mapping[str, Any], *, applied: bool = True) -> dict[str, Any]:
    """A table-log event as it may be broadcast while its hand is in progress.

    ``applied`` is false for an action the referee refused (a violation that did not stand):
    a refused joker swap then names no joker, since the seat never gave one up. A declined
    swap names neither the joker nor the seat: that would tell who holds the joker still.
    Free-text fields (``note``) are never passed on: they might name a card.
    """
    kind = event.get("type")
    if kind not in get_game(game).events:
        raise ValueError(f"{game} has no {kind!r} events")
    return _public(event, applied)


def _public(event: Mapping[str, Any], applied: bool) -> dict[str, Any]:
    kind = str(event.get("type"))
    if kind == "deal":
        return _public_deal(event)
    if kind == "discard":
        return {"type": "discard", "seat": event["seat"], "count": len(event["cards"])}
    if kind == "joker-swap":
        return _public_swap(event, applied)
    return {"type": kind, **{name: event[name] for name in _OPEN_FIELDS[kind] if name in event}}


_OPEN_FIELDS: dict[str, Sequence[str]] = {
    "call": ("seat", "call"),
    "declare": ("seat", "trump", "direction"),
    "play": ("seat", "card"),  # a card on the mat is seen by everyone
    "undo": (),  # the state sent with it shows what changed; a card taken back was seen already
}


def _public_swap(event: Mapping[str, Any], applied: bool) -> dict[str, Any]:
    took = event["card"] is not None
    if not applied:
        return {"type": "joker-swap", "seat": event["seat"], "joker": None, "took_card": False}
    if not took:
        return {"type": "joker-swap", "seat": None, "joker": None, "took_card": False}
    return {"type": "joker-swap", "seat": event["seat"], "joker": event["joker"], "took_card": True}


def _public_deal(event: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "deal",
        "dealer": event.get("dealer"),
        "cards_per_seat": [len(cards) for cards in event["hands"]],
        "rest_count": len(event["rest"]),
    }
