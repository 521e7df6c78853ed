"""What a deal tells its caller: cards dealt, faults with a reason and a remedy, the result.

These values cross the bridge's boundary (to the controller, the command line, the web page),
so they are plain dataclasses holding plain values: card ids and seat numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

_LATER = "when the hopper runs empty and the host asks for the reject tray"
REMEDIES = {  # fault code -> (reason, remedy), in words for the person at the table
    "jam": (
        "jam at the exit",
        "open the cover, take out the card, put it back in the hopper, close the cover and press resume",
    ),
    "double_feed": ("two cards were fed at once and went to the reject tray", f"put them back in the hopper {_LATER}"),
    "unreadable": ("a card could not be read and went to the reject tray", f"put it back in the hopper {_LATER}"),
    "estop": ("the emergency stop was pressed", "make the machine safe, release the emergency stop and press resume"),
    "reset": (
        "the dealing machine restarted in the middle of the deal",
        "nothing to do: the host purges the path and carries on",
    ),
    "link": ("lost the serial link to the dealing machine", "check the USB cable; the deal carries on when it is back"),
    "lease": ("the machine paused because it lost contact with the host", "nothing to do: the host resumes it"),
}


@dataclass(frozen=True)
class CardDealt:
    card: int
    seat: int | None  # None: the rest
    read_idx: int
    dealt: int
    total: int


@dataclass(frozen=True)
class FaultRaised:
    code: str
    reason: str
    remedy: str
    needs_operator: bool = False


class Operator(Protocol):
    """The person at the table: does what the remedy says; False when they cannot."""

    def attend(self, code: str, reason: str, remedy: str) -> bool: ...


@dataclass
class DealStats:
    retransmissions: int = 0
    retransmit_rate: float = 0.0
    resets: int = 0
    reconnects: int = 0
    faults: int = 0
    cards_read: int = 0
    seconds: float = 0.0


@dataclass
class DealResult:
    status: str  # "complete" or "void"
    message: str
    hands: list[list[int]]
    rest: list[int]
    stats: DealStats = field(default_factory=DealStats)
