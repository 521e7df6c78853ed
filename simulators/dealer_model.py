"""The simulated dealing machine's physical side: timings, faults, cards, audit, and the operator.

Kept apart from :mod:`simulators.dealer_firmware` (the firmware's protocol and state machine) so
that the knobs a test or the command line turns are in one small place.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Timings:
    """Mechanical times in milliseconds (design.md's figures by default)."""

    feed_read_ms: float = 120.0
    turret_step_ms: float = 40.0
    throw_ms: float = 80.0


COMMERCIAL = Timings(feed_read_ms=55.0, turret_step_ms=10.0, throw_ms=30.0)  # ~100 ms a card
ZERO = Timings(0.0, 0.0, 0.0)
DESIGN = Timings()


@dataclass(frozen=True)
class MachineFaults:
    """Faults of the machine, each at the k-th card fed (1-based) or after k cards delivered."""

    jam_at: int | None = None
    double_feed_at: int | None = None
    unreadable_at: int | None = None
    estop_at: int | None = None
    empty_at: int | None = None  # the hopper runs dry before card k: the operator holds the rest
    reset_after: int | None = None
    vanish_at: int | None = None
    vanish_s: float = 0.3


NO_FAULTS = MachineFaults()


@dataclass
class PhysicalCard:
    uid: int
    card: int


@dataclass
class Audit:
    """What the machine did physically, for the property tests."""

    deliveries: Counter[int] = field(default_factory=Counter)  # uid -> times thrown to a seat or the rest
    routes: Counter[tuple[int, int]] = field(default_factory=Counter)  # (plan, read_idx) -> routes executed
    resets: int = 0
    feeds: int = 0


class Hands(Protocol):
    """What the operator can do to the machine (implemented by DealerFirmware)."""

    def clear_jam(self) -> int: ...

    def reload(self) -> int: ...

    def release_estop(self) -> None: ...


class SimulatedOperator:
    """A person at the table who does what the host's remedy says."""

    def __init__(self, machine: Hands) -> None:
        self.machine = machine
        self.actions: list[str] = []

    def attend(self, code: str, reason: str, remedy: str) -> bool:
        """Act on a fault; False when there is nothing this person can do (a card is truly missing)."""
        self.actions.append(code)
        if code == "jam":
            return self.machine.clear_jam() > 0
        if code == "hopper_empty":
            return self.machine.reload() > 0
        if code == "estop":
            self.machine.release_estop()
        return True
