"""One referee: each match rebuilt from what its table published, and replayed with the engine.

A match's table log is its ``match`` message (game, players, options, start) and the events of
its reveals, each hand's latest reveal (a hand taken back by an undo after its end is revealed
again), in the order of their ``entry`` indices. It is replayed event by event with
:class:`engine.log.Referee`, as ``croupier referee`` does, and the match's standing after each
hand is compared with the ``result`` the table published for it: a table whose result differs is
flagged. The hand still being played is known only by its public events (its deal stays hidden
until its reveal), so it is shown, not refereed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from club.store import Stored
from engine.log import FORMAT, VERSION, MalformedLog, Referee, loads

_SCORE_KEYS = {"score", "horses", "chips", "pool"}  # what a `result` may hold (the table log's `start` shape)


@dataclass
class MatchRecord:
    """What the club knows of one match, refereed."""

    table: str
    match: int
    game: str | None = None
    started: datetime | None = None  # when the table started the match (its match message's `at`)
    seats: list[str] = field(default_factory=list)
    log: dict[str, Any] | None = None  # the rebuilt table log: every revealed hand
    report: dict[str, Any] | None = None  # the referee's result of that log (`croupier referee --json`)
    hands_revealed: int = 0
    in_play: list[dict[str, Any]] = field(default_factory=list)  # public events of the hand being played
    published: dict[int, dict[str, Any]] = field(default_factory=dict)  # hand -> the table's `result`
    mismatches: list[str] = field(default_factory=list)  # a published result that the replay does not give
    problem: str | None = None  # why the match cannot be (wholly) refereed yet

    @property
    def state(self) -> str:
        if self.mismatches:
            return "flagged"
        if self.problem is not None:
            return "incomplete"
        return "ok"

    @property
    def standing(self) -> dict[str, Any] | None:
        return self.report["match"] if self.report else None

    def summary(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "match": self.match,
            "game": self.game,
            "seats": self.seats,
            "hands": self.hands_revealed,
            "standing": self.standing,
            "state": self.state,
            "mismatches": self.mismatches,
            "problem": self.problem,
        }


def rebuild(table: str, match: int, messages: Sequence[Stored]) -> MatchRecord:
    """The match's record from its stored messages (any order, duplicates already gone)."""
    record = MatchRecord(table, match)
    header = next((m.body for m in messages if m.kind == "match"), None)
    if header is None:
        record.problem = "its match message has not arrived"
        return record
    record.game, record.seats = header.get("game"), list(header.get("seats", []))
    record.started = datetime.fromisoformat(header["at"])
    reveals = _latest_per_hand(messages, "reveal")
    record.published = {hand: m.body for hand, m in _latest_per_hand(messages, "result").items()}
    events, record.hands_revealed, gap = _revealed_events(reveals)
    record.problem = gap
    record.log = table_log(header, events)
    last_entry = len(events) - 1
    record.in_play = [
        m.body["event"]
        for m in sorted(messages, key=lambda m: m.body.get("entry", -1))
        if m.kind == "event" and m.body.get("entry", -1) > last_entry
    ]
    _referee(record, reveals, record.hands_revealed)
    return record


def table_log(header: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """A table log (docs/table-log.md) of a match message's header and these events."""
    doc: dict[str, Any] = {"format": FORMAT, "version": VERSION, "game": header.get("game")}
    if header.get("players") is not None:
        doc["players"] = header["players"]
    if header.get("options"):
        doc["options"] = header["options"]
    if header.get("start"):
        doc["start"] = header["start"]
    doc["events"] = events
    return doc


def _latest_per_hand(messages: Sequence[Stored], kind: str) -> dict[int, Stored]:
    latest: dict[int, Stored] = {}
    for m in sorted((m for m in messages if m.kind == kind), key=lambda m: m.seq):
        latest[int(m.body["hand"])] = m
    return latest


def _revealed_events(reveals: dict[int, Stored]) -> tuple[list[dict[str, Any]], int, str | None]:
    """The events of hands 1, 2, ... while their reveals follow one another; and what broke the run."""
    events: list[dict[str, Any]] = []
    hand = 0
    while hand + 1 in reveals:
        body = reveals[hand + 1].body
        if body["entries"][0] != len(events):
            return events, hand, f"hand {hand + 1}'s reveal starts at entry {body['entries'][0]}, not {len(events)}"
        events.extend(body["events"])
        hand += 1
    later = [h for h in reveals if h > hand + 1]
    gap = f"hand {hand + 1}'s reveal has not arrived (hand {min(later)}'s has)" if later else None
    return events, hand, gap


def _referee(record: MatchRecord, reveals: dict[int, Stored], hands: int) -> None:
    """Replay the rebuilt log hand by hand, checking each published result against the replay."""
    assert record.log is not None
    try:
        log = loads(json.dumps(record.log))
    except MalformedLog as exc:
        record.problem = f"its table log is malformed: {exc}"
        return
    referee = Referee.for_log(log)
    index = 0
    for hand in range(1, hands + 1):
        for _ in reveals[hand].body["entries"]:
            try:
                referee.apply(log.events[index], index)
            except MalformedLog as exc:
                record.problem = f"its table log is malformed: {exc}"
                return
            index += 1
        _check_result(record, hand, referee)
    record.report = referee.report()


def _check_result(record: MatchRecord, hand: int, referee: Referee) -> None:
    published = record.published.get(hand)
    if published is None:
        return  # not arrived yet: nothing to compare
    replayed = referee.match.standing.report()
    if not same_score(published.get("score"), replayed) or published.get("over") != replayed["over"]:
        record.mismatches.append(
            f"hand {hand}: the table published {json.dumps(published.get('score'))}"
            f"{' (match over)' if published.get('over') else ''}, the replay gives {json.dumps(start_shape(replayed))}"
            f"{' (match over)' if replayed['over'] else ''}"
        )


def start_shape(report: dict[str, Any]) -> dict[str, Any]:
    """A standing's report in the table log's ``start`` shape (Fifty-Six counts chips, not score)."""
    shape = {name: value for name, value in report.items() if name in _SCORE_KEYS}
    if "chips" in shape:
        shape.pop("score", None)
    return shape


def same_score(published: Any, replayed: dict[str, Any]) -> bool:
    """Whether a published score (the ``start`` shape) says what the replay's standing says."""
    if not isinstance(published, dict) or not published or not set(published) <= _SCORE_KEYS:
        return False
    return all(name in replayed and replayed[name] == value for name, value in published.items())
