"""The tests' side of the club: a subscriber reading every topic, and a table played into a runtime."""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from benchmarks.club_servers import CLUB, CLUB_PASSWORD, CLUB_USER, Broker, password_of
from controller.runtime import Runtime
from controller.settings import Settings
from engine.games import get_game
from engine.log import dumps
from simulators.table import SimulatedTable

WAIT_S = 60.0  # generous: a condition, not a speed, is what the tests check
_ids = itertools.count()


class Collector:
    """The club's reader: every message on ``croupier/<club>/#``, in the order it arrived, on a
    persistent session (a broker restart or a stop loses nothing it had taken for it)."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        self.received: list[tuple[str, dict[str, Any], bool]] = []  # topic, body, retained
        self._changed = threading.Condition()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"test-club-{next(_ids)}", clean_session=False)
        self.client.username_pw_set(CLUB_USER, CLUB_PASSWORD)
        self.client.reconnect_delay_set(0.05, 0.5)
        self.client.on_connect = self._subscribe
        self.client.on_message = self._take
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()
        self.wait(lambda: self.client.is_connected(), "the club's reader to connect")

    def _subscribe(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        client.subscribe(f"croupier/{CLUB}/#", qos=1)

    def _take(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with self._changed:
            self.received.append((message.topic, json.loads(message.payload), bool(message.retain)))
            self._changed.notify_all()

    def wait(self, condition: Any, what: str) -> None:
        """Wait for ``condition`` (looked at on every message, and every few milliseconds)."""
        deadline = time.monotonic() + WAIT_S
        with self._changed:
            while not condition():
                if time.monotonic() > deadline:
                    raise AssertionError(f"waited {WAIT_S:g} s for {what}")
                self._changed.wait(0.02)

    def events(self, table: str) -> list[dict[str, Any]]:
        with self._changed:
            return [body for topic, body, _ in self.received if topic.endswith(f"/{table}/events")]

    def statuses(self, table: str) -> list[dict[str, Any]]:
        with self._changed:
            return [body for topic, body, _ in self.received if topic.endswith(f"/{table}/status")]

    def wait_for_seq(self, table: str, count: int) -> list[dict[str, Any]]:
        """Wait until seq 1..count of every match have arrived; the first copy of each, in arrival order."""
        self.wait(lambda: len(first_copies(self.events(table))) >= count, f"{count} messages from {table}")
        return first_copies(self.events(table))

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def wait_until(condition: Any, what: str) -> None:
    """Wait for ``condition``, looking every few milliseconds."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {WAIT_S:g} s for {what}")
        time.sleep(0.02)


def first_copies(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen, out = set(), []
    for message in messages:
        key = (message["match"], message["seq"])
        if key not in seen:
            seen.add(key)
            out.append(message)
    return out


def club_settings(folder: Path, broker: Broker, table: str, **more: Any) -> Settings:
    club = {
        "broker": broker.url,
        "club": CLUB,
        "table": table,
        "password": password_of(table),
        "reconnect_max_s": 0.5,
    }
    return Settings(store={"path": folder / f"{table}.db"}, club=club | more)  # type: ignore[arg-type]


def engine_log(game: str, hands: int, seed: int, players: int | None = None) -> dict[str, Any]:
    """A match played by the engine-only simulated players: its table log."""
    table = SimulatedTable(get_game(game), players=players, seed=seed)
    table.play(hands)
    return json.loads(dumps(table.log()))


def start_match(runtime: Runtime, log: dict[str, Any]) -> int:
    return runtime.start_match(log["game"], log.get("players"), log.get("options") or {}, log.get("start")).result(
        WAIT_S
    )


def play(runtime: Runtime, events: list[dict[str, Any]]) -> None:
    for event in events:
        result = runtime.submit(event).result(WAIT_S)
        assert result.outcome.accepted, result.outcome.reason


@contextlib.contextmanager
def runtimes(start: bool = True) -> Iterator[Callable[[Settings], Runtime]]:
    """Opens tables' runtimes from their settings (started, unless ``start`` is false), and
    stops them and closes their journals at the end, whatever the test did."""
    opened: list[Runtime] = []

    def open_table(settings: Settings) -> Runtime:
        runtime = Runtime.open(settings, "token")
        opened.append(runtime)
        if start:
            runtime.start()
        return runtime

    try:
        yield open_table
    finally:
        for runtime in opened:
            runtime.stop()
            runtime.journal.close()
