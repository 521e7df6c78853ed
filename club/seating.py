"""Telling each table who sits where next: a round's seating, retained on the broker.

When a round starts the club publishes, for each table of the round, a retained message on
``croupier/<club>/<table>/seating`` (QoS 1): the round and who sits in each seat. A table of the
previous round that has no seats in this one gets a cleared message (``"round": null``), so no
table shows a seating that is no longer true. Retained, a table that connects later (or again)
gets its seating at once. docs/club-protocol.md gives the message.

Publishing happens on a thread of its own, one round after the other: starting a round never
waits for the broker, and a broker that cannot be reached is logged, not the round refused
(``GET /api/tables/<table>/next-seating`` says the same from the database)."""

from __future__ import annotations

import itertools
import json
import logging
import ssl
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from club import rounds
from club.settings import ClubSettings
from club.store import StoredRound

log = logging.getLogger(__name__)

VERSION = 1
ACK_S = 30.0  # how long the broker has to acknowledge each table's seating
_ids = itertools.count(1)


class SeatingNotPublished(RuntimeError):
    """The broker could not be reached or did not take a seating; the message says why."""


def topic(club: str, table: str) -> str:
    return f"croupier/{club}/{table}/seating"


def seats(round_: StoredRound, table: str) -> list[dict[str, Any]]:
    """Who sits in each seat of ``table`` in this round: seat, side (the team or pair) and entrant."""
    group = round_.seating.get(table, [])
    placed = [
        {"seat": seat, "side": side, "entrant": entrant}
        for side, entrant in enumerate(group)
        for seat in rounds.seats_of_side(side, round_.sides, round_.seats)
    ]
    return sorted(placed, key=lambda s: s["seat"])


def messages(club: str, round_: StoredRound, before: StoredRound | None) -> dict[str, dict[str, Any]]:
    """Each table's seating message for this round, and a cleared one for a table left out of it."""
    at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    out = {
        table: {
            "v": VERSION,
            "club": club,
            "table": table,
            "round": round_.number,
            "method": round_.method,
            "seats": seats(round_, table),
            "at": at,
        }
        for table in round_.seating
    }
    for table in before.seating if before is not None else {}:
        if table not in out:
            out[table] = cleared(club, table)
    return out


def cleared(club: str, table: str) -> dict[str, Any]:
    return {"v": VERSION, "club": club, "table": table, "round": None, "seats": []}


def publish(settings: ClubSettings, payloads: dict[str, dict[str, Any]]) -> None:
    """Publish each table's message, retained at QoS 1, and wait for the broker's every ack."""
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2,
        client_id=f"{settings.session_id}-seating-{next(_ids)}",
        protocol=mqtt.MQTTv311,
    )
    client.username_pw_set(settings.username, settings.broker_password())
    if settings.tls:
        client.tls_set(
            ca_certs=str(settings.broker_ca) if settings.broker_ca else None, tls_version=ssl.PROTOCOL_TLS_CLIENT
        )
    try:
        client.connect(settings.broker_host, settings.broker_port, keepalive=30)
    except (OSError, ValueError, ssl.SSLError) as exc:
        raise SeatingNotPublished(f"cannot reach the broker at {settings.broker}: {exc}") from None
    client.loop_start()
    try:
        for table, payload in payloads.items():
            info = client.publish(topic(settings.club, table), _json(payload), qos=1, retain=True)
            info.wait_for_publish(timeout=ACK_S)
            if not info.is_published():
                raise SeatingNotPublished(
                    f"the broker at {settings.broker} did not take table {table}'s seating "
                    f"(its ACL must let the user '{settings.username}' write {topic(settings.club, '+')})"
                )
    except (RuntimeError, ValueError) as exc:  # paho raises these for a connection that failed
        if isinstance(exc, SeatingNotPublished):
            raise
        raise SeatingNotPublished(f"the broker at {settings.broker}: {exc}") from None
    finally:
        client.disconnect()
        client.loop_stop()


def _json(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False)


class SeatingAnnouncer:
    """Publishes each new round's seating on a thread of its own (see the module's text)."""

    def __init__(self, settings: ClubSettings) -> None:
        self.settings = settings
        self._worker: ThreadPoolExecutor | None = None  # made at the first round (again after close)

    def announce(self, round_: StoredRound, before: StoredRound | None) -> Future[None]:
        payloads = messages(self.settings.club, round_, before)
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="club-seating")
        return self._worker.submit(self._publish, round_.number, payloads)

    def _publish(self, number: int, payloads: dict[str, dict[str, Any]]) -> None:
        try:
            publish(self.settings, payloads)
            log.info("round %d's seating published to %d tables", number, len(payloads))
        except SeatingNotPublished as exc:
            log.warning("round %d's seating could not be published to the tables: %s", number, exc)
            raise

    def close(self) -> None:
        if self._worker is not None:
            self._worker.shutdown(wait=False)
            self._worker = None
