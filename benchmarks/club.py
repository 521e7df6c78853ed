"""The club service's intake, measured on this machine with a real Mosquitto and PostgreSQL
(started in a temporary folder, as the tests start them) and N simulated tables, each its own MQTT
client logged in under its own name:

- **throughput**: every table publishes its matches' messages as fast as the broker takes them;
  messages a second from the first publish to the last row committed in PostgreSQL;
- **delay at a live pace**: every table publishes one message a second (a real table journals an
  event every few seconds), each stamped when it is sent; the delay to its row in PostgreSQL
  (the batch's transaction time, ``received_at``), p50 and p95.

    python -m benchmarks.club [--tables 50] [--hands 2] [--live-s 20] [--json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import paho.mqtt.client as mqtt
import psycopg

from benchmarks import club_servers as servers
from club.db import migrate
from club.intake import Intake
from club.settings import ClubSettings
from simulators.club_messages import PublishedMatch, play

GAMES = ["poley", "shelem", "fifty-six", "bid-whist", "nap"]


def _client(broker: servers.Broker, table: str) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bench-{table}", protocol=mqtt.MQTTv311)
    client.username_pw_set(table, servers.password_of(table))
    client.max_inflight_messages_set(100)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    return client


def _send(client: mqtt.Client, topic: str, messages: list[dict], pace_s: float = 0.0) -> None:
    sent = []
    for message in messages:
        if pace_s:
            time.sleep(pace_s)
            message = {**message, "at": datetime.now(UTC).isoformat()}
        sent.append(client.publish(topic, json.dumps(message), qos=1))
    for info in sent:
        info.wait_for_publish(120)


def _all_at_once(clients: dict[str, mqtt.Client], matches: list[PublishedMatch], pace_s: float = 0.0) -> None:
    threads = [threading.Thread(target=_send, args=(clients[m.table], m.topic, m.messages, pace_s)) for m in matches]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _count(dsn: str, match: int) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM messages WHERE match = %s", (match,)).fetchone()
    return int(row[0]) if row else 0


def _wait_count(dsn: str, match: int, total: int, timeout_s: float = 600) -> None:
    deadline = time.monotonic() + timeout_s
    while _count(dsn, match) < total:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {_count(dsn, match)} of {total} messages stored after {timeout_s:g} s")
        time.sleep(0.02)


def _bytes_per_message(dsn: str) -> float:
    """The messages table's size on disk (its indexes and TOAST too) over its rows."""
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT pg_total_relation_size('messages')::float / count(*) FROM messages").fetchone()
    return float(row[0]) if row else 0.0


def _delays_ms(dsn: str, match: int) -> list[float]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT extract(epoch FROM received_at - at) * 1000 FROM messages WHERE match = %s", (match,)
        ).fetchall()
    return sorted(float(r[0]) for r in rows)


@contextmanager
def _servers(tables: list[str]) -> Iterator[tuple[str, servers.Broker]]:
    pg_folder, mqtt_folder = (
        Path(tempfile.mkdtemp(prefix="croupier-pg-")),
        Path(tempfile.mkdtemp(prefix="croupier-mqtt-")),
    )
    try:
        with servers.postgres(pg_folder) as pg, servers.mosquitto(mqtt_folder, tables) as broker:
            with psycopg.connect(pg.dsn(), autocommit=True) as conn:
                conn.execute("CREATE DATABASE bench")
            yield pg.dsn("bench"), broker
    finally:
        shutil.rmtree(pg_folder, ignore_errors=True)
        shutil.rmtree(mqtt_folder, ignore_errors=True)


def measure(tables: int, hands: int, live_s: float) -> dict[str, float]:
    names = [f"t{i}" for i in range(1, tables + 1)]
    with _servers(names) as (dsn, broker), tempfile.TemporaryDirectory() as tmp:
        migrate(dsn)
        settings = ClubSettings(
            club=servers.CLUB, broker=broker.url, username=servers.CLUB_USER, password=servers.CLUB_PASSWORD,
            database=dsn, token_file=Path(tmp) / "token",
        )  # fmt: skip
        intake = Intake(settings)
        intake.start()
        clients = {name: _client(broker, name) for name in names}
        try:
            if not intake.subscribed.wait(60):
                raise RuntimeError("the intake did not subscribe")
            burst = [play(servers.CLUB, n, GAMES[i % 5], seed=i, hands=hands) for i, n in enumerate(names)]
            total = sum(len(m.messages) for m in burst)
            start = time.monotonic()
            _all_at_once(clients, burst)
            _wait_count(dsn, 1, total)
            burst_s = time.monotonic() - start
            live = [play(servers.CLUB, n, GAMES[i % 5], seed=1000 + i, hands=4, match=2) for i, n in enumerate(names)]
            for m in live:
                m.messages = m.messages[: int(live_s)]
            _all_at_once(clients, live, pace_s=1.0)
            _wait_count(dsn, 2, sum(len(m.messages) for m in live))
            delays = _delays_ms(dsn, 2)
            size = _bytes_per_message(dsn)
        finally:
            for client in clients.values():
                client.disconnect()
                client.loop_stop()
            intake.stop()
    return {
        "tables": tables,
        "messages": total,
        "messages_per_s": total / burst_s,
        "messages_per_hand": total / sum(len({msg.get("hand") for msg in m.messages} - {None}) for m in burst),
        "bytes_per_message": size,
        "live_messages": len(delays),
        "delay_p50_ms": statistics.median(delays),
        "delay_p95_ms": delays[int(0.95 * (len(delays) - 1))],
        "delay_max_ms": delays[-1],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The club service's intake: throughput and delay.")
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--hands", type=int, default=2, help="hands per table in the throughput run")
    parser.add_argument("--live-s", type=float, default=20, help="seconds of the live-pace run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = measure(args.tables, args.hands, args.live_s)
    if args.json:
        sys.stdout.write(json.dumps(figures) + "\n")
        return
    sys.stdout.write(
        f"{figures['tables']} tables: {figures['messages']} messages into PostgreSQL at "
        f"{figures['messages_per_s']:.0f} messages/s ({figures['messages_per_hand']:.0f} messages a hand; "
        f"{figures['bytes_per_message']:.0f} bytes a message on disk, indexes included)\n"
        f"live pace (one message a second a table): {figures['live_messages']} messages, delay to the row "
        f"p50 {figures['delay_p50_ms']:.0f} ms, p95 {figures['delay_p95_ms']:.0f} ms, "
        f"max {figures['delay_max_ms']:.0f} ms\n"
    )


if __name__ == "__main__":
    main()
