"""The runtime: what the table's services share, around its single writer.

It holds the settings, the journal, the :class:`TableController` and the control token, and
offers the table's commands to the web API as futures that run on the controller's own
thread, in turn with every other event: so a pause, a correction (an undo and a play as one
step) or a read of the state never interleaves with a card the camera saw. It also turns
each of the controller's updates into its public form (``engine.view``) for the WebSocket.
The devices (:mod:`controller.live`) report through it too: a device that cannot go on (the
dealing machine's port vanished, the camera stopped delivering frames) *holds* the table with
a message until it recovers, and what the devices are doing (dealing 12 of 22, gather the
trick) is published as the table's ``devices`` status, numbered in the same sequence as the
events.

The seating (the seats' names, Fifty-Six's letters: :mod:`controller.seating`) is the table's,
kept beside the journal; every state published names things with it (``engine.view``).

A pause refuses every event until the table resumes. It is kept in a small file beside the
journal (``croupier.db.paused``), so a table paused before a power cut is still paused after.

With ``[club]`` settings the runtime joins the table to its club (``controller/club_link``): its
events go to the journal's outbox with them, its status follows what it publishes, and the
publisher's thread starts and stops with the controller.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from controller.journal.files import pause_path, write_atomically
from controller.seating import Seating, load_seating, save_seating, seating_path
from controller.settings import Settings
from controller.store import Journal, JournalError, JournalUnavailable
from controller.table import Outcome, TableController, Update
from engine.actions import Play
from engine.cards import Card
from engine.errors import BadNotation, EngineError
from engine.log import MalformedLog, referee_text
from engine.seat_names import SeatNameError, check_names
from engine.view import public_event, public_state, table_words, violation_of
from engine.violation_words import Words

if TYPE_CHECKING:
    from controller.club_link.link import ClubLink

log = logging.getLogger(__name__)

Listener = Callable[[dict[str, Any]], None]
T = TypeVar("T")
CORRECTION = "correction: the card was misread"


class TableRefusal(RuntimeError):
    """A command the table cannot carry out now (paused, no match, nothing to correct)."""


class TablePaused(TableRefusal):
    pass


class BadCommand(ValueError):
    """A command whose content is wrong (a card that is not a card, a seat not at the table)."""


EXPECTED = (TableRefusal, BadCommand, MalformedLog, JournalError, EngineError)


@dataclass(frozen=True, slots=True)
class Result:
    """What became of one command: the controller's outcome, whether it changed the hand
    (a violation under revoke policy ``reject`` does not), and the public state after it."""

    outcome: Outcome
    applied: bool
    seq: int
    state: dict[str, Any]


class Runtime:
    def __init__(self, settings: Settings, journal: Journal, controller: TableController, token: str) -> None:
        self.settings = settings
        self.journal = journal
        self.controller = controller
        self.token = token
        self.listeners: list[Listener] = []  # called on the controller's thread with public messages
        self.seq = 0
        self.paused: str | None = _read_pause(self.pause_path)
        self.seating: Seating = load_seating(seating_path(journal.path))
        self.holds: dict[str, str] = {}  # device -> why it holds the table (not persisted: devices re-report)
        self.devices: dict[str, dict[str, Any]] = {}  # device -> its public status
        self.next_round: dict[str, Any] | None = None  # who sits where next, as the club says (not persisted)
        self._mark = self._hand_mark()
        self._applied = False
        self._started = False
        # Set by the live table when a dealing machine is attached: a deal without cards is then
        # dealt by the machine (the future resolves once it has started, with the public state).
        self.machine_deal: Callable[[int | None], Future[dict[str, Any]]] | None = None
        controller.subscribers.append(self._on_update)
        self.club: ClubLink | None = None  # the table's club, when its settings name one ([club])
        if settings.club is not None:
            from controller.club_link.link import ClubLink

            self.club = ClubLink.attach(self)

    @classmethod
    def open(cls, settings: Settings, token: str) -> Runtime:
        journal = Journal(settings.store.path)
        return cls(settings, journal, TableController(journal), token)

    @property
    def pause_path(self) -> Path:
        return pause_path(self.journal.path)

    def start(self) -> None:
        if not self._started:
            self.controller.start()
            if self.club is not None:
                self.club.start()
            self._started = True

    def stop(self) -> None:
        if self._started:
            self.controller.stop()
            if self.club is not None:  # what it could not send stays in the outbox for the next start
                self.club.stop()
            self._started = False

    # --- commands (each returns a future resolved on the controller's thread) -------------

    def submit(self, raw: Mapping[str, Any]) -> Future[Result]:
        return self._run(lambda: self._submit(raw))

    def deal(
        self, hands: Sequence[Sequence[str]] | None, rest: Sequence[str] | None, dealer: int | None
    ) -> Future[Result]:
        """A deal as entered (a predetermined deal), or, without cards, shuffled here as the
        dealing machine would: uniformly, with a cryptographically secure generator."""
        return self._run(lambda: self._submit(self._deal_event(hands, rest, dealer)))

    def correct(self, card: str, seat: int | None) -> Future[Result]:
        return self._run(lambda: self._correct(card, seat))

    def start_match(
        self, game: str, players: int | None, options: Mapping[str, Any], start: Mapping[str, Any] | None
    ) -> Future[int]:
        return self._run(lambda: self._start_match(game, players, options, start))

    def pause(self, reason: str) -> Future[dict[str, Any]]:
        return self._run(lambda: self._set_pause(reason))

    def resume(self) -> Future[dict[str, Any]]:
        return self._run(lambda: self._set_pause(None))

    def seat(self, names: Sequence[str], letters: bool) -> Future[dict[str, Any]]:
        """Name the seats (a name left empty is the seat's compass point) and choose Fifty-Six's
        letters; kept beside the journal for every match to come, and published at once."""
        return self._run(lambda: self._set_seating(names, letters))

    def hold(self, device: str, message: str) -> Future[None]:
        """A device cannot go on: refuse events, and say why, until :meth:`release`."""
        return self._run(lambda: self._set_hold(device, message))

    def release(self, device: str) -> Future[None]:
        return self._run(lambda: self._set_hold(device, None))

    def set_status(self, device: str, status: dict[str, Any] | None) -> Future[None]:
        """Publish what a device is doing (progress, a prompt) without touching the match."""
        return self._run(lambda: self._set_status(device, status))

    def set_next_round(self, next_round: dict[str, Any] | None) -> Future[None]:
        """Who sits where next, as the club says (``controller/club_link``); None: no round."""
        return self._run(lambda: self._set_next_round(next_round))

    def snapshot(self) -> Future[dict[str, Any]]:
        return self._run(self.public_snapshot)

    def matches(self) -> Future[list[dict[str, Any]]]:
        return self._run(self._matches)

    def export(self, match_id: int) -> Future[dict[str, Any]]:
        return self._run(lambda: self._export(match_id))

    # --- for the devices (controller/live.py), which also work on the controller's thread ----

    def run(self, work: Callable[[], T]) -> Future[T]:
        """Run ``work`` on the controller's thread, in turn with every event."""
        return self._run(work)

    def submit_here(self, raw: Mapping[str, Any]) -> Result:
        """Submit an event; call only on the controller's thread (from work given to :meth:`run`).
        An event the journal cannot take (a full disk) is refused with the reason, as a device expects."""
        try:
            return self._submit(raw)
        except JournalError as exc:
            return Result(Outcome(False, reason=str(exc)), False, self.seq, self.public_table())

    def check_open(self) -> None:
        """Raise TablePaused if the table is paused or held; on the controller's thread."""
        self._check_open()

    def publish_status(self, device: str, status: dict[str, Any] | None) -> None:
        """:meth:`set_status`, on the controller's thread."""
        self._set_status(device, status)

    def _run(self, work: Callable[[], T]) -> Future[T]:
        """Run ``work`` on the controller's thread. An expected refusal reaches the caller
        through the future without being logged there as a failure of the table."""
        result: Future[T] = Future()

        def guarded() -> None:
            try:
                result.set_result(work())
            except EXPECTED as exc:
                result.set_exception(exc)
            except Exception as exc:  # logged here; the table's thread carries on
                log.exception("a table command failed")
                result.set_exception(exc)

        self.controller.run(guarded)
        return result

    # --- on the controller's thread ---------------------------------------------------------

    def _submit(self, raw: Mapping[str, Any]) -> Result:
        self._check_open()
        if self.controller.match_id is None:
            raise TableRefusal("no match has been started: start one first")
        self._applied = False
        outcome = self.controller.submit(raw)
        if outcome.violation is not None:  # with its sentence, as the WebSocket tells it
            outcome = replace(outcome, violation=self._public_violation(outcome.violation))
        return Result(outcome, outcome.accepted and self._applied, self.seq, self.public_table())

    def _check_open(self) -> None:
        if self.paused is not None:
            raise TablePaused(f"the table is paused ({self.paused}): resume it first")
        if self.holds:
            raise TablePaused(f"the table is waiting: {'; '.join(self.holds.values())}")

    def _correct(self, card: str, seat: int | None) -> Result:
        self._check_open()
        referee = self.controller.referee
        hand = referee.match.current if referee is not None else None
        if hand is None or not hand.moves or not isinstance(hand.moves[-1][1], Play):
            raise TableRefusal("the last action of this hand was not a play: there is no card to correct")
        old_seat, old = hand.moves[-1][0], hand.moves[-1][1]
        new_seat = old_seat if seat is None else seat
        new = _card(card)
        if not 0 <= new_seat < hand.players:
            raise BadCommand(f"'seat' must be a seat from 0 to {hand.players - 1}, not {new_seat}")
        if (new_seat, new) == (old_seat, old.card):
            raise BadCommand(f"{self.seat_name(old_seat)} played {new} already: there is nothing to correct")
        if not (hand.holds(new_seat, new) or (new_seat == old_seat and new == old.card)):
            raise BadCommand(
                f"{self.seat_name(new_seat)} does not hold {new}: the correction would not replace {old.card}"
            )
        undone = self._submit({"type": "undo", "note": CORRECTION})
        if not undone.outcome.accepted:
            return undone
        return self._submit({"type": "play", "seat": new_seat, "card": str(new), "note": CORRECTION})

    def _deal_event(
        self, hands: Sequence[Sequence[str]] | None, rest: Sequence[str] | None, dealer: int | None
    ) -> dict[str, Any]:
        event: dict[str, Any] = {"type": "deal"}
        if dealer is not None:
            event["dealer"] = dealer
        if hands is not None or rest is not None:
            event["hands"], event["rest"] = hands, rest if rest is not None else []
            return event
        event["hands"], event["rest"] = self._shuffled(dealer)
        return event

    def _shuffled(self, dealer: int | None) -> tuple[list[list[str]], list[str]]:
        referee = self.controller.referee
        if referee is None:
            raise TableRefusal("no match has been started: start one first")
        match = referee.match
        dealer = dealer if dealer is not None else match.next_dealer()
        if dealer is None or not 0 <= dealer < match.players:
            raise BadCommand(f"the first deal must name its dealer, a seat from 0 to {match.players - 1}")
        pack = [str(c) for c in match.game.pack]
        secrets.SystemRandom().shuffle(pack)
        hands, at = [], 0
        for size in match.game.deal_shape(match.players, match.options, dealer).per_seat:
            hands.append(pack[at : at + size])
            at += size
        return hands, pack[at:]

    def _start_match(
        self, game: str, players: int | None, options: Mapping[str, Any], start: Mapping[str, Any] | None
    ) -> int:
        self._check_open()
        match_id = self.controller.start_match(game, players, options, start)
        self._mark = self._hand_mark()
        self._tell(self.public_snapshot())
        return match_id

    def _set_pause(self, reason: str | None) -> dict[str, Any]:
        try:
            if reason is None:
                self.pause_path.unlink(missing_ok=True)
            else:  # a power cut or a full disk leaves the old file or the new one, and no other
                write_atomically(self.pause_path, reason + "\n")
        except OSError as exc:
            now = "is not paused" if reason is not None else "stays paused"
            raise JournalUnavailable(
                f"cannot keep the pause beside the journal ({self.pause_path}): {exc.strerror or exc}; "
                f"the table {now}: free some space (or fix the disk) and try again"
            ) from None
        self.paused = reason
        snapshot = self.public_snapshot()
        self._tell(snapshot)
        return snapshot

    def _set_seating(self, names: Sequence[str], letters: bool) -> dict[str, Any]:
        try:
            seating = Seating(check_names(names), letters)
        except SeatNameError as exc:
            raise BadCommand(str(exc)) from None
        path = seating_path(self.journal.path)
        try:
            save_seating(path, seating)
        except OSError as exc:
            raise JournalUnavailable(
                f"cannot keep the seats' names beside the journal ({path}): {exc.strerror or exc}; "
                "nothing changed: free some space (or fix the disk) and try again"
            ) from None
        self.seating = seating
        snapshot = self.public_snapshot()
        self._tell(snapshot)
        return snapshot

    def _set_hold(self, device: str, message: str | None) -> None:
        if (message is None and device not in self.holds) or self.holds.get(device) == message:
            return
        if message is None:
            log.info("%s: recovered, the table goes on", device)
            del self.holds[device]
        else:
            log.warning("%s holds the table: %s", device, message)
            self.holds[device] = message
        self._announce()

    def _set_next_round(self, next_round: dict[str, Any] | None) -> None:
        if next_round != self.next_round:
            self.next_round = next_round
            self._announce()

    def _set_status(self, device: str, status: dict[str, Any] | None) -> None:
        if status is None:
            if self.devices.pop(device, None) is None:
                return
        elif self.devices.get(device) == status:
            return
        else:
            self.devices[device] = status
        self._announce()

    def _announce(self) -> None:
        """A change of the table's devices, not of the match: published in the same sequence."""
        self.seq += 1
        self._tell(
            {
                "type": "update",
                "seq": self.seq,
                "event": {"type": "status"},
                "violation": None,
                "state": self.public_table(),
            }
        )

    def _matches(self) -> list[dict[str, Any]]:
        return [
            {
                "id": m.id,
                "game": m.game,
                "players": m.players,
                "options": m.options,
                "start": m.start,
                "events": m.events,
                "created": m.created,
                "current": m.id == self.controller.match_id,
            }
            for m in self.journal.matches()
        ]

    def _export(self, match_id: int) -> dict[str, Any]:
        """The match as a table log, without a hand in progress: only ended hands are public."""
        doc = self.journal.export(match_id)
        referee = referee_text(json.dumps(doc))
        hand = referee.match.current
        if hand is not None and not hand.is_over():
            last_deal = max(i for i, e in enumerate(doc["events"]) if e.get("type") == "deal")
            doc["events"] = doc["events"][:last_deal]
        return doc

    # --- what is published ------------------------------------------------------------------

    def public_table(self) -> dict[str, Any]:
        referee = self.controller.referee
        table: dict[str, Any] = {
            "match_id": self.controller.match_id,
            "paused": self.paused,
            "holds": [{"device": d, "message": m} for d, m in sorted(self.holds.items())],
            "devices": dict(self.devices),
            "seating": self.seating.to_json(),  # as chosen; the state's seat_names fill in the rest
            "next_round": self.next_round,  # the club's seating for its next round, if it has said one
        }
        if referee is None:
            return table | {"game": None, "hand": None}
        return table | public_state(referee, self.words())

    def words(self) -> Words | None:
        """How the table names things now (its seats, its game's calls), for anything said about it."""
        referee = self.controller.referee
        return table_words(referee, self.seating.names, self.seating.letters) if referee is not None else None

    def seat_name(self, seat: int) -> str:
        """A seat as the page names it (the players' name for it, else its compass point)."""
        words = self.words()
        return words.seats(seat) if words is not None and 0 <= seat < len(words.seats.names) else f"seat {seat}"

    def _public_violation(self, found: dict[str, Any] | None) -> dict[str, Any] | None:
        referee, words = self.controller.referee, self.words()
        if referee is None or words is None or found is None:
            return found
        return violation_of(referee, found, words)

    def public_snapshot(self) -> dict[str, Any]:
        return {"type": "snapshot", "seq": self.seq, "state": self.public_table()}

    def _on_update(self, update: Update) -> None:
        self.seq += 1
        mark = self._hand_mark()
        self._applied, self._mark = mark != self._mark, mark
        referee = self.controller.referee
        assert referee is not None
        message = {
            "type": "update",
            "seq": self.seq,
            "event": public_event(referee.match.game.name, update.event, applied=self._applied),
            "violation": self._public_violation(update.violation),
            "state": self.public_table(),
        }
        self._tell(message)

    def _tell(self, message: dict[str, Any]) -> None:
        for listener in list(self.listeners):
            try:
                listener(message)
            except Exception:  # a broken page connection must never stop the table
                log.exception("a listener failed on a %s message", message.get("type"))

    def _hand_mark(self) -> tuple[int, int]:
        """Changes whenever an event changes the match (a deal, or a push or pop in the hand)."""
        referee = self.controller.referee
        hand = referee.match.current if referee is not None else None
        return (len(referee.match.hands) if referee else 0, hand.version if hand is not None else -1)


def _card(text: str) -> Card:
    try:
        return Card.from_str(text)
    except BadNotation:
        raise BadCommand(f"'card': {text!r} is not a card code such as 'TH'") from None


def _read_pause(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip() or "paused"
    except FileNotFoundError:
        return None
