"""The dealing machine's firmware, simulated: its side of dealer link v1 over a real pty.

Physical model: a hopper holding a stack of cards (top first), a feed roller that pulls one
card into the path, an index reader, a turret that turns one step per slot, a throw wheel and
an exit sensor, and eight slots (seats 0-5, 6 the rest, 7 the reject tray) that hold exactly
what was thrown into them. Each physical card has its own identity (``uid``), so the two
identical copies of a Fifty-Six card are still two cards, and the audit can prove that no
card was delivered twice. Mechanical steps take their time divided by ``speed`` (real time),
so tests run fast without sleeping for mechanics.

Faults are counted by feed (the k-th card fed, 1-based, re-feeds included) and fire once each,
so a seed and a fault list always play out the same way. What survives a microcontroller
reset is only what is physical (cards, slots); the plan, counters and event ring are lost.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import OrderedDict
from typing import Any

from firmware_bridge.channel import Channel
from firmware_bridge.framing import Decoder
from firmware_bridge.protocol import (
    NO_READ,
    REJECT,
    UNREADABLE,
    CardDelivered,
    CardRead,
    CardRejected,
    DoubleFeed,
    EStop,
    Fault,
    FaultCode,
    HopperEmpty,
    Jam,
    Message,
    RejectReason,
    State,
)
from simulators.dealer_commands import SLOTS, CommandHandlers
from simulators.dealer_model import DESIGN, NO_FAULTS, Audit, MachineFaults, PhysicalCard, Timings
from simulators.serial_link import PtyLink

log = logging.getLogger(__name__)

RING = 16  # events the firmware may hold unacknowledged before it stops feeding


class DealerFirmware(CommandHandlers):
    """The simulated machine: call :meth:`start`, open ``link.path`` from the host, :meth:`stop`."""

    def __init__(
        self,
        stack: list[int],
        link: PtyLink,
        timings: Timings = DESIGN,
        speed: float = 1.0,
        faults: MachineFaults = NO_FAULTS,
        seed: int = 0,
        lease_s: float = 1.0,
    ) -> None:
        self.link = link
        self.timings = timings
        self.speed = speed
        self.faults = faults
        self.lease_s = lease_s
        self._rng = random.Random(seed)
        cards = [PhysicalCard(uid, card) for uid, card in enumerate(stack)]
        split = len(cards) if faults.empty_at is None else max(0, faults.empty_at - 1)
        self.hopper, self.operator_hand = cards[:split], cards[split:]
        self.path: list[PhysicalCard] = []
        self.slots: list[list[PhysicalCard]] = [[] for _ in range(SLOTS)]
        self.estop_pressed = False
        self.audit = Audit()
        self.mechanical_s = 0.0  # mechanical time at speed 1, for the benchmark
        self._reset_variant = self._rng.choice(("exit", "path"))
        self._fired: set[str] = set()
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._boot()

    # --- life ------------------------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="dealer-firmware", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.link.close()

    def _boot(self) -> None:
        """Power on: everything volatile starts afresh; the cards stay where they are."""
        self.boot_id = self._rng.getrandbits(32)
        self.channel = Channel(name="firmware")
        self._decoder = Decoder()
        self._session = False
        self._last_hello = 0.0
        self.state = State.IDLE
        self.fault = FaultCode.NONE
        self.plan_id = 0
        self.next_read = 0
        self._staged: int | None = None  # read_idx of the card in the path
        self._path_feed = 0  # which feed put the card in the path
        self._kind = "card"  # "card", "unreadable" or "double": what the path holds
        self._stage = "idle"
        self._busy_until = 0.0
        self._dest = REJECT
        self._turret = REJECT  # the gate rests on the reject tray
        self._event = 0
        self._replies: OrderedDict[int, Message] = OrderedDict()
        self._pause_requested = self._abort_requested = False
        self._last_rx = time.monotonic()
        self._reboot_in_path = False
        self._chain = False

    def _reboot(self) -> None:
        log.info("firmware resets (boot %08x)", self.boot_id)
        self.audit.resets += 1
        self._boot()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.link.wait(self._wait_s())
                with self._lock:
                    self._step()
            except Exception:  # a thread never lets an exception escape: log it and carry on
                log.exception("firmware loop")
                time.sleep(0.01)

    def _wait_s(self) -> float:
        # Only a running mechanical step sets a deadline: waiting at the reader for a route
        # must sleep in select, not spin (a spinning thread starves the host's threads of the GIL).
        waits = [0.02]
        remaining = self._busy_until - time.monotonic()
        if remaining > 0 and self.state == State.DEALING and self._stage in ("feeding", "turning", "throwing"):
            waits.append(remaining)
        timeout = self.channel.next_timeout()
        if timeout is not None:
            waits.append(timeout)
        return max(0.0, min(waits))

    def _step(self) -> None:
        damaged = self._decoder.bad_frames
        for body in self._decoder.feed(self.link.read()):
            self._last_rx = time.monotonic()
            msg = self.channel.receive(body)
            if msg is not None:
                self._handle(msg)
        if self._decoder.bad_frames > damaged and self._session:
            self.channel.damaged()
        self._advance()
        self._announce()
        self.link.write(self.channel.transmit())

    def _announce(self) -> None:
        # Until a host opens a session, say HELLO (nonce 0) four times a second: after a
        # reset this is how the host learns of the new boot without waiting for a timeout.
        now = time.monotonic()
        if not self._session and now - self._last_hello >= 0.25:
            self._last_hello = now
            self.channel.send(self._hello(0))

    # --- time ------------------------------------------------------------------------------------

    def _busy(self, ms: float, chained: bool = True) -> None:
        """Start a mechanical step of ``ms``. A step that follows another directly starts when
        that one ended, not when this thread got round to it: the machine does not wait for
        the simulator's scheduling. A step started by a command starts now."""
        self.mechanical_s += ms / 1000
        now = time.monotonic()
        start = max(self._busy_until, now - 0.005) if chained else now
        self._busy_until = start + (ms / 1000 / self.speed if self.speed > 0 else 0.0)

    def _fires(self, name: str, at: int | None, k: int) -> bool:
        if at is None or at != k or name in self._fired:
            return False
        self._fired.add(name)
        return True

    # --- mechanics -----------------------------------------------------------------------------

    def _advance(self) -> None:
        for _ in range(8):  # a few steps at once when mechanics take no time
            if self.state != State.DEALING or time.monotonic() < self._busy_until:
                return
            stage = self._stage
            if stage == "feed":
                self._feed()
            elif stage == "feeding":
                self._read()
            elif stage == "turning":
                self._turned()
            elif stage == "throwing":
                self._exit()
            if self._stage == stage:
                return

    def _feed(self) -> None:
        if self._pause_requested:
            self._pause_requested = False
            self.state = State.PAUSED
            return
        if time.monotonic() - self._last_rx > self.lease_s:
            self.state, self.fault = State.PAUSED, FaultCode.LEASE_EXPIRED
            self._emit(Fault(0, FaultCode.LEASE_EXPIRED, 0))
            return
        if self.channel.backlog() >= RING:
            return  # backpressure: never move a card whose event could not be queued
        if not self.hopper:
            self.state, self.fault = State.PAUSED, FaultCode.HOPPER_EMPTY
            self._emit(HopperEmpty(0, self.plan_id, self.next_read))
            return
        self.audit.feeds += 1
        chained, self._chain = self._chain, False  # a feed after a pause starts when resumed
        k = self._path_feed = self.audit.feeds
        double = len(self.hopper) >= 2 and self._fires("double", self.faults.double_feed_at, k)
        self.path = [self.hopper.pop(0) for _ in range(2 if double else 1)]
        self._kind = (
            "double" if double else "unreadable" if self._fires("unreadable", self.faults.unreadable_at, k) else "card"
        )
        self._stage = "feeding"
        self._busy(self.timings.feed_read_ms, chained)

    def _read(self) -> None:
        self._staged = self.next_read
        self.next_read += 1
        if self._kind != "card":  # nothing to ask the host: the gate stays on the reject tray
            self._turn(REJECT)
            return
        self._emit(CardRead(0, self.plan_id, self._staged, self.path[0].card))
        self._stage = "await_route"

    def _turn(self, dest: int, chained: bool = True) -> None:
        steps = abs(dest - self._turret)
        self._turret = self._dest = dest
        self._stage = "turning"
        self._busy(steps * self.timings.turret_step_ms, chained)

    def _turned(self) -> None:
        if self._reboot_in_path and self._dest != REJECT:
            self._reboot()  # brown-out with the card in the path: it stays there
            return
        if self._fires("estop", self.faults.estop_at, self._path_feed):
            self.estop_pressed = True
            self.state, self.fault = State.ESTOP, FaultCode.ESTOP
            self._emit(EStop(0, 1))
            return
        self._stage = "throwing"
        self._busy(self.timings.throw_ms)

    def _exit(self) -> None:
        if self._fires("jam", self.faults.jam_at, self._path_feed):
            self.state, self.fault = State.FAULT, FaultCode.JAM
            self._emit(Jam(0, self.plan_id, self._staged if self._staged is not None else NO_READ, self.path[0].card))
            return
        dest, cards, read_idx = self._dest, self.path, self._staged
        self.slots[dest].extend(cards)
        self.path, self._staged = [], None
        if dest != REJECT:
            for c in cards:
                self.audit.deliveries[c.uid] += 1
            delivered = sum(len(s) for s in self.slots[:REJECT])
            if self.faults.reset_after == delivered and "reset" not in self._fired:
                self._fired.add("reset")
                if self._reset_variant == "exit":
                    self._reboot()  # the card left, but its event dies with the RAM
                    return
                self._reboot_in_path = True
            if self._fires("vanish", self.faults.vanish_at, delivered):
                self.link.vanish(self.faults.vanish_s)
        self._report_exit(dest, cards, read_idx)
        if self._abort_requested:
            self._idle()
            return
        self._stage, self._chain = "feed", True

    def _report_exit(self, dest: int, cards: list[PhysicalCard], read_idx: int | None) -> None:
        idx = NO_READ if read_idx is None else read_idx
        if self._kind == "double":
            self._emit(DoubleFeed(0, self.plan_id, len(cards)))
        elif self._kind == "unreadable":
            self._emit(CardRejected(0, self.plan_id, idx, UNREADABLE, RejectReason.UNREADABLE))
        elif dest == REJECT:
            reason = RejectReason.ABORT if self._abort_requested else RejectReason.HOST
            self._emit(CardRejected(0, self.plan_id, idx, cards[0].card, reason))
        else:
            self._emit(CardDelivered(0, self.plan_id, idx, cards[0].card, dest, len(self.slots[dest])))

    def _idle(self) -> None:
        self.state, self.fault, self.plan_id = State.IDLE, FaultCode.NONE, 0
        self._stage, self._abort_requested, self._pause_requested = "idle", False, False

    def _emit(self, event: Message) -> None:
        self._event += 1
        self.channel.send(type(event)(self._event, *list(_values(event))[1:]))

    # --- the operator's hands (called from other threads) ----------------------------------------

    def clear_jam(self) -> int:
        """Open the cover, take the jammed card out, put it back in the hopper."""
        with self._lock:
            cards, self.path = self.path, []
            self.hopper.extend(cards)
            return len(cards)

    def reload(self) -> int:
        """Put the reject tray and any cards held back into the hopper; how many went in."""
        with self._lock:
            cards = self.slots[REJECT] + self.operator_hand
            self.slots[REJECT], self.operator_hand = [], []
            self.hopper.extend(cards)
            return len(cards)

    def gather(self) -> int:
        """Collect every slot back into the hopper for the next deal; how many cards."""
        with self._lock:
            cards = [c for s in self.slots for c in s]
            self.slots = [[] for _ in range(SLOTS)]
            self.hopper.extend(cards)
            self.audit.deliveries.clear()  # a new deal: each card may be delivered once again
            return len(cards)

    def release_estop(self) -> None:
        with self._lock:
            if self.estop_pressed:
                self.estop_pressed = False
                self._emit(EStop(0, 0))

    def snapshot(self) -> dict[str, Any]:
        """What the machine physically holds: card ids per slot, the hopper and the path."""
        with self._lock:
            return {
                "slots": [[c.card for c in s] for s in self.slots],
                "hopper": [c.card for c in self.hopper],
                "path": [c.card for c in self.path],
                "operator": [c.card for c in self.operator_hand],
                "uids": sorted(c.uid for c in self._everywhere()),
            }

    def _everywhere(self) -> list[PhysicalCard]:
        return [*self.hopper, *self.path, *self.operator_hand, *(c for s in self.slots for c in s)]


def _values(msg: Message) -> tuple[Any, ...]:
    from dataclasses import astuple

    return astuple(msg)  # type: ignore[call-overload, no-any-return]
