"""The publisher: a thread that sends the outbox to the club's broker, in order, and the status.

It owns its MQTT connection (paho-mqtt, MQTT 5) and its own connection to the journal, and
nothing of the table's: the table only wakes it (:meth:`Publisher.nudge`, :meth:`set_status`),
which never blocks. Messages go out in the outbox's order at QoS 1, a window of them in flight;
a row is deleted only once the broker has acknowledged it (PUBACK), and a PUBACK that refuses a
message (MQTT 5's reason code: an ACL that does not let this table write) stops the sending,
never skips the message. After a lost connection the publisher starts again from the oldest row
still in the outbox, waiting longer each time (up to ``reconnect_max_s``): what the broker had
not acknowledged is sent again, which the club takes as the duplicates they are. Its last will
is a retained ``status`` with ``"online": false``, which it also publishes itself when it stops.
On each connection it also subscribes to the table's ``seating`` (the club's word on who sits
where next, retained) and hands what arrives to ``on_seating``, on its own thread.
"""

from __future__ import annotations

import json
import logging
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion

from controller.club_link.messages import offline
from controller.club_link.outbox import OutboxReader
from controller.settings import ClubSettings

log = logging.getLogger(__name__)

WINDOW = 50  # messages in flight (sent, not yet acknowledged)
KEEPALIVE_S = 30  # a broker gone silent (Wi-Fi lost) is noticed within one and a half of these
LOOP_S = 0.05  # the longest a new message waits for the thread to look at the outbox
ANSWER_S = 10.0  # how long the broker has to answer a connection
GOODBYE_S = 3.0  # how long a stopping table waits for the broker to take its last status
RECONNECT_MIN_S = 0.5


@dataclass
class _Session:
    """One connection's bookkeeping, filled in by paho's callbacks (on the publisher's thread)."""

    acl: str  # what the broker's ACL must allow, in words, for a refusal's message
    answered: bool = False
    refusal: str | None = None  # why the broker refused the connection or a message
    up: bool = False
    in_flight: dict[int, int] = field(default_factory=dict)  # MQTT message id -> outbox row id
    acknowledged: list[int] = field(default_factory=list)  # outbox row ids
    other: set[int] = field(default_factory=set)  # message ids of statuses in flight


class Publisher:
    def __init__(self, settings: ClubSettings, journal: Path, reconnect_min_s: float = RECONNECT_MIN_S) -> None:
        self.settings = settings
        self.journal = journal
        self.reconnect_min_s = min(reconnect_min_s, settings.reconnect_max_s)
        base = f"croupier/{settings.club}/{settings.table}"
        self.events_topic, self.status_topic = f"{base}/events", f"{base}/status"
        self.seating_topic = f"{base}/seating"
        self.on_seating: Callable[[bytes], None] | None = None  # told each seating message from the club
        self.connected = False
        self.error: str | None = None  # the last reason the broker could not be used, in words
        self.acknowledged = 0  # messages the broker has acknowledged since the start
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._status: dict[str, Any] | None = None
        self._status_sent: dict[str, Any] | None = None
        self._thread: threading.Thread | None = None

    # --- for the table (never blocks) -------------------------------------------------------

    def nudge(self) -> None:
        """New messages are in the outbox."""
        self._wake.set()

    def set_status(self, status: dict[str, Any]) -> None:
        """The table's status now; published (retained) as soon as the broker is there."""
        with self._lock:
            self._status = status

    # --- life -----------------------------------------------------------------------------

    def start(self) -> None:
        self._stopping.clear()
        self._wake.set()  # what a previous run left in the outbox goes first
        self._thread = threading.Thread(target=self._run, name="club-publisher", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 15.0) -> None:
        """Say goodbye (a retained offline status) and stop; the outbox keeps what was not sent."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    # --- the thread -------------------------------------------------------------------------

    def _run(self) -> None:
        reader = OutboxReader(self.journal)
        delay = self.reconnect_min_s
        try:
            while not self._stopping.is_set():
                try:
                    served = self._session(reader)
                except Exception as exc:  # the thread must outlive anything: the table never depends on it
                    if f"the publisher failed: {exc}" != self.error:
                        log.exception("the club publisher failed; it starts again")
                    self._fail(f"the publisher failed: {exc}")
                    served = False
                delay = self.reconnect_min_s if served else min(delay * 2, self.settings.reconnect_max_s)
                self._stopping.wait(delay)
        finally:
            reader.close()

    def _session(self, reader: OutboxReader) -> bool:
        """Connect, then send until the connection ends or the table stops; True if it was up."""
        session = _Session(f"the user '{self.settings.user}' write {self.events_topic} and {self.status_topic}")
        try:  # a CA file or password file gone since the start, a host that does not resolve, no route
            client = self._client(session)
            client.connect(self.settings.host, self.settings.port, keepalive=KEEPALIVE_S, clean_start=True)
        except (OSError, ValueError, ssl.SSLError) as exc:
            self._fail(f"cannot reach the broker at {self.settings.broker}: {exc}")
            return False
        if not self._answered(client, session):
            client.disconnect()
            return False
        self._up()
        client.subscribe(self.seating_topic, qos=1)
        try:
            self._send(client, session, reader)
        finally:
            self.connected = False
        if session.refusal is not None:
            self._fail(session.refusal)
        if self._stopping.is_set() and session.up:
            self._goodbye(client, session)
        client.disconnect()
        return session.refusal is None

    def _client(self, session: _Session) -> mqtt.Client:
        settings = self.settings
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"croupier-{settings.club}-{settings.table}",
            protocol=MQTTProtocolVersion.MQTTv5,
            userdata=session,
        )
        client.username_pw_set(settings.user, settings.secret())
        client.will_set(self.status_topic, json.dumps(offline(settings.club, settings.table)), qos=1, retain=True)
        client.max_inflight_messages_set(WINDOW + 2)  # ours, and a status or two
        client.connect_timeout = ANSWER_S
        if settings.tls:
            client.tls_set(
                ca_certs=str(settings.ca_file) if settings.ca_file else None,
                certfile=str(settings.cert_file) if settings.cert_file else None,
                keyfile=str(settings.key_file) if settings.key_file else None,
            )
        client.on_connect, client.on_disconnect, client.on_publish = _on_connect, _on_disconnect, _on_publish
        client.on_message = self._on_message
        return client

    def _answered(self, client: mqtt.Client, session: _Session) -> bool:
        deadline = time.monotonic() + ANSWER_S
        while not session.answered and not self._stopping.is_set() and time.monotonic() < deadline:
            if client.loop(LOOP_S) != MQTTErrorCode.MQTT_ERR_SUCCESS:
                break
        if session.up:
            return True
        why = session.refusal or "it did not answer"
        self._fail(f"the broker at {self.settings.broker} refused the table: {why}")
        return False

    def _send(self, client: mqtt.Client, session: _Session, reader: OutboxReader) -> None:
        last_id = 0  # a new connection sends again whatever is still in the outbox
        while session.up and session.refusal is None and not self._stopping.is_set():
            self._send_status(client, session)
            room = WINDOW - len(session.in_flight)
            if self._wake.is_set() and room > 0:
                self._wake.clear()
                rows = reader.after(last_id, room)
                for row in rows:
                    session.in_flight[client.publish(self.events_topic, row.body, qos=1).mid] = row.id
                    last_id = row.id
                if len(rows) == room:
                    self._wake.set()  # there is more: look again once there is room
            if client.loop(LOOP_S) != MQTTErrorCode.MQTT_ERR_SUCCESS:
                session.up = False
            if session.acknowledged:
                reader.delete(session.acknowledged)
                self.acknowledged += len(session.acknowledged)
                session.acknowledged.clear()

    def _send_status(self, client: mqtt.Client, session: _Session) -> None:
        with self._lock:
            status = self._status
        if status is not None and status is not self._status_sent:
            session.other.add(client.publish(self.status_topic, json.dumps(status), qos=1, retain=True).mid)
            self._status_sent = status

    def _goodbye(self, client: mqtt.Client, session: _Session) -> None:
        goodbye = offline(self.settings.club, self.settings.table)
        mid = client.publish(self.status_topic, json.dumps(goodbye), qos=1, retain=True).mid
        session.other.add(mid)
        deadline = time.monotonic() + GOODBYE_S
        while mid in session.other and session.up and time.monotonic() < deadline:
            client.loop(LOOP_S)

    def _on_message(self, client: mqtt.Client, session: _Session, message: mqtt.MQTTMessage) -> None:
        if message.topic != self.seating_topic or self.on_seating is None:
            return
        try:
            self.on_seating(bytes(message.payload))
        except Exception:  # the publisher goes on sending whatever the club says
            log.exception("the club's seating message could not be taken")

    def _up(self) -> None:
        if self.error is not None or not self.connected:
            log.info("publishing to the club %s at %s", self.settings.club, self.settings.broker)
        self.connected, self.error = True, None
        self._status_sent = None  # a new connection publishes the status again

    def _fail(self, why: str) -> None:
        if why != self.error:
            log.warning("the club's broker cannot be used (the table plays on; its outbox keeps everything): %s", why)
        self.error = why


# --- paho's callbacks (called inside client.loop(), on the publisher's thread) ---------------


def _on_connect(client: mqtt.Client, session: _Session, flags: Any, reason: Any, properties: Any) -> None:
    session.answered = True
    if reason.is_failure:
        session.refusal = f"{reason} (check [club] username and password, and that the broker knows this table)"
    else:
        session.up = True


def _on_disconnect(client: mqtt.Client, session: _Session, flags: Any, reason: Any, properties: Any) -> None:
    session.answered = True
    if reason.is_failure and not session.up and session.refusal is None:
        session.refusal = str(reason)
    session.up = False


def _on_publish(client: mqtt.Client, session: _Session, mid: int, reason: Any, properties: Any) -> None:
    row = session.in_flight.pop(mid, None)
    session.other.discard(mid)
    if reason.is_failure:
        what = "a message" if row is not None else "the table's status"
        session.refusal = f"the broker refused {what}: {reason} (its ACL must let {session.acl})"
    elif row is not None:
        session.acknowledged.append(row)
