"""A table publishes what it journals to a real Mosquitto, in order, hiding what is hidden, and
loses nothing while the broker is away (docs/club-protocol.md)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from benchmarks.club_servers import stop
from controller.runtime import Runtime
from engine.log import referee_text
from tests.club_link.club import Collector, club_settings, engine_log, play, runtimes, start_match, wait_until

CARD = re.compile(r"^(?:[2-9TJQKA][SHDC]|[BL]J)$")


@pytest.fixture
def club(broker):
    collector = Collector(broker)
    yield collector
    collector.close()


@pytest.fixture
def table(tmp_path, broker):
    with runtimes(start=False) as open_runtime:

        def open_table(name: str = "t1", **more: Any) -> Runtime:
            return open_runtime(club_settings(tmp_path, broker, name, **more))

        yield open_table


def queued(runtime: Runtime) -> int:
    """Messages the table has queued for its current match (the last seq)."""
    row = runtime.journal._db.execute("SELECT last FROM outbox_seq WHERE match_id = ?", (runtime.controller.match_id,))
    return int(row.fetchone()[0])


def outbox_rows(runtime: Runtime) -> int:
    return int(runtime.journal._db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0])


def expected_kinds(log: dict[str, Any]) -> list[str]:
    """The kinds the protocol says a match makes: match, an event each, and a reveal and a result
    after each event that ends a hand (found by replaying the log up to each event)."""
    kinds = ["match"]
    for index in range(len(log["events"])):
        hand = referee_text(json.dumps(log | {"events": log["events"][: index + 1]})).match.current
        kinds += ["event", "reveal", "result"] if hand is not None and hand.is_over() else ["event"]
    return kinds


def test_a_played_match_arrives_in_order_with_its_seq_kinds_reveals_and_results(club, table):
    log = engine_log("nap", 2, seed=3, players=4)
    runtime = table()
    runtime.start()
    match = start_match(runtime, log)
    play(runtime, log["events"])
    got = club.wait_for_seq("t1", queued(runtime))
    assert [m["seq"] for m in got] == list(range(1, len(got) + 1))
    assert [m["kind"] for m in got] == expected_kinds(log)
    assert all((m["v"], m["club"], m["table"], m["match"]) == (1, "oak", "t1", match) for m in got)
    first = got[0]
    assert (first["game"], first["players"], first["seats"]) == ("nap", 4, ["North", "East", "South", "West"])
    assert [m["entry"] for m in got if m["kind"] == "event"] == list(range(len(log["events"])))
    reveals = [m for m in got if m["kind"] == "reveal"]
    assert [e for r in reveals for e in r["events"]] == log["events"]  # every event, in full, once its hand ended
    assert [i for r in reveals for i in r["entries"]] == list(range(len(log["events"])))
    report = referee_text(json.dumps(log)).report()
    results = [m for m in got if m["kind"] == "result"]
    assert [r["hand"] for r in results] == [1, 2] and results[-1]["score"]["score"] == report["match"]["score"]
    club.wait(lambda: club.statuses("t1") and club.statuses("t1")[-1]["hand"] == 2, "the status of hand 2")
    status = club.statuses("t1")[-1]
    assert (status["online"], status["game"], status["match"], status["paused"]) == (True, "nap", match, False)
    club.wait(lambda: outbox_rows(runtime) == 0, "the outbox to empty")  # every row acknowledged, then deleted


def hidden_cards_shown(message: dict[str, Any], played: set[str]) -> set[str]:
    """Card codes in a message that no one at the table has seen yet."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key != "call":  # a call such as Poley's "2H" (two hot) is no card
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and CARD.match(value):
            found.add(value)

    walk(message)
    return found - played


@pytest.mark.parametrize(
    ("game", "players"), [("shelem", None), ("bid-whist", None), ("poley", None), ("nap", 5), ("fifty-six", None)]
)
def test_no_hidden_card_reaches_the_broker_before_its_hand_is_revealed(club, table, game, players):
    log = engine_log(game, 1, seed=11, players=players)
    runtime = table()
    runtime.start()
    start_match(runtime, log)
    play(runtime, log["events"])
    club.wait_for_seq("t1", queued(runtime))
    club.wait(lambda: club.statuses("t1") and club.statuses("t1")[-1]["hand"] == 1, "the last status")
    revealed, played = False, set()
    for topic, message, _ in club.received:  # every message on every topic, as it arrived
        if message.get("kind") == "reveal":
            revealed = True
        if revealed:
            continue
        if message.get("kind") == "event":
            event = log["events"][message["entry"]]
            if event["type"] in ("play",) or (event["type"] == "joker-swap" and message["event"]["took_card"]):
                played.add(event.get("card") if event["type"] == "play" else event["joker"])
        assert not hidden_cards_shown(message, played), (topic, message)
    assert revealed


def test_the_outbox_keeps_everything_while_the_broker_is_away(club, table, broker):
    log = engine_log("poley", 1, seed=5)
    stop(broker.process)  # the club's reader keeps its session on the broker's disk
    runtime = table()
    runtime.start()
    start_match(runtime, log)
    play(runtime, log["events"])  # the table plays on without its broker
    assert outbox_rows(runtime) == queued(runtime) > len(log["events"])
    publisher = runtime.club.publisher
    wait_until(lambda: publisher.error and "cannot reach the broker" in publisher.error, "the publisher's first try")
    assert not publisher.connected and publisher.acknowledged == 0
    broker.start()
    got = club.wait_for_seq("t1", queued(runtime))
    assert [m["seq"] for m in got] == list(range(1, queued(runtime) + 1))
    club.wait(lambda: outbox_rows(runtime) == 0, "the outbox to empty")


def test_a_broker_restarted_mid_hand_loses_nothing_and_keeps_the_order(club, table, broker):
    log = engine_log("shelem", 1, seed=8)
    runtime = table()
    runtime.start()
    start_match(runtime, log)
    half = len(log["events"]) // 2
    play(runtime, log["events"][:half])
    club.wait_for_seq("t1", queued(runtime))
    broker.restart()
    play(runtime, log["events"][half:])
    got = club.wait_for_seq("t1", queued(runtime))
    assert [m["seq"] for m in got] == list(range(1, queued(runtime) + 1))  # each once, in order; copies are harmless
    assert got[-1]["kind"] == "result"
