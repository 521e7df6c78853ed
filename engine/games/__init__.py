"""The games the referee knows, by the names the table log uses."""

from __future__ import annotations

from engine.errors import BadNotation
from engine.game import Game
from engine.games.bid_whist import BID_WHIST
from engine.games.fifty_six import FIFTY_SIX
from engine.games.nap import NAP_GAME
from engine.games.poley import POLEY
from engine.games.shelem import SHELEM

GAMES: dict[str, Game] = {g.name: g for g in (POLEY, SHELEM, FIFTY_SIX, BID_WHIST, NAP_GAME)}


def get_game(name: str) -> Game:
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise BadNotation(f"unknown game {name!r} (known: {', '.join(GAMES)})") from None
