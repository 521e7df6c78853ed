"""A pseudo-terminal that plays the dealing machine's USB serial port, with a bad line on demand.

The simulated firmware owns the master side; the host opens :attr:`PtyLink.path` with pyserial
exactly as it opens ``/dev/croupier-dealer``. ``path`` is a stable symlink, as udev gives a real
machine, so the port can vanish (master and slave closed, link removed: the host's reads fail)
and come back as a new pty under the same name. Bytes can be dropped or corrupted (one bit
flipped) at a rate, each direction from its own seeded generator, and paced at a baud rate.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import select
import tempfile
import time
import tty
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LineFaults:
    """What the line does to bytes: rates per byte, and a baud rate to pace them (None: no pacing)."""

    corrupt: float = 0.0
    drop: float = 0.0
    baud: int | None = None


CLEAN_LINE = LineFaults()


class PtyLink:
    """The device end of a pty pair, with faults; ``path`` is what the host opens."""

    def __init__(self, faults: LineFaults = CLEAN_LINE, seed: int = 0) -> None:
        self.faults = faults
        self._to_host = random.Random(seed * 2 + 1)
        self._from_host = random.Random(seed * 2 + 2)
        # A TemporaryDirectory, not mkdtemp: its folder goes at the interpreter's exit even when a
        # signal lands before anyone holds this link to close it (a table stopped as it starts).
        self._folder = tempfile.TemporaryDirectory(prefix="croupier-dealer-")
        self.path = os.path.join(self._folder.name, "dealer")
        self._master: int | None = None
        self._slave: int | None = None
        self._down_until: float | None = None
        self._rx_clock = 0.0
        self.bytes_dropped = 0
        self.bytes_corrupted = 0
        self.vanished = 0
        self._open()

    # --- the port appearing and vanishing ----------------------------------------------------

    def _open(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        link = self.path + ".new"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(link)
        os.symlink(os.ttyname(slave), link)
        os.replace(link, self.path)  # atomic: the name points at a whole port or at nothing

    def _close(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None

    def vanish(self, for_s: float) -> None:
        """Unplug the port for ``for_s`` seconds (real time); it then returns under the same path."""
        log.info("port %s vanishes for %.2f s", self.path, for_s)
        self.vanished += 1
        self._close()
        self._down_until = time.monotonic() + for_s

    def _check_return(self) -> bool:
        if self._down_until is not None and time.monotonic() >= self._down_until:
            self._down_until = None
            self._open()
            log.info("port %s is back", self.path)
        return self._master is not None

    def close(self) -> None:
        self._close()
        self._down_until = None
        self._folder.cleanup()

    # --- bytes -----------------------------------------------------------------------------------

    def fileno(self) -> int | None:
        return self._master if self._check_return() else None

    def wait(self, timeout_s: float) -> None:
        """Block until the host sent something or ``timeout_s`` passed."""
        fd = self.fileno()
        if fd is None:
            time.sleep(min(timeout_s, 0.01))
            return
        with contextlib.suppress(OSError, ValueError):
            select.select([fd], [], [], max(0.0, timeout_s))

    def read(self) -> bytes:
        """What the host sent, after the line's faults (b"" if nothing or if the port is down)."""
        fd = self.fileno()
        if fd is None:
            return b""
        try:
            data = os.read(fd, 4096)
        except (BlockingIOError, OSError):
            return b""  # EIO until the host opens the slave side: nothing to read
        self._pace_rx(len(data))
        return self._damage(data, self._from_host)

    def write(self, data: bytes) -> None:
        """Send to the host, through the line's faults; bytes are lost while the port is down."""
        fd = self.fileno()
        if fd is None or not data:
            return
        data = self._damage(data, self._to_host)
        if self.faults.baud:
            time.sleep(len(data) * 10 / self.faults.baud)
        try:
            os.write(fd, data)
        except (BlockingIOError, OSError):
            log.debug("dropped %d bytes: the host is not reading", len(data))

    def _pace_rx(self, n: int) -> None:
        # Bytes at 115200 baud cannot arrive faster than the line carries them.
        if not self.faults.baud or not n:
            return
        now = time.monotonic()
        self._rx_clock = max(self._rx_clock, now) + n * 10 / self.faults.baud
        if self._rx_clock > now:
            time.sleep(self._rx_clock - now)

    def _damage(self, data: bytes, rng: random.Random) -> bytes:
        if not (self.faults.corrupt or self.faults.drop):
            return data
        out = bytearray()
        for byte in data:
            if rng.random() < self.faults.drop:
                self.bytes_dropped += 1
                continue
            if rng.random() < self.faults.corrupt:
                byte ^= 1 << rng.randrange(8)
                self.bytes_corrupted += 1
            out.append(byte)
        return bytes(out)
