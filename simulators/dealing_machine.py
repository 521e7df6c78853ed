"""A whole simulated dealing machine on a pty, and one deal through it with the real bridge.

This is what ``croupier deal --sim``, the tests and the benchmark use: the firmware simulator
behind a pseudo-terminal, the host's :class:`~firmware_bridge.link.Link` opening the pty's path
with pyserial, and a :class:`SimulatedOperator` following the remedies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from firmware_bridge.dealer import Dealer
from firmware_bridge.events import DealResult
from firmware_bridge.link import Link
from firmware_bridge.plan import DealPlan
from simulators.dealer_firmware import DealerFirmware
from simulators.dealer_model import DESIGN, NO_FAULTS, MachineFaults, SimulatedOperator, Timings
from simulators.serial_link import CLEAN_LINE, LineFaults, PtyLink


@dataclass
class SimulatedDeal:
    """A deal's result with what the machine physically did."""

    result: DealResult
    snapshot: dict[str, Any]
    machine: DealerFirmware
    operator_actions: list[str] = field(default_factory=list)
    line: dict[str, int] = field(default_factory=dict)


class SimulatedMachine:
    """Firmware + pty + host link, as a context manager."""

    def __init__(
        self,
        stack: list[int],
        *,
        seed: int = 0,
        line: LineFaults = CLEAN_LINE,
        faults: MachineFaults = NO_FAULTS,
        timings: Timings = DESIGN,
        speed: float = 1.0,
        lease_s: float = 1.0,
        pty: PtyLink | None = None,
    ) -> None:
        self.pty = pty or PtyLink(line, seed)  # a test may bring a line that loses chosen frames
        self.firmware = DealerFirmware(stack, self.pty, timings, speed, faults, seed, lease_s)
        self.link = Link(self.pty.path)

    def __enter__(self) -> SimulatedMachine:
        """Start the firmware and the host's link. The handshake goes on on the link's thread: a
        deal waits for it (with the deadline of a lost link), and a noisy line that never lets it
        through voids the deal with the reason instead of failing here with no result at all."""
        self.firmware.start()
        try:
            self.link.start()
        except BaseException:
            self.firmware.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.link.close()
        self.firmware.stop()

    def deal(self, plan: DealPlan, observer: Callable[[Any], None] | None = None, **dealer: Any) -> SimulatedDeal:
        operator = SimulatedOperator(self.firmware)
        result = Dealer(self.link, observer=observer, **dealer).deal(plan, operator)
        line = {"bytes_corrupted": self.pty.bytes_corrupted, "bytes_dropped": self.pty.bytes_dropped}
        return SimulatedDeal(result, self.firmware.snapshot(), self.firmware, operator.actions, line)
