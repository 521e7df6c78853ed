"""Telling systemd how the table is: ready, alive (its watchdog), stopping.

systemd's notification protocol is one datagram of ``KEY=value`` lines sent to the unix socket
named by ``$NOTIFY_SOCKET`` (``@name`` is the abstract namespace); a dozen lines of the standard
library, so no dependency. Outside systemd (no ``$NOTIFY_SOCKET``) nothing is sent.

The watchdog (``WatchdogSec=`` in the unit, passed as ``$WATCHDOG_USEC``) is fed only while the
table's controller thread, the single writer, answers: :class:`Watchdog` asks it to run an empty
piece of work every half period, and a controller that does not get to it in that time is not fed
for. systemd then restarts the service (``Restart=on-failure``) and the journal resumes the match.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Protocol

log = logging.getLogger(__name__)


def notify(*assignments: str) -> bool:
    """Send ``READY=1``, ``WATCHDOG=1``, ``STATUS=...``, ``STOPPING=1`` ... to systemd; False when
    not run by systemd or the socket refuses (the table runs on either way)."""
    address = os.environ.get("NOTIFY_SOCKET", "")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall("\n".join(assignments).encode("utf-8"))
    except OSError as exc:
        log.warning("could not notify systemd (%s): %s", ", ".join(assignments), exc)
        return False
    return True


def watchdog_period_s() -> float | None:
    """How often to feed systemd's watchdog (half its timeout, as sd_watchdog_enabled advises);
    None when it is off or meant for another process."""
    usec, pid = os.environ.get("WATCHDOG_USEC", ""), os.environ.get("WATCHDOG_PID", "")
    if pid and pid != str(os.getpid()):
        return None
    try:
        timeout_us = int(usec)
    except ValueError:
        return None
    return timeout_us / 2_000_000 if timeout_us > 0 else None


class Inbox(Protocol):
    def run(self, work: Callable[[], Any]) -> Future[Any]: ...


def answers(table: Inbox) -> Callable[[float], bool]:
    """A probe of the table's controller thread: whether it runs an empty piece of work within the
    time given. A probe it has not got to yet is waited for again, not queued twice."""
    pending: Future[Any] | None = None

    def probe(timeout_s: float) -> bool:
        nonlocal pending
        if pending is None or pending.done():
            pending = table.run(lambda: None)
        try:
            pending.result(timeout_s)
        except FutureTimeout:
            return False
        return True

    return probe


class Watchdog:
    """Feeds systemd's watchdog every ``period_s`` while ``alive`` says the table answers."""

    def __init__(self, alive: Callable[[float], bool], period_s: float, send: Callable[..., bool] = notify) -> None:
        self.alive, self.period_s, self.send = alive, period_s, send
        self.fed = self.missed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._feed, name="watchdog", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _feed(self) -> None:
        late = 0  # probes missed in a row
        while not self._stop.is_set():
            if self.alive(self.period_s):
                self.fed += 1
                self.send("WATCHDOG=1", *(["STATUS=the table's controller answers again"] if late else []))
                late = 0
                self._stop.wait(self.period_s)
            else:  # the probe has already waited the period
                self.missed, late = self.missed + 1, late + 1
                self.send(f"STATUS=the table's controller has not answered for {late * self.period_s:g} s")
