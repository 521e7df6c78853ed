"""Publishing as a table would, straight to the real broker, and running the club's intake."""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import paho.mqtt.client as mqtt

from benchmarks.club_servers import CLUB, CLUB_PASSWORD, CLUB_USER, Broker, password_of
from club.intake import Intake
from club.settings import ClubSettings

_ids = itertools.count(1)


def connect(broker: Broker, user: str, password: str | None = None) -> mqtt.Client:
    client = mqtt.Client(
        mqtt.CallbackAPIVersion.VERSION2, client_id=f"test-{user}-{next(_ids)}", protocol=mqtt.MQTTv311
    )
    client.username_pw_set(user, password if password is not None else password_of(user))
    if broker.ca is not None:
        client.tls_set(ca_certs=str(broker.ca))
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    return client


def publish(broker: Broker, table: str, payloads: Sequence[bytes], topic: str | None = None) -> None:
    """Publish with QoS 1 as the table's user, in order, and wait for the broker's every ack."""
    client = connect(broker, table)
    try:
        topic = topic or f"croupier/{CLUB}/{table}/events"
        sent = [client.publish(topic, payload, qos=1) for payload in payloads]
        for info in sent:
            info.wait_for_publish(timeout=60)
            assert info.is_published()
    finally:
        client.disconnect()
        client.loop_stop()


def settings(broker: Broker, database: str, tmp: Path, **more: object) -> ClubSettings:
    fields = dict(club=CLUB, broker=broker.url, username=CLUB_USER, password=CLUB_PASSWORD, database=database)
    if broker.ca is not None:
        fields["broker_ca"] = broker.ca
    return ClubSettings(**{**fields, "token_file": tmp / "club-token", **more})


@contextlib.contextmanager
def intake(config: ClubSettings) -> Iterator[Intake]:
    """The club's intake, running and subscribed."""
    running = Intake(config)
    running.start()
    try:
        assert wait_until(running.subscribed.is_set, what="the intake to subscribe")
        yield running
    finally:
        running.stop()


def wait_until(condition: Callable[[], bool], timeout_s: float = 60.0, what: str = "a condition") -> bool:
    """Poll until the condition holds; fail, naming it, after a generous time (never a timed check)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    raise AssertionError(f"waited {timeout_s:g} s for {what}")
