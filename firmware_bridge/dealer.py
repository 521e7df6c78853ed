"""The Dealer facade: one deal, from START to a verified result, surviving the machine's faults.

A single loop in the caller's thread reads machine events from the :class:`Link` and answers
each: a card read is checked against the pack and routed (ROUTE is keyed by read index, so a
retransmission never moves a second card); a delivery is booked; a jam, an emergency stop or
an empty hopper becomes a :class:`FaultRaised` with a reason and a remedy, handed to the
:class:`Operator`; a machine reset is met with PURGE and the resume procedure of
docs/protocol.md. Every wait has a deadline, and a deal that cannot go on is voided with a
message, never left hanging.
"""

from __future__ import annotations

import logging
import queue
import secrets
import time
from collections.abc import Callable
from typing import Any

from firmware_bridge.errors import BridgeError, LinkLost, ProtocolError
from firmware_bridge.events import REMEDIES, CardDealt, DealResult, DealStats, FaultRaised, Operator
from firmware_bridge.link import Link, LinkDown, LinkUp
from firmware_bridge.plan import DealPlan, DeckMismatch, Tally
from firmware_bridge.protocol import (
    NO_READ,
    REJECT,
    REST,
    Abort,
    CardDelivered,
    CardRead,
    CardRejected,
    ClearFault,
    DoubleFeed,
    EStop,
    Fault,
    FaultCode,
    Finish,
    GetStatus,
    HopperEmpty,
    Jam,
    Message,
    Pause,
    Purge,
    Purged,
    RejectReason,
    Reply,
    Result,
    Resume,
    Route,
    Start,
    State,
    Status,
    Stop,
)

log = logging.getLogger(__name__)


class Void(Exception):
    """Internal: the deal cannot go on; the message says why."""


class Dealer:
    """Deals through a connected :class:`Link`. One deal at a time."""

    def __init__(
        self,
        link: Link,
        rng: secrets.SystemRandom | None = None,
        observer: Callable[[Any], None] | None = None,
        stall_s: float = 5.0,
        link_deadline_s: float = 20.0,
        no_progress_s: float = 60.0,
    ) -> None:
        self.link = link
        self.rng = rng or secrets.SystemRandom()
        self.observer = observer or (lambda event: None)
        self.stall_s = stall_s
        self.link_deadline_s = link_deadline_s
        self.no_progress_s = no_progress_s
        self._abort_reason: str | None = None
        self._deferred: list[Any] = []

    # --- control from other threads ------------------------------------------------------------

    def pause(self) -> None:
        self._command(Pause(self.link.next_cmd_id(), self._plan_id))

    def resume(self) -> None:
        self._command(Resume(self.link.next_cmd_id(), self._plan_id))

    def abort(self, reason: str = "aborted by the operator") -> None:
        self._abort_reason = reason

    def stop_now(self) -> None:
        """STOP: urgent and unreliable, so sent three times without waiting (docs/protocol.md §5)."""
        for _ in range(3):
            self.link.send(Stop())

    # --- the deal --------------------------------------------------------------------------------

    def deal(self, plan: DealPlan, operator: Operator) -> DealResult:
        started = time.monotonic()
        self._setup(plan, operator)
        try:
            self._await_session()
            self._started = True
            self._command(Start(self.link.next_cmd_id(), self._plan_id, 0), must=True)
            self._loop()
            status, message = "complete", ""
        except (Void, BridgeError) as exc:
            status, message = "void", str(exc)
            if self._started:  # with no session, nothing was started: nothing moves to wind down
                self._wind_down()
                message += self._unconfirmed()
        return self._result(status, message, started)

    def _setup(self, plan: DealPlan, operator: Operator) -> None:
        self.plan, self.operator = plan, operator
        self.tally = Tally(plan, self.rng)
        self._plan_id = self.rng.getrandbits(32)
        self._routed: dict[int, tuple[int, int]] = {}  # read_idx -> (card, dest) not yet confirmed
        self._held: dict[int, list[int]] = {d: [] for d in plan.destinations()}
        self._next_read = 0
        self._started = False
        self._problem: DeckMismatch | None = None
        # Cards in the reject tray that must come back through the machine: never read (a double
        # feed, an unreadable card) or purged, read or not (a purged card's slot is given back, and
        # with an extra copy in the pack another card may take it: the purged one must be read again).
        self._in_tray = 0
        self._link_down_since: float | None = None
        self._finished = False
        self._last_progress = time.monotonic()
        self.stats = DealStats()
        self._base_retx = self.link.stats.retransmissions
        self._base_sent = self.link.stats.reliable_sent
        self._base_reconnects, self._base_resets = self.link.reconnects, self.link.resets

    def _await_session(self) -> None:
        """On a noisy line the first handshake may still be under way: it gets the deadline a
        lost link gets, and a machine that never answers voids the deal with the reason."""
        hello = self.link.wait_up(self.link_deadline_s)
        if hello.boot_id != getattr(self, "_boot", None):  # event numbers count per boot, across deals
            self._boot, self._last_event = hello.boot_id, 0

    def _loop(self) -> None:
        while not self._finished:
            if self._abort_reason is not None:
                raise Void(self._abort_reason)
            if self._problem is not None and not self._routed:
                raise Void(str(self._problem))
            event = self._next_event(self.stall_s)
            if event is None:
                self._stalled()
            else:
                self._last_progress = time.monotonic()
                self._on(event)

    def _next_event(self, timeout_s: float) -> Any:
        if self._deferred:
            return self._deferred.pop(0)
        try:
            return self.link.events.get(timeout=timeout_s)
        except queue.Empty:
            return None

    # --- events ----------------------------------------------------------------------------------

    def _on(self, event: Any) -> None:
        if isinstance(event, LinkDown | LinkUp):
            self._on_link(event)
            return
        if not self._fresh(event):
            return
        handler = getattr(self, "_on_" + type(event).__name__.lower(), None)
        if handler is not None:
            handler(event)

    def _fresh(self, event: Any) -> bool:
        """Is this event of this deal, and not one replayed after a reconnection (already handled)?"""
        plan_id = getattr(event, "plan_id", self._plan_id)
        if plan_id not in (self._plan_id, 0):
            return False  # left over from an earlier deal
        number = getattr(event, "event", None)
        if number is not None:
            if number <= self._last_event:
                return False
            self._last_event = number
        return True

    def _on_cardread(self, ev: CardRead) -> None:
        self._next_read = max(self._next_read, ev.read_idx + 1)
        self.stats.cards_read += 1
        dest = REJECT
        if self._problem is None and self._abort_reason is None:
            try:
                dest = self.tally.choose(ev.card)
            except DeckMismatch as problem:
                self._problem = problem  # route it out of the way, then void with its message
        self._routed[ev.read_idx] = (ev.card, dest)
        self._command(Route(self.link.next_cmd_id(), self._plan_id, ev.read_idx, dest))

    def _on_carddelivered(self, ev: CardDelivered) -> None:
        routed = self._routed.pop(ev.read_idx, None)
        if routed != (ev.card, ev.dest):
            raise ProtocolError(f"the machine delivered card {ev.card} to slot {ev.dest}, the host routed {routed}")
        self._held[ev.dest].append(ev.card)
        dealt = sum(len(h) for h in self._held.values())
        seat = None if ev.dest == REST else ev.dest
        self.observer(CardDealt(ev.card, seat, ev.read_idx, dealt, len(self.plan.pack)))

    def _on_cardrejected(self, ev: CardRejected) -> None:
        card, dest = self._routed.pop(ev.read_idx, (ev.card, REJECT))
        if dest != REJECT:
            self.tally.give_back(card, dest)
        if ev.reason == RejectReason.UNREADABLE:
            self._in_tray += 1
            self._raise("unreadable")

    def _on_doublefeed(self, ev: DoubleFeed) -> None:
        self._in_tray += ev.count
        self._raise("double_feed")

    def _on_jam(self, ev: Jam) -> None:
        self._attend("jam")
        self._settle_in_path(ev.read_idx, in_reject=False)
        self._clear(FaultCode.JAM)
        self._command(Resume(self.link.next_cmd_id(), self._plan_id), must=True)

    def _on_estop(self, ev: EStop) -> None:
        if not ev.active:
            return
        self._attend("estop")
        self._clear(FaultCode.ESTOP)
        self._purge()
        self._command(Resume(self.link.next_cmd_id(), self._plan_id), must=True)

    def _on_hopperempty(self, ev: HopperEmpty) -> None:
        if self.tally.left() == 0 and not self._routed and not self._in_tray:
            self._command(Finish(self.link.next_cmd_id(), self._plan_id), must=True)
            self._finished = True
            return
        if self._problem is not None or not self._still_empty():
            return
        left = self.tally.left()
        reason = f"the hopper is empty with {left} card{'s' * (left != 1)} still to deal"
        if left == 0:
            # Every slot is full, but cards not dealt lie in the reject tray (never read, or purged): a
            # deal is complete only when every card in the machine has been read and checked.
            reason = (
                f"{self._in_tray} card{'s' * (self._in_tray != 1)} in the reject tray must go through the machine again"
            )
        missing = self.tally.missing_message()
        remedy = "put the cards from the reject tray back in the hopper and press resume"
        unseen = self.tally.missing()
        if 0 < len(unseen) <= 4:
            remedy += f" (the host has not seen: {missing.removesuffix(' is missing').removesuffix(' are missing')})"
        if not self._attend("hopper_empty", reason, remedy, fatal=False):
            raise Void(missing or f"{reason}: the pack could not be checked")
        self._in_tray = 0  # the operator put the reject tray back in the hopper
        self._command(Resume(self.link.next_cmd_id(), self._plan_id), must=True)

    def _still_empty(self) -> bool:
        """Is the machine still paused on an empty hopper? A HOPPER_EMPTY can be stale: a RESUME
        sent after a reconnection may have crossed it, and the machine is dealing again."""
        status = self._command(GetStatus(self.link.next_cmd_id()))
        if not isinstance(status, Status):
            return True  # no answer: ask the operator anyway; RESUME is harmless if not needed
        return status.state == State.PAUSED and status.fault == FaultCode.HOPPER_EMPTY

    def _on_purged(self, ev: Purged) -> None:
        known = ev.read_idx != NO_READ and ev.read_idx in self._routed
        if known:
            self._settle_in_path(ev.read_idx, in_reject=True)
        self._in_tray += ev.count  # read or not, they lie in the reject tray

    def _on_fault(self, ev: Fault) -> None:
        if ev.code == FaultCode.LEASE_EXPIRED:
            self._raise("lease")
            self._command(Resume(self.link.next_cmd_id(), self._plan_id))
            return
        raise Void(f"the dealing machine reported fault {FaultCode(ev.code).name.lower()} (detail {ev.detail})")

    def _settle_in_path(self, read_idx: int, in_reject: bool) -> None:
        """The card in the path left it by hand or by purge: it was not delivered."""
        routed = self._routed.pop(read_idx, None)
        if routed is not None and routed[1] != REJECT:
            self.tally.give_back(*routed)

    # --- the link --------------------------------------------------------------------------------

    def _on_link(self, event: LinkDown | LinkUp) -> None:
        if isinstance(event, LinkDown):
            self._link_down_since = self._link_down_since or time.monotonic()
            self._raise("link")
            return
        self._link_down_since = None
        self.observer(event)  # the table that paused for the lost link may go on
        if event.reset:
            self._resume_after_reset(event)
        else:
            self._command(Resume(self.link.next_cmd_id(), self._plan_id))

    def _resume_after_reset(self, event: LinkUp) -> None:
        """docs/protocol.md, "Resume after a reset": purge, classify the in-doubt card, restart."""
        self._raise("reset")
        self._boot, self._last_event = event.hello.boot_id, 0
        purged = self._purge()
        in_doubt = list(self._routed.items())
        self._routed.clear()
        for read_idx, (card, dest) in in_doubt:
            if purged == 0 and dest != REJECT:
                # Nothing in the path: the gate opens only for the routed slot, so the card is there.
                log.warning("card %d (read %d) assumed delivered to slot %d after the reset", card, read_idx, dest)
                self._held[dest].append(card)
            elif dest != REJECT:
                self.tally.give_back(card, dest)
        self._command(Start(self.link.next_cmd_id(), self._plan_id, self._next_read), must=True)

    def _purge(self) -> int:
        """PURGE the path and wait for the machine's count of cards it cleared."""
        self._command(Purge(self.link.next_cmd_id()), must=True)
        deadline = time.monotonic() + self.link_deadline_s
        while time.monotonic() < deadline:
            try:
                event = self.link.events.get(timeout=0.1)  # not _next_event: it would hand back the deferred
            except queue.Empty:
                continue
            if isinstance(event, Purged):
                self._on(event)
                return event.count
            self._deferred.append(event)
        raise Void("the dealing machine did not report what it purged; check the reject tray and the path")

    def _stalled(self) -> None:
        down = self._link_down_since
        if down is not None:
            if time.monotonic() - down > self.link_deadline_s:
                raise LinkLost(
                    f"lost contact with the dealing machine for {self.link_deadline_s:g} s: check the cable; "
                    "the cards dealt so far are in their slots"
                )
            return
        if time.monotonic() - self._last_progress > self.no_progress_s:
            raise Void(f"the dealing machine made no progress for {self.no_progress_s:g} s; check it and deal again")
        status = self._command(GetStatus(self.link.next_cmd_id()))
        if isinstance(status, Status) and status.state == State.PAUSED and status.fault in (0, FaultCode.LEASE_EXPIRED):
            self._command(Resume(self.link.next_cmd_id(), self._plan_id))

    # --- commands and faults ---------------------------------------------------------------------

    def _command(self, msg: Message, must: bool = False) -> Reply | Status | None:
        """Send a command and wait for its reply, across reconnections, up to the link's deadline.

        The channel retransmits the same message (same cmd_id) until it is acknowledged, in this
        session or the next: the machine answers a repeat from its reply cache or, for ROUTE, by
        read index, and never acts twice. The wait is the same whether the link stayed up or not:
        on a noisy line a reply takes many tries while the link never quite drops."""
        try:
            reply = self.link.request(msg, self.link_deadline_s)
        except LinkLost:
            if must:
                raise
            return None  # the machine rebooted: the reset procedure decides what to do
        if must and isinstance(reply, Reply) and reply.result not in (Result.OK, Result.OK_ALREADY):
            raise ProtocolError(f"the dealing machine refused {type(msg).__name__}: {Result(reply.result).name}")
        return reply

    def _clear(self, code: FaultCode) -> None:
        for _ in range(3):
            reply = self._command(ClearFault(self.link.next_cmd_id(), code))
            if isinstance(reply, Reply) and reply.result in (Result.OK, Result.OK_ALREADY):
                return
            self._attend(code.name.lower())
        raise Void(f"the machine still reports {code.name.lower().replace('_', ' ')} after three tries")

    def _raise(self, code: str, reason: str | None = None, remedy: str | None = None, operator: bool = False) -> None:
        default_reason, default_remedy = REMEDIES.get(code, (code, ""))
        self.stats.faults += 1
        fault = FaultRaised(code, reason or default_reason, remedy or default_remedy, operator)
        log.info("%s: %s", fault.reason, fault.remedy)
        self.observer(fault)

    def _attend(self, code: str, reason: str | None = None, remedy: str | None = None, fatal: bool = True) -> bool:
        default_reason, default_remedy = REMEDIES.get(code, (code, ""))
        reason, remedy = reason or default_reason, remedy or default_remedy
        self._raise(code, reason, remedy, operator=True)
        done = self.operator.attend(code, reason, remedy)
        if not done and fatal:
            raise Void(f"{reason}; the operator could not {remedy}")
        return done

    # --- the end ---------------------------------------------------------------------------------

    def _wind_down(self) -> None:
        """Void: ABORT, let the card in flight land, and wait until the machine is idle and every
        routed card is accounted for. On a noisy line the events that say where a card went take
        many tries, so the wait is the link's deadline, counted once the machine took the ABORT.
        Events that came while the deal waited on a command are read first, and last whatever
        happened: a delivery the host already heard of is never left out of the result."""
        try:
            self._drain()
            self._command(Abort(self.link.next_cmd_id(), self._plan_id))
            deadline = time.monotonic() + self.link_deadline_s
            while time.monotonic() < deadline:
                status = self._command(GetStatus(self.link.next_cmd_id()))
                self._drain()
                if isinstance(status, Status) and status.state == State.IDLE and not self._routed:
                    return
                time.sleep(0.02)
        except (BridgeError, Void) as exc:
            log.warning("winding down after a void: %s", exc)
            self._drain(route=False)  # the link is failing: read what came, ask nothing more

    def _drain(self, route: bool = True) -> None:
        while True:
            event = self._next_event(0.0)
            if event is None:
                return
            if isinstance(event, CardRead):  # fed before ABORT arrived: it goes to the reject tray
                if route and self._fresh(event):  # a replayed read was routed already: keep its slot
                    self._routed[event.read_idx] = (event.card, REJECT)
                    self._command(Route(self.link.next_cmd_id(), self._plan_id, event.read_idx, REJECT))
            elif isinstance(event, CardDelivered | CardRejected | Purged):
                try:
                    self._on(event)
                except (BridgeError, Void) as exc:
                    log.warning("while winding down: %s", exc)

    def _unconfirmed(self) -> str:
        """Cards routed to a slot whose delivery the machine never confirmed before the link gave
        out: the host cannot know whether they left the path, so it names them instead of guessing."""
        doubtful = [(card, dest) for card, dest in self._routed.values() if dest != REJECT]
        if not doubtful:
            return ""
        where = "; ".join(
            f"{self.plan.names.name(card)}, routed to {'the rest' if dest == REST else f'slot {dest}'}"
            for card, dest in doubtful
        )
        which = "this card" if len(doubtful) == 1 else "these cards"
        return (
            f"; the machine never confirmed where {which} went: {where} (look there, in the reject tray, in the path)"
        )

    def _result(self, status: str, message: str, started: float) -> DealResult:
        s = self.stats
        s.retransmissions = self.link.stats.retransmissions - self._base_retx
        sent = self.link.stats.reliable_sent - self._base_sent
        s.retransmit_rate = s.retransmissions / sent if sent else 0.0
        s.resets = self.link.resets - self._base_resets
        s.reconnects = self.link.reconnects - self._base_reconnects
        s.seconds = time.monotonic() - started
        seats = [self._held.get(i, []) for i in range(len(self.plan.seats))]
        return DealResult(status, message, seats, self._held.get(REST, []), s)
