"""What a table publishes to its club (docs/club-protocol.md), from real matches the engine plays.

The club service's tests and benchmark publish these straight to the broker, as many simulated
tables; the table's own publisher (with its outbox) is the controller's and is tested there."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from engine.games import GAMES
from engine.log import (
    Event,
    Referee,
    TableLog,
    dumps,
    event_to_json,
    events_of_hand,
    loads,
    parse_event,
    referee_text,
)
from engine.options import options_to_dict
from engine.view import public_event
from simulators.table import SimulatedTable


def now() -> str:
    """When a table journals a message: now, in UTC, as a table writes it."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


NAMES = ["anna", "ben", "carl", "dora", "emil", "fay"]


@dataclass
class PublishedMatch:
    club: str
    table: str
    match: int
    game: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    log: dict[str, Any] = field(default_factory=dict)  # the table's own table log
    report: dict[str, Any] = field(default_factory=dict)  # `croupier referee --json` of it

    @property
    def topic(self) -> str:
        return f"croupier/{self.club}/{self.table}/events"

    def payloads(self) -> list[bytes]:
        return [json.dumps(m).encode() for m in self.messages]


def play(
    club: str, table: str, game: str, seed: int, hands: int, match: int = 1, seats: list[str] | None = None
) -> PublishedMatch:
    """A match of ``hands`` hands (fewer if it ends), and every message its table publishes."""
    sim = SimulatedTable(GAMES[game], seed=seed)
    sim.play(hands)
    log = json.loads(dumps(sim.log()))
    out = PublishedMatch(club, table, match, game, log=log, report=referee_text(json.dumps(log)).report())
    players = sim.match.players
    head = {"game": game, "players": players, "options": options_to_dict(sim.match.options), "start": None}
    out.messages.append(_message(out, "match", **head, seats=(seats or NAMES)[:players]))
    referee = Referee.for_log(loads(json.dumps(log)))
    entry = 0
    for number, hand in enumerate(sim.match.hands, start=1):
        events = [event_to_json(e) for e in events_of_hand(hand)]
        first = entry
        for event in events:
            out.messages.append(_message(out, "event", entry=entry, hand=number, event=public_event(game, event)))
            referee.apply(referee_event(referee, event, entry), entry)
            entry += 1
        out.messages.append(_message(out, "reveal", hand=number, entries=list(range(first, entry)), events=events))
        standing = referee.match.standing.report()
        score = {k: v for k, v in standing.items() if k not in ("over", "winner")}
        out.messages.append(_message(out, "result", hand=number, score=score, over=standing["over"]))
    return out


def referee_event(referee: Referee, raw: dict[str, Any], index: int) -> Event:
    m = referee.match
    return parse_event(TableLog(m.game, m.players, m.options), raw, index)


def _message(out: PublishedMatch, kind: str, **fields: Any) -> dict[str, Any]:
    return {
        "v": 1,
        "club": out.club,
        "table": out.table,
        "match": out.match,
        "seq": len(out.messages) + 1,
        "kind": kind,
        "at": now(),
        **fields,
    }


def status(club: str, table: str, **fields: Any) -> dict[str, Any]:
    body = {"v": 1, "club": club, "table": table, "match": 1, "game": "nap", "hand": 1, "to_act": None}
    body.update({"paused": False, "held": False, "score": [0, 0], "at": now(), "online": True})
    body.update(fields)
    return body
