"""Only the club service reads the tables' topics: a table's user that subscribes to every topic
of the club gets nothing, the statuses and messages of another table included, while the club's
intake stores them (Mosquitto with the ACL of docs/club.md: tables write their own topics only).
A table reads one topic only: its own seating, which the club writes and the table cannot."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator

import psycopg

from benchmarks.club_servers import CLUB, CLUB_PASSWORD, CLUB_USER, Broker
from club.db import migrate
from club.service import Club, RoundRequest
from simulators.club_messages import play, status
from tests.club.mqtt import connect, intake, publish, settings, wait_until


def test_a_table_reads_nothing_of_the_club_not_even_another_tables_messages(broker, database, tmp_path):
    migrate(database)
    match = play(CLUB, "t2", "bid-whist", seed=9, hands=1)
    with listening(broker, "t1", [(f"croupier/{CLUB}/#", 1)]) as got, intake(settings(broker, database, tmp_path)):
        publish(broker, "t2", [json.dumps(status(CLUB, "t2")).encode()], topic=f"croupier/{CLUB}/t2/status")
        publish(broker, "t2", match.payloads())
        wait_until(lambda: stored(database) == len(match.messages), what="t2's messages in the club's record")
    assert got == []  # the broker gave the club every message, and t1 none


@contextlib.contextmanager
def listening(broker: Broker, table: str, topics: list[tuple[str, int]]) -> Iterator[list[str]]:
    """A table's user subscribed to ``topics`` (once the broker has said so); the topics of the
    messages it is given, as they come."""
    got: list[str] = []
    subscribed = threading.Event()
    client = connect(broker, table)
    client.on_message = lambda c, userdata, message: got.append(message.topic)
    client.on_subscribe = lambda c, userdata, mid, reasons, properties: subscribed.set()
    try:
        client.subscribe(topics)
        assert subscribed.wait(30)
        yield got
    finally:
        client.disconnect()
        client.loop_stop()


def stored(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM messages WHERE table_name = 't2'").fetchone()
    return int(row[0]) if row else 0


def test_a_table_reads_only_its_own_seating_and_cannot_write_it(broker, database, tmp_path):
    migrate(database)
    club = Club(settings(broker, database, tmp_path))
    seatings = [(f"croupier/{CLUB}/t2/seating", 1), (f"croupier/{CLUB}/+/seating", 1)]
    try:
        with listening(broker, "t1", seatings) as got:
            club.start_round(RoundRequest("rotation", ["A", "B", "C", "D"], ["t2", "t1"]))  # t2's seating goes first
            wait_until(lambda: f"croupier/{CLUB}/t1/seating" in got, what="t1's own seating")
    finally:
        club.close()
    assert got == [f"croupier/{CLUB}/t1/seating"]  # t2's seating, published before it, never reached t1
    # A table that writes its own seating is refused by the ACL: the club's message stays.
    forger = connect(broker, "t1")
    try:
        forger.publish(f"croupier/{CLUB}/t1/seating", b'{"v": 1, "forged": true}', qos=1, retain=True).wait_for_publish(
            60
        )
    finally:
        forger.disconnect()
        forger.loop_stop()
    assert retained(broker, "t1")["round"] == 1


def retained(broker, table: str) -> dict:
    """The retained seating of ``table``, as the club's user reads it."""
    got: list[dict] = []
    client = connect(broker, CLUB_USER, CLUB_PASSWORD)
    client.on_message = lambda c, userdata, message: got.append(json.loads(message.payload))
    try:
        client.subscribe(f"croupier/{CLUB}/{table}/seating", qos=1)
        wait_until(lambda: bool(got), what=f"{table}'s retained seating")
    finally:
        client.disconnect()
        client.loop_stop()
    return got[-1]
