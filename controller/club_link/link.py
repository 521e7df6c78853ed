"""The table's link to its club: the messages, the outbox and the publisher joined to the runtime.

The controller asks it for each event's messages (on the controller's own thread, inside the
journal's write) and tells it when some were queued; the runtime's public messages give the
status. A table that joins a club with a match in progress (or whose journal was salvaged)
queues that match's messages from its start, rebuilt from the journal exactly as they were
made live, so the club sees every match whole, from ``seq`` 1.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from controller.club_link.messages import ClubMessages, Mark, Message, mark, status
from controller.club_link.publisher import Publisher
from controller.club_link.seating import BadSeating, parse_seating
from engine.log import Referee, TableLog, parse_event, referee_text
from engine.seat_names import SeatNames

if TYPE_CHECKING:
    from controller.runtime import Runtime
    from controller.store import Journal

log = logging.getLogger(__name__)


class ClubLink:
    def __init__(self, runtime: Runtime, publisher: Publisher | None = None) -> None:
        settings = runtime.settings.club
        assert settings is not None
        self.runtime = runtime
        self.club, self.table = settings.club, settings.table
        self.messages = ClubMessages(settings.club, settings.table, self._seat_names)
        self.publisher = publisher or Publisher(settings, runtime.journal.path)
        self._status: dict[str, Any] | None = None
        self.publisher.on_seating = self._on_seating

    @classmethod
    def attach(cls, runtime: Runtime, publisher: Publisher | None = None) -> ClubLink:
        """Join the runtime's table to its club (before its controller's thread starts)."""
        link = cls(runtime, publisher)
        runtime.controller.club = link
        runtime.listeners.append(link._on_message)
        link._catch_up()
        link._tell_status(runtime.public_table())
        return link

    def start(self) -> None:
        self.publisher.start()

    def stop(self) -> None:
        self.publisher.stop()

    # --- for the controller (on its thread) ---------------------------------------------------

    def mark(self, referee: Referee | None) -> Mark | None:
        return mark(referee) if referee is not None else None

    def match_messages(self, referee: Referee, start: Mapping[str, Any] | None) -> list[Message]:
        try:
            return self.messages.match(referee, start)
        except Exception:  # the table plays on without its club rather than stop
            log.exception("the club's message for a new match could not be made")
            return []

    def event_messages(
        self, referee: Referee, before: Mark | None, index: int, stored: Mapping[str, Any], match_id: int
    ) -> list[Message]:
        if before is None:
            return []
        try:
            return self.messages.event(referee, before, index, stored, self.runtime.journal, match_id)
        except Exception:
            log.exception("the club's messages for event %d of match %d could not be made", index, match_id)
            return []

    def queued(self) -> None:
        self.publisher.nudge()

    # --- the status -----------------------------------------------------------------------------

    def _on_message(self, message: dict[str, Any]) -> None:
        if "state" in message:
            self._tell_status(message["state"])

    def _tell_status(self, state: Mapping[str, Any]) -> None:
        now = status(self.club, self.table, state)
        if self._status is None or _without_time(now) != _without_time(self._status):
            self._status = now
            self.publisher.set_status(now)

    # --- the club's next seating (on the publisher's thread) ---------------------------------------

    def _on_seating(self, payload: bytes) -> None:
        try:
            next_round = parse_seating(payload, self.club, self.table)
        except BadSeating as exc:
            log.warning("ignored the club's seating message on %s: %s", self.publisher.seating_topic, exc)
            return
        self.runtime.set_next_round(next_round)

    def _seat_names(self, players: int) -> list[str]:
        return list(SeatNames.of(players, self.runtime.seating.names).names)

    # --- a match in progress when the table joined ------------------------------------------------

    def _catch_up(self) -> None:
        journal, match_id = self.runtime.journal, self.runtime.controller.match_id
        if match_id is None or journal.queued_for_club(match_id):
            return
        journal.queue_for_club(match_id, self._rebuilt(journal, match_id))
        log.info("match %d was in progress when the table joined the club: its messages are queued", match_id)

    def _rebuilt(self, journal: Journal, match_id: int) -> list[tuple[str, Message]]:
        """The match's messages, made again from the journal as the table made them live."""
        record = next(m for m in journal.matches() if m.id == match_id)
        header = journal.export(match_id) | {"events": []}
        referee = referee_text(json.dumps(header))
        match = referee.match
        table_log = TableLog(match.game, match.players, match.options, header.get("start"))
        made = [(record.created, m) for m in self.messages.match(referee, header.get("start"))]
        hand = _HandSoFar()
        for index, (at, raw) in enumerate(journal.timed_events(match_id)):
            before = mark(referee)
            referee.apply(parse_event(table_log, raw, index), index)
            made += [(at, m) for m in self.messages.event(referee, before, index, raw, hand, match_id)]
            hand.add(index, raw)
        return made


class _HandSoFar:
    """The hand in play, as :meth:`Journal.hand_so_far` gives it, over events being replayed."""

    def __init__(self) -> None:
        self.first = 0
        self.events: list[dict[str, Any]] = []

    def add(self, index: int, event: dict[str, Any]) -> None:
        if event.get("type") == "deal":
            self.first, self.events = index, []
        self.events.append(event)

    def hand_so_far(self, match_id: int) -> tuple[int, list[dict[str, Any]]]:
        return self.first, list(self.events)


def _without_time(status: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in status.items() if name != "at"}
