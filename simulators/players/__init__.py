"""Simulated players, one module per game: they act through the same legal-action interface
as the referee. Each sees its own cards and the public state of the hand; bidding follows the
game's rule of thumb, so auctions look like real ones, and play follows a simple
legal heuristic (simulators/players/tricks.py) or is random among legal cards.
"""

from __future__ import annotations

import random

from simulators.players.base import Player, RandomPlayer
from simulators.players.bid_whist import BidWhistPlayer
from simulators.players.fifty_six import FiftySixPlayer
from simulators.players.nap import NapPlayer
from simulators.players.poley import PoleyPlayer
from simulators.players.shelem import ShelemPlayer

PLAYERS: dict[str, type[RandomPlayer]] = {
    "poley": PoleyPlayer,
    "fifty-six": FiftySixPlayer,
    "nap": NapPlayer,
    "shelem": ShelemPlayer,
    "bid-whist": BidWhistPlayer,
}


def player_for(game: str, rng: random.Random) -> Player:
    """A simulated player of the named game."""
    return PLAYERS.get(game, RandomPlayer)(rng)


__all__ = ["PLAYERS", "Player", "RandomPlayer", "player_for"]
