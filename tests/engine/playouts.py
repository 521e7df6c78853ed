"""Random legal hands through the public API, for the property tests."""

from __future__ import annotations

import random
from typing import Any

from engine.game import Game
from engine.hand import Hand
from engine.match import Match


def deal_random(match: Match, rng: random.Random, dealer: int | None = None) -> Hand:
    """Deal the next hand of ``match`` from a shuffled pack (``dealer`` only for the first)."""
    pack = list(match.game.pack)
    rng.shuffle(pack)
    first = match.next_dealer() is None
    shape = match.game.deal_shape(match.players, match.options, dealer if first else match.next_dealer())  # type: ignore[arg-type]
    hands, at = [], 0
    for size in shape.per_seat:
        hands.append(pack[at : at + size])
        at += size
    return match.deal(hands, pack[at:], dealer if first else None)


def deal_hand(game: Game, rng: random.Random, options: Any = None, dealer: int = 0) -> tuple[Match, Hand]:
    """A new match and its first hand, dealt by ``dealer``."""
    match = Match(game, options)
    return match, deal_random(match, rng, dealer)


def play_out(hand: Hand, rng: random.Random) -> None:
    while not hand.is_over():
        legal = hand.legal_actions()
        hand.push(legal[rng.randrange(len(legal))])


def random_match(game: Game, seed: int, hands: int, options: Any = None, players: int | None = None) -> Match:
    rng = random.Random(seed)
    match = Match(game, options, players)
    for _ in range(hands):
        if match.standing.over:
            break
        play_out(deal_random(match, rng, dealer=rng.randrange(match.players)), rng)
    return match


def state(hand: Hand) -> tuple[Any, ...]:
    """Everything undo must restore: the state attributes, the moves, what the hand offers."""
    legal = hand.legal_actions()
    return hand._snapshot(hand), tuple(hand.moves), len(legal), tuple(legal[:50]), hand.result()


def assert_undo_unwinds(hand: Hand, rng: random.Random) -> None:
    """Play a hand to its end at random, then pop every action: each pop restores the state."""
    before = []
    while not hand.is_over():
        before.append(state(hand))
        legal = hand.legal_actions()
        hand.push(legal[rng.randrange(len(legal))])
    while before:
        hand.pop()
        assert state(hand) == before.pop()


def assert_each_pop_restores(hand: Hand, rng: random.Random) -> None:
    """At every step of a random hand, push an action and pop it: the state is as before."""
    while not hand.is_over():
        before = state(hand)
        legal = hand.legal_actions()
        hand.push(legal[rng.randrange(len(legal))])
        hand.pop()
        assert state(hand) == before
        hand.push(legal[rng.randrange(len(legal))])
