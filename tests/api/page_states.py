"""Bringing a table to the states the page is looked at in: the auction, a trick half played, the
hand's result. Every action goes through the HTTP API of a real server, chosen legal by a mirror
referee, so the page shows what a real table would."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import httpx

from engine.actions import Action, Call
from engine.hand import Hand, Phase
from engine.log import Referee
from tests.api.conftest import AUTH
from tests.api.driver import apply_deal, mirror, mirror_action, request_for, shuffled_deal

# Every game at every seat count it is played with.
TABLES: list[tuple[str, int]] = [
    ("poley", 4),
    ("shelem", 4),
    ("fifty-six", 6),
    ("bid-whist", 4),
    ("nap", 2),
    ("nap", 3),
    ("nap", 4),
    ("nap", 5),
    ("nap", 6),
]
STAGES = ("auction", "mid-trick", "result")


@dataclass
class DrivenTable:
    """One match at a real server, driven hand by hand; ``seq`` is the last update's number."""

    http: httpx.Client
    game: str
    players: int
    rng: random.Random
    options: dict[str, Any] = field(default_factory=dict)
    referee: Referee | None = None
    seq: int = 0

    def start(self) -> None:
        body = {"game": self.game, "players": self.players, "options": self.options}
        answer = self.http.post("/api/matches", json=body, headers=AUTH)
        assert answer.status_code == 201, answer.text
        self.seq = answer.json()["seq"]
        self.referee = mirror(self.game, self.players, self.options)

    @property
    def hand(self) -> Hand:
        assert self.referee is not None and self.referee.match.current is not None
        return self.referee.match.current

    def deal(self) -> None:
        assert self.referee is not None
        if self.referee.match.standing.over:  # a short match: the next one goes on at the table
            self.start()
        dealer = self.referee.match.next_dealer()
        deal = shuffled_deal(self.referee, self.rng, dealer if dealer is not None else 0)
        self._post("/api/deals", deal)
        apply_deal(self.referee, deal)

    def act(self, action: Action) -> None:
        seat = self.hand.to_act
        assert seat is not None
        self._post(*request_for(seat, action))
        assert self.referee is not None
        mirror_action(self.referee, seat, action)

    def step(self) -> None:
        """One legal action: a bid while the auction is young (so a contract is played), then at random."""
        hand = self.hand
        legal = hand.legal_actions()
        if hand.phase is Phase.AUCTION:
            bids = [a for a in legal if isinstance(a, Call) and a.text not in ("pass", "double", "redouble")]
            calls = sum(1 for _, a in hand.moves if isinstance(a, Call))
            if bids and calls < hand.players and self.rng.random() < 0.5:
                self.act(bids[0])
                return
        self.act(legal[self.rng.randrange(len(legal))])

    def play_to(self, stage: str) -> None:
        """From a fresh deal, act until the hand is at ``stage`` (a hand thrown in, or ended
        before the stage, is dealt again)."""
        while not self.at(stage):
            if self.hand.is_over():
                self.deal()
            else:
                self.step()

    def at(self, stage: str) -> bool:
        hand = self.hand
        if stage == "auction":  # a call or two made, more to come
            return hand.phase is Phase.AUCTION and bool(hand.moves)
        if stage == "mid-trick":  # a trick taken, and half the next one on the table
            half = max(1, len(hand.active) // 2)
            return hand.phase is Phase.PLAY and bool(hand.tricks) and len(hand.current_trick) >= half
        return hand.is_over() and hand.result().result != "void"

    def whole_hand(self) -> None:
        self.deal()
        self.play_to("result")

    def _post(self, path: str, body: dict[str, Any]) -> None:
        answer = self.http.post(path, json=body, headers=AUTH)
        assert answer.status_code == 200, f"{path} {body}: {answer.text}"
        self.seq = answer.json()["seq"]
