"""The broker's side of security, as a table meets it: the ACL, passwords and TLS (docs/club.md)."""

from __future__ import annotations

import json

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from benchmarks.club_servers import CLUB, password_of
from tests.club_link.club import Collector, club_settings, engine_log, play, runtimes, start_match, wait_until


@pytest.fixture
def club(broker):
    collector = Collector(broker)
    yield collector
    collector.close()


@pytest.fixture
def opened():
    with runtimes() as open_table:
        yield open_table


def test_a_table_cannot_publish_as_another_table(broker, club):
    forger = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="forger", protocol=MQTTProtocolVersion.MQTTv5)
    forger.username_pw_set("t1", password_of("t1"))
    answers: dict[int, object] = {}
    forger.on_publish = lambda client, userdata, mid, reason, properties: answers.__setitem__(mid, reason)
    forger.connect("127.0.0.1", broker.port)
    forger.loop_start()
    try:
        forged = forger.publish(f"croupier/{CLUB}/t2/events", json.dumps({"forged": True}), qos=1).mid
        own = forger.publish(f"croupier/{CLUB}/t1/events", json.dumps({"own": True}), qos=1).mid
        wait_until(lambda: forged in answers and own in answers, "the broker's answers")
        club.wait(lambda: club.events("t1"), "t1's own message")  # sent after the forged one, on one connection
    finally:
        forger.disconnect()
        forger.loop_stop()
    assert answers[forged].is_failure and "authorized" in str(answers[forged]).lower()  # MQTT 5 says why
    assert not answers[own].is_failure
    assert club.events("t2") == [] and all(topic.split("/")[2] != "t2" for topic, _, _ in club.received)


def test_a_table_whose_acl_does_not_match_keeps_its_messages_and_says_why(tmp_path, broker, club, opened):
    settings = club_settings(tmp_path, broker, "t2", username="t1", password=password_of("t1"))
    runtime = opened(settings)  # t1's credentials, t2's topics: the broker takes the connection, not the messages
    start_match(runtime, engine_log("nap", 1, seed=2, players=3))
    publisher = runtime.club.publisher
    wait_until(lambda: publisher.error and "the broker refused" in publisher.error, "the refusal")
    acl = "its ACL must let the user 't1' write croupier/oak/t2/events and croupier/oak/t2/status"
    assert f"Not authorized ({acl})" in publisher.error
    assert publisher.acknowledged == 0
    assert runtime.journal._db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0] == 1  # kept, to be sent later
    assert club.events("t2") == []


def test_a_wrong_password_is_refused_and_the_table_plays_on(tmp_path, broker, club, opened):
    runtime = opened(club_settings(tmp_path, broker, "t1", password="not-the-password"))
    log = engine_log("poley", 1, seed=4)
    start_match(runtime, log)
    play(runtime, log["events"])
    publisher = runtime.club.publisher
    wait_until(lambda: publisher.error and "refused the table" in publisher.error, "the refusal")
    assert "password" in publisher.error and not publisher.connected
    assert runtime.journal._db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0] > len(log["events"])
    assert club.events("t1") == [] and club.statuses("t1") == []


def test_a_table_publishes_over_tls_to_a_broker_whose_ca_it_is_given(tmp_path, tls_broker, opened):
    assert tls_broker.url.startswith("mqtts://")
    runtime = opened(club_settings(tmp_path, tls_broker, "t1", ca_file=str(tls_broker.ca)))
    start_match(runtime, engine_log("nap", 1, seed=2, players=3))
    publisher = runtime.club.publisher
    wait_until(lambda: publisher.acknowledged >= 1, "the match message, acknowledged over TLS")
    stranger = opened(club_settings(tmp_path, tls_broker, "t2"))  # no CA given: the system's do not know it
    wait_until(lambda: stranger.club.publisher.error is not None, "the TLS refusal")
    assert "certificate verify failed" in stranger.club.publisher.error
