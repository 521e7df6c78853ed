"""A whole hand of every game through the API: no endpoint and no WebSocket message shows a
card that is not yet public; after the hand, the hand record shows the whole deal."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from engine.actions import Play
from engine.hand import Hand, Phase
from engine.log import referee_text
from tests.api.conftest import AUTH, start
from tests.api.driver import apply_deal, choose, mirror, mirror_action, mirror_undo, request_for, shuffled_deal
from tests.leaks import assert_no_leak, hidden_cards

TABLES: list[tuple[str, int | None, dict[str, Any], int]] = [
    ("poley", None, {}, 1),
    ("shelem", None, {}, 2),
    ("fifty-six", None, {}, 3),
    ("bid-whist", None, {}, 5),
    ("bid-whist", None, {"revoke": "reject"}, 12),
    ("nap", 5, {"dealer-sits-out": True}, 5),
]


class Sweep:
    """One hand: every answer, every read and every WebSocket message is checked."""

    def __init__(self, client: Any, ws: Any, game: str, match_id: int, referee: Any) -> None:
        self.client, self.ws, self.game, self.match_id = client, ws, game, match_id
        self.referee = referee  # the mirror: it knows every card, and what the table shows must not
        self.seen: set[str] = set()
        self.seqs: list[int] = []
        self.kinds: set[str] = set()

    def check(self, doc: Any, where: str) -> None:
        hand = self.referee.match.current
        if hand is not None and hand.phase is Phase.JOKER_SWAP:  # asked aloud: "the big joker's holder?"
            self.seen.add(str(hand.legal_actions()[0].joker))
        if hand is not None and not hand.is_over():
            assert_no_leak(doc, hidden_cards(hand, self.seen), where)

    def post(
        self, path: str, body: dict[str, Any] | None, then: Callable[[], None], updates: int = 1
    ) -> dict[str, Any]:
        """Post an action, apply it to the mirror (``then``), and check what the table shows."""
        answer = self.client.post(path, json=body, headers=AUTH)
        assert answer.status_code == 200, answer.text
        then()
        if path == "/api/plays" and body is not None:
            self.seen.add(body["card"])  # on the mat: seen, even if the referee refuses it
        for _ in range(updates):
            message = self.ws.receive_json()
            assert message["type"] == "update"
            self.seqs.append(message["seq"])
            self.kinds.add(message["event"]["type"])
            self.check(message, f"WebSocket after {path}")
        self.check(answer.json(), f"answer of {path}")
        return dict(answer.json())

    def read_everything(self) -> None:
        for path in ("/api/table", "/api/matches", f"/api/matches/{self.match_id}/log", "/api/health"):
            answer = self.client.get(path)
            assert answer.status_code == 200, answer.text
            self.check(answer.json(), f"GET {path}")


def play_one_hand(sweep: Sweep, referee: Any, rng: random.Random, deal: dict[str, Any]) -> None:
    sweep.post("/api/deals", deal, lambda: apply_deal(referee, deal))
    hand = referee.match.current
    assert hand is not None
    step = 0
    while not hand.is_over():
        step += 1
        sweep.read_everything()
        if step % 9 == 3 and hand.moves:
            sweep.post("/api/undo", None, lambda: mirror_undo(referee))
            continue
        if hand.phase is Phase.PLAY and step % 7 == 0 and _correct(sweep, referee, hand, rng):
            continue
        if hand.phase is Phase.PLAY and step % 5 == 0 and _revoke(sweep, referee, hand, rng):
            continue
        seat, action = hand.to_act, choose(hand, rng, sweep.game)
        path, body = request_for(seat, action)
        answer = sweep.post(path, body, lambda: mirror_action(referee, seat, action))  # noqa: B023
        assert answer["violation"] is None and answer["applied"]


def _correct(sweep: Sweep, referee: Any, hand: Hand, rng: random.Random) -> bool:
    """'That card was ...': replace the last play by another legal card of the same seat."""
    if not hand.moves or not isinstance(hand.moves[-1][1], Play):
        return False
    seat, last = hand.moves[-1]
    mirror_undo(referee)
    others = [a for a in hand.legal_actions() if a != last]
    if not others:
        mirror_action(referee, seat, last)
        return False
    new = rng.choice(others)
    sweep.seen.add(str(new.card))  # type: ignore[attr-defined]
    sweep.post("/api/correct", {"card": str(new.card)}, lambda: mirror_action(referee, seat, new), updates=2)  # type: ignore[attr-defined]
    return True


def _revoke(sweep: Sweep, referee: Any, hand: Hand, rng: random.Random) -> bool:
    """A held card that breaks a rule: recorded as a violation, applied only under 'penalise'."""
    seat = hand.to_act
    legal = hand.legal_actions()
    wrong = [c for c in hand.holding(seat) if Play(c) not in legal]
    if not wrong:
        return False
    card = rng.choice(wrong)
    before = hand.version
    answer = sweep.post(
        "/api/plays", {"seat": seat, "card": str(card)}, lambda: mirror_action(referee, seat, Play(card))
    )
    assert answer["violation"] is not None
    assert answer["applied"] == (hand.version != before)
    return True


@pytest.mark.parametrize(("game", "players", "options", "seed"), TABLES)
def test_a_whole_hand_through_the_api_shows_no_hidden_card(client, game, players, options, seed):
    rng = random.Random(seed)
    body: dict[str, Any] = {"options": options} | ({"players": players} if players else {})
    match_id = start(client, game, **body)
    referee = mirror(game, players, options)
    deal = shuffled_deal(referee, rng, dealer=seed % referee.match.players)
    with client.websocket_connect("/ws") as ws:
        snapshot = ws.receive_json()
        assert snapshot["type"] == "snapshot" and snapshot["state"]["match_id"] == match_id
        sweep = Sweep(client, ws, game, match_id, referee)
        play_one_hand(sweep, referee, rng, deal)
    assert sweep.seqs == list(range(snapshot["seq"] + 1, snapshot["seq"] + 1 + len(sweep.seqs)))
    assert {"deal", "call", "play", "undo"} <= sweep.kinds
    if game == "bid-whist":  # the likeliest leaks: the discard into the kitty, the swap for a kitty card
        assert {"declare", "discard", "joker-swap"} <= sweep.kinds
    table = client.get("/api/table").json()
    record = table["hand"]["record"]
    assert (record["dealer"], record["hands"], record["rest"]) == (deal["dealer"], deal["hands"], deal["rest"])
    log = client.get(f"/api/matches/{match_id}/log").json()
    assert log["events"][0]["hands"] == deal["hands"]
    assert _without_indices(referee_text(json.dumps(log)).report()) == _without_indices(referee.report())


def _without_indices(report: dict[str, Any]) -> dict[str, Any]:
    """The mirror numbers its events loosely: compare violations by seat and rule."""
    for hand in report["hands"]:
        hand["violations"] = [(v["seat"], v["rule"]) for v in hand["violations"]]
    return report
