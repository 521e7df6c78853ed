"""Errors of the dealing machine's bridge: each names the problem and, where a person can act, the remedy."""

from __future__ import annotations


class BridgeError(Exception):
    """Base of every error raised by :mod:`firmware_bridge`."""


class LinkLost(BridgeError, ConnectionError):
    """The serial port is gone and did not come back in time."""


class PortUnavailable(BridgeError, ConnectionError):
    """The serial port cannot be opened: it does not exist, is not ours to open, or is busy."""


class ReplyTimeout(BridgeError, TimeoutError):
    """The machine did not answer a command in time (the link may still be up)."""


class ProtocolError(BridgeError, ValueError):
    """The machine said something the protocol does not allow (wrong version, bad field)."""


class DeviceFault(BridgeError):
    """The machine reported a fault that stops the deal until a person acts."""

    def __init__(self, code: str, reason: str, remedy: str) -> None:
        super().__init__(f"{reason}: {remedy}")
        self.code = code
        self.reason = reason
        self.remedy = remedy
