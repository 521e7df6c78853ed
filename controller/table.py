"""The table controller: the single writer of a table's state.

Everything that happens at the table arrives as a table-log event (a deal from the dealing
machine, a call entered on the page, a card the camera saw, an undo) and goes through one
place, in order: the referee judges it, the journal appends it, then it is published. An
event the referee calls malformed is refused with its reason and changes nothing; an event
that breaks a rule is journalled with its violation, exactly as the table log records it.
The state of a match is a pure function of its journal, so a restart resumes where the
table stopped. Other threads never touch the state: they ``post`` events to the inbox.

A table in a club (``controller/club_link``) also turns each match begun and each event into
the club's messages, which the journal queues in its outbox in the same transaction as the
record they come from; the publisher's thread sends them, so the table never waits on the
network.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from controller.store import Journal, JournalError
from engine.games import get_game
from engine.log import MalformedLog, Referee, TableLog, event_to_json, parse_event, referee_text

if TYPE_CHECKING:
    from controller.club_link.link import ClubLink

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one submitted event."""

    accepted: bool
    index: int | None = None  # the event's index in the match's log, when accepted
    reason: str | None = None  # why it was refused
    violation: dict[str, Any] | None = None  # the rule it broke, if it was accepted with one


@dataclass(frozen=True, slots=True)
class Update:
    """What subscribers (the page, the panel's LEDs and buzzer) are told, in order."""

    seq: int
    match_id: int
    event: dict[str, Any]
    violation: dict[str, Any] | None = None
    report: dict[str, Any] = field(default_factory=dict)


Subscriber = Callable[[Update], None]
T = TypeVar("T")


class TableController:
    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.subscribers: list[Subscriber] = []
        self.match_id: int | None = None
        self._log: TableLog | None = None
        self._referee: Referee | None = None
        self._seq = 0
        self._inbox: queue.Queue[tuple[Callable[[], Any], Future[Any]] | None] = queue.Queue()
        self._worker: threading.Thread | None = None
        self.club: ClubLink | None = None  # set when the table publishes to a club
        self._resume()

    # --- the match ------------------------------------------------------------------------

    @property
    def referee(self) -> Referee | None:
        return self._referee

    def report(self) -> dict[str, Any]:
        return self._referee.report() if self._referee is not None else {}

    def start_match(
        self,
        game: str,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        start: Mapping[str, Any] | None = None,
    ) -> int:
        """Begin a new match (the previous one stays in the journal); raise MalformedLog if invalid."""
        chosen = get_game(game)
        seats = players if players is not None else chosen.default_players()
        log_doc = {"format": "croupier-table-log", "version": 1, "game": game, "players": seats, "events": []}
        if options:
            log_doc["options"] = dict(options)
        if start:
            log_doc["start"] = dict(start)
        self._adopt(log_doc)  # validates the game, players, options and start before journalling
        assert self._referee is not None
        club = self.club.match_messages(self._referee, start) if self.club is not None else []
        self.match_id = self.journal.start_match(game, seats, options or {}, start, club)
        if self.club is not None:
            self.club.queued()
        return self.match_id

    def submit(self, raw: Mapping[str, Any]) -> Outcome:
        """Judge, journal and publish one table-log event. Call only from the owning thread.
        A journal that cannot take it raises JournalError (JournalUnavailable: a full disk)."""
        if self._referee is None or self._log is None or self.match_id is None:
            return Outcome(False, reason="no match has been started")
        index = self.journal.event_count(self.match_id)
        before = self.club.mark(self._referee) if self.club is not None else None
        try:
            event = parse_event(self._log, dict(raw), index)
            violation = self._referee.apply(event, index)
        except MalformedLog as exc:
            return Outcome(False, reason=exc.reason)
        stored = event_to_json(event)
        if isinstance(raw.get("note"), str):  # a correction's reason: the log keeps notes
            stored["note"] = raw["note"]
        club = self.club.event_messages(self._referee, before, index, stored, self.match_id) if self.club else []
        try:
            self.journal.append(self.match_id, stored, club)
        except JournalError as exc:  # the table's trouble, not the event's: raised, not refused
            log.error("journal write failed, reloading the match from the journal: %s", exc)
            self._resume()  # the judged event never happened: the journal is the truth
            raise
        if self.club is not None:
            self.club.queued()
        if self._hand_ended():
            self.journal.copy_at_hand_end()  # the worst loss is now the hand in play
        found = violation.to_json() if violation is not None else None
        self._publish(stored, found)
        return Outcome(True, index=index, violation=found)

    def _hand_ended(self) -> bool:
        hand = self._referee.match.current if self._referee is not None else None
        return hand is not None and hand.is_over()

    def _publish(self, event: dict[str, Any], violation: dict[str, Any] | None) -> None:
        assert self.match_id is not None
        self._seq += 1
        update = Update(self._seq, self.match_id, event, violation, self.report())
        for subscriber in list(self.subscribers):
            try:
                subscriber(update)
            except Exception:  # a broken page connection must never stop the table
                log.exception("a subscriber failed on update %d", update.seq)

    # --- resuming -------------------------------------------------------------------------

    def _resume(self) -> None:
        record = self.journal.latest_match()
        if record is None:
            return
        try:
            self._adopt(self.journal.export(record.id))
        except MalformedLog as exc:
            raise JournalError(f"the journal's match {record.id} does not replay: {exc}") from None
        self.match_id = record.id

    def _adopt(self, log_doc: dict[str, Any]) -> None:
        """Make this table log the match in progress: replay its events through a referee."""
        referee = referee_text(json.dumps(log_doc))
        match = referee.match
        self._referee = referee
        self._log = TableLog(match.game, match.players, match.options, log_doc.get("start"))

    # --- the owning thread ------------------------------------------------------------------

    def start(self) -> None:
        """Run the inbox on a worker thread: the one thread that changes the table."""
        self._worker = threading.Thread(target=self._serve, name="table-controller", daemon=True)
        self._worker.start()

    def stop(self) -> None:
        if self._worker is not None:
            self._inbox.put(None)
            self._worker.join()
            self._worker = None

    def post(self, raw: Mapping[str, Any]) -> Future[Outcome]:
        """Queue an event from any thread; the future resolves once it is judged and journalled."""
        return self.run(lambda: self.submit(raw))

    def run(self, work: Callable[[], T]) -> Future[T]:
        """Run ``work`` on the owning thread, in turn with the events (a correction's undo and
        play as one step; a consistent read of the state)."""
        done: Future[T] = Future()
        self._inbox.put((work, done))
        return done

    def _serve(self) -> None:
        while (item := self._inbox.get()) is not None:
            work, done = item
            try:
                done.set_result(work())
            except Exception as exc:  # never let the table's thread die
                log.exception("the table controller failed on an event")
                done.set_exception(exc)
