"""Only the club service reads the tables' topics: a table's user that subscribes to every topic
of the club gets nothing, the statuses and messages of another table included, while the club's
intake stores them (Mosquitto with the ACL of docs/club.md: tables write their own topics only)."""

from __future__ import annotations

import json
import threading

import psycopg

from benchmarks.club_servers import CLUB
from club.db import migrate
from simulators.club_messages import play, status
from tests.club.mqtt import connect, intake, publish, settings, wait_until


def test_a_table_reads_nothing_of_the_club_not_even_another_tables_messages(broker, database, tmp_path):
    migrate(database)
    match = play(CLUB, "t2", "bid-whist", seed=9, hands=1)
    got: list[str] = []
    subscribed = threading.Event()
    t1 = connect(broker, "t1")
    t1.on_message = lambda client, userdata, message: got.append(message.topic)
    t1.on_subscribe = lambda client, userdata, mid, reasons, properties: subscribed.set()
    try:
        t1.subscribe(f"croupier/{CLUB}/#", qos=1)
        assert subscribed.wait(30)
        with intake(settings(broker, database, tmp_path)):
            publish(broker, "t2", [json.dumps(status(CLUB, "t2")).encode()], topic=f"croupier/{CLUB}/t2/status")
            publish(broker, "t2", match.payloads())
            wait_until(lambda: stored(database) == len(match.messages), what="t2's messages in the club's record")
        assert got == []  # the broker gave the club every message, and t1 none
    finally:
        t1.disconnect()
        t1.loop_stop()


def stored(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM messages WHERE table_name = 't2'").fetchone()
    return int(row[0]) if row else 0
