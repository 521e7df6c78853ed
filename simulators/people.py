"""The simulated people at the table: they press the deal button, pick up what the machine put
in their slots, enter their calls on the page's API, and play by putting their cards down in
their zone of the mat, where the camera sees them.

They know only what a person at the table knows: their own cards (from their slot of the
simulated machine), what the page shows (``GET /api/table``), and what they did themselves. Each
keeps a mirror of the hand built from that (a :class:`~engine.log.Referee` of their own), and the
game's simulated player (:mod:`simulators.players`) chooses from its legal actions.

A share of their actions are mistakes (``mistakes``): a card that does not follow suit when it
could, or a card put down out of turn. The table must beep and refuse it (under the revoke
policy ``reject``); the player then takes it back and plays properly. If the page shows a card
other than the one put down (a misread), the player corrects it on the page, as a person would.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from engine.actions import Action, Play, play
from engine.cards import CARDS, Card
from engine.games import get_game
from engine.hand import Hand, Phase
from engine.log import ActionEvent, DealEvent, Referee, action_to_json
from firmware_bridge.protocol import REST
from simulators.live_scene import TableScene
from simulators.players import player_for

log = logging.getLogger(__name__)

ROUTES = {
    "call": "/api/calls",
    "declare": "/api/declare",
    "discard": "/api/discard",
    "joker-swap": "/api/joker-swap",
    "play": "/api/plays",
}
THINK_S = (0.3, 0.9)  # table seconds a player takes to act
WAIT_S = 60.0  # wall seconds to wait for the table to show what it was shown


class TableGoneQuiet(RuntimeError):
    """The table did not show, in time, what the people did."""


def request_for(seat: int, action: Action) -> tuple[str, dict[str, Any]]:
    """The endpoint and body that enter this action, as the page would."""
    event = action_to_json(action)
    kind = event.pop("type")
    return ROUTES[kind], {"seat": seat, **event}


@dataclass
class PeopleStats:
    hands: int = 0
    plays: int = 0
    calls: int = 0
    mistakes: int = 0
    refused: int = 0  # mistakes the table refused, as it should
    corrections: int = 0  # misreads corrected on the page
    replaced: int = 0  # cards put down again because the table did not take them
    notes: list[str] = field(default_factory=list)


class SimulatedPeople:
    def __init__(
        self,
        base_url: str,
        token: str,
        scene: TableScene,
        machine_slots: Callable[[], list[list[int]]],
        gather_machine: Callable[[], None],
        press_deal: Callable[[], None],
        mistakes: float = 0.0,
        seed: int = 0,
    ) -> None:
        self.http = httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30.0)
        self.scene = scene
        self.machine_slots = machine_slots
        self.gather_machine = gather_machine
        self.press_deal = press_deal
        self.mistakes = mistakes
        self.rng = random.Random(seed)
        self.stats = PeopleStats()
        self._stop = threading.Event()
        self._mirror: Referee | None = None
        self._hand_number = 0
        self._counted = False
        self._players: list[Any] = []

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def stop(self) -> None:
        self._stop.set()
        self.scene.clock.stop()

    def close(self) -> None:
        self.stop()
        self.http.close()

    # --- the loop --------------------------------------------------------------------------

    def play(self, hands: int | None) -> None:
        """Play ``hands`` hands (None: until the match is over or they are stopped)."""
        while not self._stop.is_set():
            state = self.table()
            hand = state.get("hand")
            if state.get("match", {}).get("over"):
                return
            if hand is None or hand.get("record") is not None:
                if hand is not None and hand["number"] == self._hand_number and not self._counted:
                    self.stats.hands, self._counted = self.stats.hands + 1, True
                if hands is not None and self.stats.hands >= hands:
                    return
                self._deal(hand["number"] if hand else 0)
                continue
            self._act()

    def table(self) -> dict[str, Any]:
        response = self.http.get("/api/table")
        response.raise_for_status()
        return response.json()  # type: ignore[no-any-return]

    def _deal(self, number: int) -> None:
        """Gather the cards into the machine, press deal, wait for the hand, pick up the cards."""
        self.gather_machine()
        self._think()
        self.press_deal()
        state = self._wait(lambda s: (s.get("hand") or {}).get("number", 0) > number, "the deal", seconds=WAIT_S * 3)
        self._pick_up(state)

    def _pick_up(self, state: dict[str, Any]) -> None:
        if self._mirror is None:
            game = get_game(state["game"])
            options = game.options(state["options"], state["players"])
            self._mirror = Referee(game, state["players"], options)
            self._players = [
                player_for(game.name, random.Random(self.rng.getrandbits(64))) for _ in range(state["players"])
            ]
        hand = state["hand"]
        slots = self.machine_slots()
        players = state["players"]
        hands = tuple(tuple(CARDS[c] for c in slots[s]) for s in range(players))
        rest = tuple(CARDS[c] for c in slots[REST])  # the machine's rest slot, where the widow or kitty lies
        first = self._mirror.match.next_dealer() is None
        self._mirror.apply(DealEvent(hands, rest, hand["dealer"] if first else None), 0)
        self._hand_number, self._counted = hand["number"], False

    # --- one action ------------------------------------------------------------------------

    def _act(self) -> None:
        assert self._mirror is not None
        mirror = self._mirror.match.current
        assert mirror is not None
        seat = mirror.to_act
        if seat is None or mirror.is_over():
            self._wait(lambda s: (s.get("hand") or {}).get("record") is not None, "the hand's end")
            return
        self._think()
        if mirror.phase is Phase.PLAY:
            self._play_turn(mirror, seat)
        else:
            self._enter(seat, self._players[seat].choose(mirror, seat))

    def _enter(self, seat: int, action: Action) -> None:
        """A call, a declaration, a discard or a joker swap, entered on the page."""
        path, body = request_for(seat, action)
        response = self.http.post(path, json=body)
        if response.status_code != 200:
            raise TableGoneQuiet(f"the table refused {body}: {response.status_code} {response.text}")
        if response.json()["applied"]:
            self._mirror_push(seat, action)
            self.stats.calls += 1

    def _play_turn(self, mirror: Hand, seat: int) -> None:
        if not mirror.current_trick:
            self._wait_for_clear_mat()
        if self.mistakes and self.rng.random() < self.mistakes and self._make_mistake(mirror, seat):
            return
        action = self._players[seat].choose(mirror, seat)
        assert isinstance(action, Play)
        self._put_down(seat, action.card)

    def _make_mistake(self, mirror: Hand, seat: int) -> bool:
        """A revoke if this player can make one, else a card out of turn by the next player."""
        legal = {a.card for a in mirror.legal_actions() if isinstance(a, Play)}
        wrong = [c for c in mirror.holding(seat) if c not in legal]
        culprit = seat
        if not wrong or self.rng.random() < 0.5:
            played = {s for s, _ in mirror.current_trick}
            others = [s for s in mirror.active if s != seat and s not in played and mirror.holding(s)]
            if not others:
                return False
            culprit = self.rng.choice(others)
            wrong = list(mirror.holding(culprit))
        if not wrong:
            return False
        self.stats.mistakes += 1
        self._put_down(culprit, self.rng.choice(wrong), mistake=True)
        return True

    def _put_down(self, seat: int, card: Card, mistake: bool = False) -> None:
        """Put the card down in the zone and watch the page until the table has judged it."""
        before = self.table()
        self.scene.put_down(seat, card)
        state = self._wait(lambda s: _judged(before, s), f"{card} at seat {seat}", raise_on_timeout=False)
        if state is None:  # the camera never took it: pick it up and put it down again
            self.stats.replaced += 1
            self.scene.take_back(seat)
            self.scene.clock.sleep(1.0)
            return
        hand = state["hand"]
        if len(hand["violations"]) > len(before["hand"]["violations"]) and _played_count(hand) == _played_count(
            before["hand"]
        ):
            self.stats.refused += mistake
            self.scene.take_back(seat)
            self.scene.clock.sleep(1.0)
            return
        seen = _last_play(hand, seat)
        if seen is not None and seen != str(card):
            self._correct(seat, card, seen)
        self._mirror_push(seat, play(card))
        self.stats.plays += 1
        if _trick_done(before["hand"], hand):
            winner = hand["tricks"][-1]["winner"]
            self.scene.clock.sleep(0.8)
            self.scene.gather(winner)

    def _correct(self, seat: int, card: Card, seen: str) -> None:
        response = self.http.post("/api/correct", json={"card": str(card), "seat": seat})
        self.stats.corrections += 1
        self.stats.notes.append(f"the camera read {seen} for {card} at seat {seat}: corrected ({response.status_code})")

    def _wait_for_clear_mat(self) -> None:
        """Before leading, the previous trick must be gathered and the camera must have seen it go."""
        # A card put down before the camera has seen the mat clear would count for the old trick:
        # people wait for the page to stop saying "gather the trick", however slow the frames.
        self._wait(
            lambda s: not s.get("devices", {}).get("camera", {}).get("trick_on_mat", False),
            "the trick to be gathered",
        )

    def _mirror_push(self, seat: int, action: Action) -> None:
        assert self._mirror is not None
        self._mirror.apply(ActionEvent(seat, action), 1)

    # --- waiting -----------------------------------------------------------------------------

    def _think(self) -> None:
        self.scene.clock.sleep(self.rng.uniform(*THINK_S))

    def _wait(
        self,
        ready: Callable[[dict[str, Any]], bool],
        what: str,
        raise_on_timeout: bool = True,
        seconds: float = WAIT_S,
    ) -> Any:
        deadline = time.monotonic() + seconds
        while not self._stop.is_set():
            state = self.table()
            if not state.get("holds") and ready(state):
                return state
            if state.get("holds"):
                deadline = time.monotonic() + seconds  # a held table is waiting for a person, not for us
            if time.monotonic() > deadline:
                if raise_on_timeout:
                    raise TableGoneQuiet(f"the table did not show {what} within {seconds:g} s")
                log.warning("the table did not show %s within %g s", what, seconds)
                return None
            time.sleep(0.05)
        return None


def _played_count(hand: dict[str, Any]) -> int:
    return sum(len(t["cards"]) for t in hand["tricks"]) + len(hand["trick"])


def _judged(before: dict[str, Any], now: dict[str, Any]) -> bool:
    """The table took the card, or refused it with a violation."""
    a, b = before["hand"], now.get("hand")
    if b is None or b["number"] != a["number"]:
        return True
    return _played_count(b) != _played_count(a) or len(b["violations"]) > len(a["violations"])


def _trick_done(before: dict[str, Any], now: dict[str, Any]) -> bool:
    return len(now["tricks"]) > len(before["tricks"]) and now["tricks"][-1]["winner"] is not None


def _last_play(hand: dict[str, Any], seat: int) -> str | None:
    cards = [c for t in hand["tricks"] for c in t["cards"]] + list(hand["trick"])
    mine = [c["card"] for c in cards if c["seat"] == seat]
    return mine[-1] if mine else None
