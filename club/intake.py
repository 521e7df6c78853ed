"""The intake: every table's messages from the broker into PostgreSQL, each exactly once.

paho-mqtt's network thread only queues what arrives; one writer thread stores a batch in one
transaction and only then acknowledges each of its messages to the broker (manual acks on a
persistent session with a fixed client id). A service killed at any moment therefore loses
nothing: the broker sends again whatever was not acknowledged, and the (club, table, match, seq)
key makes a second copy change nothing. A message that breaks the contract is stored apart with
its reason and acknowledged too: it would be just as wrong the next time."""

from __future__ import annotations

import contextlib
import logging
import queue
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import paho.mqtt.client as mqtt
import psycopg

from club import store
from club.db import DatabaseError, connect
from club.messages import BadMessage, parse_events_message, parse_status, parse_topic
from club.settings import ClubSettings

log = logging.getLogger(__name__)

BATCH = 500  # messages written in one transaction at most
RETRY_S = 2.0  # wait between tries when the database is unreachable


@dataclass(frozen=True, slots=True)
class Received:
    topic: str
    payload: bytes
    mid: int
    qos: int


def classify(club: str, topic: str, payload: bytes) -> store.Record:
    """What a message is to the club: a message to store, a status, or refused with the reason."""
    try:
        where = parse_topic(topic, club)
        if where.kind == "status":
            return store.Status(where.table, parse_status(where, payload))
        message, body = parse_events_message(where, payload)
    except BadMessage as exc:
        return store.Refused(topic, payload, str(exc))
    except Exception as exc:  # a message no check foresaw must not stop the club's intake
        log.exception("a message on %s could not be read", topic)
        return store.Refused(topic, payload, f"could not be read: {type(exc).__name__}: {exc}")
    hand = getattr(message, "hand", None)
    return store.Accepted(message.table, message.match, message.seq, message.kind, hand, message.at, body)


Changed = dict[str, tuple[int, int] | None]  # table -> (match, seq) of its latest message stored, or None


def changed(records: list[store.Record]) -> Changed:
    """The tables a stored batch changed, each with its latest message's (match, seq), if any."""
    out: Changed = {}
    for record in records:
        if isinstance(record, store.Accepted):
            key = (record.match, record.seq)
            known = out.get(record.table)
            out[record.table] = key if known is None else max(known, key)
        elif isinstance(record, store.Status):
            out.setdefault(record.table, None)
    return out


class Intake:
    """Subscribes to every table of the club and stores what arrives (see the module's text)."""

    def __init__(self, settings: ClubSettings, on_stored: Callable[[Changed], None] | None = None) -> None:
        self.settings = settings
        self.on_stored = on_stored  # told which tables each committed batch changed (the page's live updates)
        self.inbox: queue.Queue[Received] = queue.Queue()
        self.subscribed = threading.Event()
        self._stopping = threading.Event()
        self._client = self._make_client()
        self._writer = threading.Thread(target=self._write_forever, name="club-intake-writer", daemon=True)

    @property
    def topics(self) -> list[tuple[str, int]]:
        club = self.settings.club
        return [(f"croupier/{club}/+/events", 1), (f"croupier/{club}/+/status", 1)]

    def start(self) -> None:
        self._writer.start()
        self._client.connect_async(self.settings.broker_host, self.settings.broker_port, keepalive=30)
        self._client.loop_start()

    def stop(self) -> None:
        self._stopping.set()
        self._client.disconnect()
        self._client.loop_stop()
        self._writer.join(timeout=10)

    # --- the broker's side ----------------------------------------------------------------------

    def _make_client(self) -> mqtt.Client:
        client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=self.settings.session_id,
            clean_session=False,  # the broker keeps the subscription and every unacknowledged message
            protocol=mqtt.MQTTv311,
            manual_ack=True,
        )
        client.username_pw_set(self.settings.username, self.settings.broker_password())
        if self.settings.tls:
            client.tls_set(
                ca_certs=str(self.settings.broker_ca) if self.settings.broker_ca else None,
                tls_version=ssl.PROTOCOL_TLS_CLIENT,
            )
        client.reconnect_delay_set(min_delay=1, max_delay=30)
        client.on_connect = self._on_connect
        client.on_subscribe = self._on_subscribe
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        return client

    def _on_connect(self, client: mqtt.Client, userdata: object, flags: object, reason: object, props: object) -> None:
        if getattr(reason, "is_failure", False):
            log.error("the broker refused the club service: %s", reason)
            return
        log.info("connected to the broker %s", self.settings.broker)
        client.subscribe(self.topics)

    def _on_subscribe(self, client: mqtt.Client, userdata: object, mid: int, reasons: list, props: object) -> None:  # type: ignore[type-arg]
        refused = [r for r in reasons if getattr(r, "is_failure", False)]
        if refused:
            log.error("the broker refused the club's subscription (its ACL?): %s", refused)
            return
        self.subscribed.set()

    def _on_disconnect(
        self, client: mqtt.Client, userdata: object, flags: object, reason: object, props: object
    ) -> None:
        self.subscribed.clear()
        if not self._stopping.is_set():
            log.warning("lost the broker (%s); reconnecting", reason)

    def _on_message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        self.inbox.put(Received(message.topic, bytes(message.payload), message.mid, message.qos))

    # --- the database's side --------------------------------------------------------------------

    def _write_forever(self) -> None:
        conn: psycopg.Connection | None = None
        while not self._stopping.is_set():
            batch = self._next_batch()
            while batch and not self._stopping.is_set():
                try:
                    conn = conn if conn is not None and not conn.closed else connect(self.settings.database)
                    self._store(conn, batch)
                    batch = []
                except (DatabaseError, psycopg.Error) as exc:  # unacknowledged: the broker keeps them
                    log.error("cannot store %d messages (retrying): %s", len(batch), exc)
                    conn = _closed(conn)
                    self._stopping.wait(RETRY_S)
        _closed(conn)

    def _next_batch(self) -> list[Received]:
        try:
            batch = [self.inbox.get(timeout=0.5)]
        except queue.Empty:
            return []
        while len(batch) < BATCH:
            try:
                batch.append(self.inbox.get_nowait())
            except queue.Empty:
                break
        return batch

    def _store(self, conn: psycopg.Connection, batch: list[Received]) -> None:
        records = [classify(self.settings.club, r.topic, r.payload) for r in batch]
        for record in records:
            if isinstance(record, store.Refused):
                log.warning("refused a message on %s: %s", record.topic, record.reason)
        try:
            new = store.write(conn, self.settings.club, records)
        except psycopg.DataError:  # a value the database refuses: store the rest, refuse that one
            new = self._one_by_one(conn, batch, records)
        for received in batch:  # only now, with the batch committed
            if received.qos > 0:
                self._client.ack(received.mid, received.qos)
        if self.on_stored is not None and (new or any(isinstance(r, store.Status) for r in records)):
            self.on_stored(changed(records))

    def _one_by_one(self, conn: psycopg.Connection, batch: list[Received], records: list[store.Record]) -> int:
        new = 0
        for received, record in zip(batch, records, strict=True):
            try:
                new += store.write(conn, self.settings.club, [record])
            except psycopg.DataError as exc:
                reason = f"the club's database refused it: {str(exc).strip().splitlines()[0]}"
                log.warning("refused a message on %s: %s", received.topic, reason)
                store.write(conn, self.settings.club, [store.Refused(received.topic, received.payload, reason)])
        return new


def _closed(conn: psycopg.Connection | None) -> None:
    if conn is not None:
        with contextlib.suppress(psycopg.Error):
            conn.close()
    return None


def wait_subscribed(intake: Intake, timeout_s: float) -> bool:
    """Whether the intake subscribed within the time (for the command's first line)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if intake.subscribed.wait(0.1):
            return True
    return False
