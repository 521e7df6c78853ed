"""Driving a hand through the API with legal actions taken from a mirror referee."""

from __future__ import annotations

import random
from typing import Any

from engine.actions import Action, Call
from engine.games import get_game
from engine.hand import Hand, Phase
from engine.log import ActionEvent, DealEvent, Referee, UndoEvent
from simulators.people import ROUTES, request_for  # noqa: F401  (the page's routes, one place)


def mirror(game: str, players: int | None = None, options: dict[str, Any] | None = None) -> Referee:
    chosen = get_game(game)
    seats = players or chosen.default_players()
    return Referee(chosen, seats, chosen.options(options or {}, seats))


def shuffled_deal(referee: Referee, rng: random.Random, dealer: int) -> dict[str, Any]:
    match = referee.match
    pack = [str(c) for c in match.game.pack]
    rng.shuffle(pack)
    hands, at = [], 0
    for size in match.game.deal_shape(match.players, match.options, dealer).per_seat:
        hands.append(pack[at : at + size])
        at += size
    return {"dealer": dealer, "hands": hands, "rest": pack[at:]}


def apply_deal(referee: Referee, deal: dict[str, Any]) -> None:
    from engine.cards import Card

    hands = tuple(tuple(Card.from_str(c) for c in h) for h in deal["hands"])
    referee.apply(DealEvent(hands, tuple(Card.from_str(c) for c in deal["rest"]), deal["dealer"]), 0)


def choose(hand: Hand, rng: random.Random, game: str) -> Action:
    legal = hand.legal_actions()
    if hand.phase is Phase.AUCTION and game == "bid-whist":  # steer towards no-trump: the joker swap
        no_trump = [c for c in legal if isinstance(c, Call) and c.text.endswith("no")]
        if no_trump and rng.random() < 0.7:
            return no_trump[0]
    return legal[rng.randrange(len(legal))]


def mirror_action(referee: Referee, seat: int, action: Action) -> None:
    referee.apply(ActionEvent(seat, action), 1)


def mirror_undo(referee: Referee) -> None:
    referee.apply(UndoEvent(), 1)
