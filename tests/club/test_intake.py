"""The intake, through a real Mosquitto into a real PostgreSQL: every message once, whatever the
broker delivers twice or out of order; a message that breaks the contract refused with its
reason; the broker's ACL keeps each table to its own name."""

from __future__ import annotations

import json
import random
import threading

import paho.mqtt.client as mqtt
import psycopg
import pytest

from benchmarks.club_servers import CLUB
from club import store
from club.db import migrate
from simulators.club_messages import play, status
from tests.club.mqtt import connect, intake, publish, settings, wait_until


def stored(dsn: str) -> dict[tuple[str, int, int], dict]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute("SELECT table_name, match, seq, body FROM messages").fetchall()
    return {(t, m, s): body for t, m, s, body in rows}


def marker(table: str) -> bytes:
    """A last message: the intake stores a table's messages in the order they came, so once this
    one is stored, everything the table sent before it has been handled."""
    return json.dumps(play(CLUB, table, "nap", seed=1, hands=1, match=999).messages[0]).encode()


def test_every_message_is_stored_once_whatever_comes_twice_or_out_of_order(broker, database, tmp_path):
    migrate(database)
    matches = [play(CLUB, f"t{i}", game, seed=i, hands=2) for i, game in enumerate(["poley", "shelem", "nap"], 1)]
    rng = random.Random(5)
    markers = {m.table: marker(m.table) for m in matches}
    with intake(settings(broker, database, tmp_path)):
        threads = []
        for m in matches:
            payloads = m.payloads()
            sent = payloads + rng.sample(payloads, len(payloads) // 2)  # half of them twice
            rng.shuffle(sent)
            threads.append(threading.Thread(target=publish, args=(broker, m.table, [*sent, markers[m.table]])))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wait_until(lambda: all((m.table, 999, 1) in stored(database) for m in matches), what="every marker")
    found = stored(database)
    expected = {(m.table, m.match, msg["seq"]): msg for m in matches for msg in m.messages}
    expected.update({(m.table, 999, 1): json.loads(markers[m.table]) for m in matches})
    assert found == expected  # each exactly once, and as it was sent
    with psycopg.connect(database) as conn:
        assert store.rejected(conn) == []  # a message again is no conflict


def test_a_message_that_breaks_the_contract_is_refused_with_its_reason_and_the_intake_goes_on(
    broker, database, tmp_path
):
    migrate(database)
    good = play(CLUB, "t1", "poley", seed=2, hands=1).messages
    event = next(m for m in good if m["kind"] == "event" and m["event"]["type"] == "deal")
    bad = [
        b"not json",
        json.dumps({**good[0], "v": 2}).encode(),
        json.dumps({**good[0], "table": "t2"}).encode(),  # t1 naming another table
        json.dumps({**event, "event": {**event["event"], "hands": [["AS"]]}}).encode(),  # a hidden hand, public
        json.dumps({**good[0], "seq": 0}).encode(),
        json.dumps({**good[0], "at": "2026-12-02T10:00:00"}).encode(),  # no time zone
        json.dumps({**good[0], "seats": ["an\u0000na", "ben", "carl", "dora"]}).encode(),  # PostgreSQL keeps no NUL
    ]
    with intake(settings(broker, database, tmp_path)):
        publish(broker, "t1", [*bad, json.dumps(good[0]).encode()])
        wait_until(lambda: ("t1", 1, 1) in stored(database), what="the good message")
    with psycopg.connect(database) as conn:
        reasons = [r["reason"] for r in store.rejected(conn)]
    assert len(reasons) == len(bad)
    said = " | ".join(reasons)
    for words in [
        "not UTF-8 JSON",
        "v:",
        "naming oak/t2 on oak/t1",
        "hidden until its hand's reveal",
        "seq",
        "timezone",
        "holds a NUL character",
    ]:
        assert words in said, words
    assert list(stored(database)) == [("t1", 1, 1)]


def test_a_table_cannot_publish_as_another_and_a_wrong_password_is_refused(broker, database, tmp_path):
    migrate(database)
    theirs = play(CLUB, "t2", "nap", seed=3, hands=1).payloads()[:1]
    with intake(settings(broker, database, tmp_path)):
        publish(broker, "t1", theirs, topic=f"croupier/{CLUB}/t2/events")  # the broker drops it: not t1's topic
        publish(broker, "t1", [marker("t1")])
        wait_until(lambda: ("t1", 999, 1) in stored(database), what="t1's own message")
    assert [key for key in stored(database) if key[0] == "t2"] == []
    refused = threading.Event()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-wrong", protocol=mqtt.MQTTv311)
    client.username_pw_set("t1", "not-the-password")
    client.on_connect = lambda c, u, f, reason, p: reason.is_failure and refused.set()
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        assert refused.wait(30), "the broker took a wrong password"
    finally:
        client.loop_stop()


def test_the_status_is_kept_merged_and_an_offline_will_keeps_the_last_game(broker, database, tmp_path):
    migrate(database)
    with intake(settings(broker, database, tmp_path)):
        client = connect(broker, "t4")
        client.publish(f"croupier/{CLUB}/t4/status", json.dumps(status(CLUB, "t4", to_act="anna")), qos=1, retain=True)
        client.publish(
            f"croupier/{CLUB}/t4/status",
            json.dumps({"v": 1, "club": CLUB, "table": "t4", "online": False}),
            qos=1,
            retain=True,
        ).wait_for_publish(30)
        client.disconnect()
        client.loop_stop()

        def offline() -> bool:
            with psycopg.connect(database) as conn:
                return store.statuses(conn, CLUB).get("t4", {}).get("online") is False

        wait_until(offline, what="t4 offline")
    with psycopg.connect(database) as conn:
        body = store.statuses(conn, CLUB)["t4"]
    assert body["game"] == "nap" and body["to_act"] == "anna" and body["online"] is False


@pytest.mark.parametrize("topic", ["croupier/elm/t1/events"])
def test_a_topic_of_another_club_is_refused(topic):
    from club.intake import classify

    record = classify(CLUB, topic, b"{}")
    assert isinstance(record, store.Refused) and "not this club's" in record.reason


def test_the_intake_speaks_tls_to_a_broker_whose_ca_it_is_given(tls_broker, database, tmp_path):
    migrate(database)
    m = play(CLUB, "t6", "poley", seed=6, hands=1)
    assert tls_broker.url.startswith("mqtts://")
    with intake(settings(tls_broker, database, tmp_path)):
        publish(tls_broker, "t6", m.payloads())
        wait_until(lambda: len(stored(database)) == len(m.messages), what="every message, over TLS")


def test_a_broker_restarted_loses_nothing_it_held_for_the_club(broker, database, tmp_path):
    migrate(database)
    first, second, third = (play(CLUB, "t7", "shelem", seed=7, hands=1, match=n) for n in (1, 2, 3))
    config = settings(broker, database, tmp_path)
    with intake(config) as running:
        publish(broker, "t7", first.payloads())
        wait_until(lambda: len(stored(database)) == len(first.messages), what="the first match")
        broker.restart()
        wait_until(running.subscribed.is_set, what="the intake back on the restarted broker")
        publish(broker, "t7", second.payloads())
        wait_until(lambda: len(stored(database)) == len(first.messages) + len(second.messages), what="match 2")
    publish(broker, "t7", third.payloads())  # the club service is down: the broker queues them for it ...
    broker.restart()  # ... and keeps them through its own restart
    with intake(config):
        wait_until(lambda: len(stored(database)) == sum(len(m.messages) for m in (first, second, third)))
    assert sorted(stored(database)) == sorted(
        ("t7", m.match, msg["seq"]) for m in (first, second, third) for msg in m.messages
    )


def test_another_message_under_a_key_already_held_is_refused_and_the_first_kept(broker, database, tmp_path):
    migrate(database)
    old, new = play(CLUB, "t8", "nap", seed=8, hands=1), play(CLUB, "t8", "poley", seed=9, hands=1)
    with intake(settings(broker, database, tmp_path)):
        publish(broker, "t8", old.payloads())
        wait_until(lambda: len(stored(database)) == len(old.messages), what="the first journal's match")
        publish(broker, "t8", [*new.payloads()[:3], marker("t8")])  # a new journal's match 1, seq 1 to 3
        wait_until(lambda: ("t8", 999, 1) in stored(database), what="the marker")
    kept = stored(database)
    assert all(kept[("t8", 1, msg["seq"])] == msg for msg in old.messages)
    with psycopg.connect(database) as conn:
        reasons = [r["reason"] for r in store.rejected(conn)]
    assert len(reasons) == 3 and all("sent another message as match 1 seq" in r for r in reasons)


def test_a_message_the_database_refuses_is_refused_alone_and_the_rest_stored(broker, database, tmp_path):
    migrate(database)
    good = play(CLUB, "t9", "nap", seed=9, hands=1)
    overflowing = {**good.messages[1], "extra": 1}  # a field a later version might add, too large for a float
    payloads = good.payloads()
    payloads[1] = json.dumps(overflowing).replace('"extra": 1', '"extra": 1e400').encode()
    with intake(settings(broker, database, tmp_path)):
        publish(broker, "t9", [*payloads, marker("t9")])
        wait_until(lambda: ("t9", 999, 1) in stored(database), what="the marker")
    assert sorted(stored(database)) == sorted(
        [("t9", 1, n) for n in range(1, len(payloads) + 1) if n != 2] + [("t9", 999, 1)]
    )
    with psycopg.connect(database) as conn:
        assert [r["reason"] for r in store.rejected(conn)] == [
            "the club's database refused it: invalid input syntax for type json"
        ]
