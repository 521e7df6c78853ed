"""Random legal hands for property tests: deal from a seed, then random legal actions."""

from __future__ import annotations

import random
from typing import Any

from engine.game import Game
from engine.hand import Hand
from engine.match import Match


def deal_hand(game: Game, rng: random.Random, options: Any = None, dealer: int = 0) -> tuple[Match, Hand]:
    match = Match(game, options)
    pack = list(game.pack)
    rng.shuffle(pack)
    shape = game.deal_shape(match.players, match.options, dealer)
    hands, at = [], 0
    for size in shape.per_seat:
        hands.append(pack[at : at + size])
        at += size
    return match, match.deal(hands, pack[at:], dealer)


def play_out(hand: Hand, rng: random.Random) -> None:
    while not hand.is_over():
        legal = hand.legal_actions()
        hand.push(legal[rng.randrange(len(legal))])


def snapshot(hand: Hand) -> tuple[Any, ...]:
    """Everything about a hand's state that undo must restore."""
    state = tuple(getattr(hand, name) for name in hand.STATE)
    legal = hand.legal_actions()
    return state, tuple(hand.moves), len(legal), tuple(legal[:50]), hand.result()
