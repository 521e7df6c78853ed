"""The serial link to the machine: port, reader thread, handshake, retransmission, reconnection.

One daemon thread owns the port. It reads, decodes frames, feeds the :class:`Channel`,
answers the handshake, sends heartbeats (the machine's host-alive lease), and when the port
fails (unplugged, device gone) it closes it and keeps trying to reopen the same URL. Callers
send commands with :meth:`Link.request`, which waits for the reply to that ``cmd_id`` with a
deadline, and read machine events from :attr:`Link.events`, a queue that also carries
:class:`LinkDown` and :class:`LinkUp` notices. Nothing here ever blocks forever.
"""

from __future__ import annotations

import errno
import itertools
import logging
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import serial

from firmware_bridge.channel import Channel, ChannelStats
from firmware_bridge.errors import LinkLost, PortUnavailable, ProtocolError, ReplyTimeout
from firmware_bridge.framing import Decoder
from firmware_bridge.protocol import (
    PROTOCOL_VERSION,
    SCHEMA,
    Heartbeat,
    Hello,
    HelloReq,
    Message,
    Reply,
    Status,
    decode,
)

log = logging.getLogger(__name__)

# The handshake is retried like a reliable frame's first retransmission (docs/protocol.md,
# sections 4 and 6), but without backing off: a HelloReq and its Hello make a 63-byte round trip,
# which a noisy line loses far more often than a command, and only many tries get one through.
HELLO_RETRY_S = 0.05
HEARTBEAT_EVERY_S = 0.2


@dataclass(frozen=True)
class LinkDown:
    """The port failed or stopped answering; the link is trying to reopen it."""

    reason: str


@dataclass(frozen=True)
class LinkUp:
    """A session is open. ``reset``: the machine rebooted since the last session (new boot id)."""

    hello: Hello
    reset: bool


def is_device_path(url: str) -> bool:
    """A device file (``/dev/ttyUSB0``, ``COM3``), not a pyserial URL (``loop://``, ``rfc2217://``)."""
    return "://" not in url


def why_not_open(url: str, exc: BaseException) -> str:
    """What a person must do about a port that would not open, in words."""
    number = getattr(exc, "errno", None)
    text = str(exc)
    if number == errno.ENOENT or "No such file" in text:
        return (
            f"no such port {url}: is the dealing machine plugged in and switched on? "
            "(plugged-in serial devices are listed in /dev/serial/by-id)"
        )
    if number == errno.EACCES or "Permission denied" in text:
        return (
            f"permission denied on {url}: the user running croupier must be in the 'dialout' group "
            "(sudo usermod -aG dialout $USER, then log out and in again)"
        )
    if number in (errno.EBUSY, errno.EAGAIN) or "exclusively lock" in text or "busy" in text.lower():
        return f"{url} is busy: another program has it open (fuser -v {url} names it)"
    return f"cannot open {url}: {text}"


class Link:
    """A reliable, self-healing connection to the dealing machine at a pyserial URL."""

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = 115200,
        lost_after_s: float = 3.0,
        open_port: Callable[..., Any] = serial.serial_for_url,
    ) -> None:
        self.url = url
        self.baudrate = baudrate
        self.lost_after_s = lost_after_s
        self._open_port = open_port
        self.events: queue.Queue[Any] = queue.Queue()
        self.channel = Channel()
        self.hello: Hello | None = None
        self.reconnects = 0
        self.resets = 0
        self._epochs = itertools.cycle(range(1, 256))
        self._cmd_ids = itertools.count(secrets.randbelow(1 << 30) + 1)
        self._port: Any = None
        self._decoder = Decoder()
        self._lock = threading.RLock()
        self._waiters: dict[int, tuple[threading.Event, list[Message]]] = {}
        self._stop = threading.Event()
        self._up = threading.Event()
        self._fatal: str | None = None
        self._nonce = 0
        self._epoch = 0
        self._last_hello_req = self._last_tx = 0.0
        self._bad_before_handshake = 0
        self._thread: threading.Thread | None = None

    # --- life ------------------------------------------------------------------------------------

    def open(self, timeout_s: float = 5.0) -> Hello:
        """Start the link and wait for the first session; raise LinkLost if none comes,
        and PortUnavailable at once when the port cannot be opened at all (no such port,
        permission denied, another program has it)."""
        self.start()
        try:
            return self.wait_up(timeout_s)
        except LinkLost:
            self.close()
            raise

    def start(self) -> None:
        """Open the port (PortUnavailable at once if it cannot be) and start the port thread,
        which repeats the handshake until the machine answers; :meth:`wait_up` waits for it."""
        self._first_open()
        self._thread = threading.Thread(target=self._run, name=f"link {self.url}", daemon=True)
        self._thread.start()

    def wait_up(self, timeout_s: float) -> Hello:
        """Wait for a session; LinkLost if none opens in ``timeout_s`` or the machine speaks
        another protocol. The link keeps trying after a timeout: only :meth:`close` stops it."""
        deadline = time.monotonic() + timeout_s
        while not self._up.wait(0.05) and self._fatal is None and time.monotonic() < deadline:
            pass
        if self._fatal is not None:
            raise LinkLost(self._fatal)
        hello = self.hello
        if not self._up.is_set() or hello is None:
            raise LinkLost(self._no_session(timeout_s))
        return hello

    def _no_session(self, timeout_s: float) -> str:
        # Damaged frames tell a noisy line from a silent one: the remedies differ.
        damaged = self._decoder.bad_frames - self._bad_before_handshake
        if damaged > 0:
            return (
                f"no answer from the dealing machine at {self.url} in {timeout_s:g} s: "
                f"{damaged} frame{'s' * (damaged != 1)} arrived damaged, the serial line is too noisy "
                "(check the cable and its connectors)"
            )
        return f"no answer from the dealing machine at {self.url} in {timeout_s:g} s"

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        self._close_port()

    @property
    def is_up(self) -> bool:
        return self._up.is_set()

    @property
    def stats(self) -> ChannelStats:
        return self.channel.stats

    def next_cmd_id(self) -> int:
        return next(self._cmd_ids) & 0xFFFFFFFF

    # --- commands --------------------------------------------------------------------------------

    def request(self, msg: Message, timeout_s: float = 5.0) -> Reply | Status:
        """Send a command and wait for its reply. The channel retransmits it, with the same
        ``cmd_id``, across lost frames and reconnections, so it runs at most once."""
        cmd_id = msg.cmd_id  # type: ignore[attr-defined]
        done: tuple[threading.Event, list[Message]] = (threading.Event(), [])
        with self._lock:
            self._waiters[cmd_id] = done
            self.channel.send(msg)
            self._flush()
        try:
            if not done[0].wait(timeout_s):
                raise ReplyTimeout(f"the dealing machine did not answer {type(msg).__name__} in {timeout_s:g} s")
            if not done[1]:
                raise LinkLost(f"{type(msg).__name__} was dropped: the dealing machine restarted")
            reply = done[1][0]
            assert isinstance(reply, Reply | Status)
            return reply
        finally:
            with self._lock:
                self._waiters.pop(cmd_id, None)

    def send(self, msg: Message) -> None:
        """Send without waiting (STOP, heartbeats)."""
        with self._lock:
            self.channel.send(msg)
            self._flush()

    # --- the port thread -------------------------------------------------------------------------

    def _run(self) -> None:
        backoff = 0.05
        while not self._stop.is_set():
            try:
                if self._port is None:
                    if not self._reopen():
                        self._stop.wait(backoff)
                        backoff = min(1.0, backoff * 2)
                        continue
                    backoff = 0.05
                self._service()
            except (serial.SerialException, OSError) as exc:
                self._port_failed(f"the port failed: {exc}")
            except Exception:  # never let the thread die: log, drop the port, start again
                log.exception("link thread")
                self._port_failed("internal error in the link thread")

    def _first_open(self) -> None:
        """Open the port once before the thread starts: a port that cannot be opened now is
        named with its cause, where waiting for it to answer would say only "no answer"."""
        try:
            port = self._opened()
        except (serial.SerialException, OSError, ValueError) as exc:
            raise PortUnavailable(why_not_open(self.url, exc)) from exc
        self._adopt(port)

    def _opened(self) -> Any:
        # A device is locked for this process alone: a second program on the same port would
        # take half of the machine's bytes each.
        lock = {"exclusive": True} if is_device_path(self.url) else {}
        return self._open_port(self.url, baudrate=self.baudrate, timeout=0.005, write_timeout=1.0, **lock)

    def _reopen(self) -> bool:
        try:
            port = self._opened()
        except (serial.SerialException, OSError, ValueError) as exc:
            log.debug("cannot open %s yet: %s", self.url, exc)
            return False
        self._adopt(port)
        return True

    def _adopt(self, port: Any) -> None:
        port.reset_input_buffer()
        with self._lock:
            self._port = port
            self._decoder = Decoder()
            self._begin_handshake()
        log.info("opened %s", self.url)

    def _begin_handshake(self) -> None:
        self._up.clear()
        self._nonce = secrets.randbits(32) or 1
        self._epoch = next(self._epochs)
        self._last_hello_req = 0.0
        self._bad_before_handshake = self._decoder.bad_frames

    def _service(self) -> None:
        data = self._port.read(max(1, self._port.in_waiting))
        with self._lock:
            damaged = self._decoder.bad_frames
            for body in self._decoder.feed(data):
                msg = self.channel.receive(body) if self._up.is_set() else self._session_frame(body)
                if msg is not None:
                    self._dispatch(msg)
            if self._decoder.bad_frames > damaged and self._up.is_set():
                self.channel.damaged()
            self._keep_alive()
            self._flush()

    def _session_frame(self, body: bytes) -> Message | None:
        """Before the handshake completes, only HELLO counts. Anything else is left
        unacknowledged, so the machine sends it again in the new session: accepting it
        now, when no deal can see it, would acknowledge an event that is then lost."""
        try:
            _, msg = decode(body)
        except ProtocolError:
            return None
        return msg if isinstance(msg, Hello) else None

    def _keep_alive(self) -> None:
        now = time.monotonic()
        if not self._up.is_set():
            if now - self._last_hello_req >= HELLO_RETRY_S:
                self._last_hello_req = now
                self.channel.send(HelloReq(self._nonce, PROTOCOL_VERSION, self._epoch, SCHEMA))
            return
        if now - self._last_tx >= HEARTBEAT_EVERY_S:
            self.channel.send(Heartbeat())
        if self.channel.unacked_age() > self.lost_after_s:
            raise serial.SerialException(f"no acknowledgement for {self.lost_after_s:g} s")

    def _flush(self) -> None:
        if self._port is None:
            return
        out = self.channel.transmit(reliable=self._up.is_set())
        if out:
            self._port.write(out)
            self._last_tx = time.monotonic()

    def _dispatch(self, msg: Message) -> None:
        if isinstance(msg, Hello):
            self._on_hello(msg)
        elif isinstance(msg, Reply | Status):
            waiter = self._waiters.get(msg.cmd_id)
            if waiter is not None:
                waiter[1].append(msg)
                waiter[0].set()
        elif self._up.is_set():
            self.events.put(msg)

    def _on_hello(self, hello: Hello) -> None:
        if hello.nonce == 0:  # unsolicited: the machine (re)booted and wants a session
            if self._up.is_set() and self.hello is not None and hello.boot_id != self.hello.boot_id:
                self._begin_handshake()
            return
        if hello.nonce != self._nonce or self._up.is_set():
            return
        if hello.proto_ver != PROTOCOL_VERSION or hello.schema != SCHEMA:
            self._fatal = (
                f"the dealing machine speaks protocol {hello.proto_ver} (schema {hello.schema:08x}); "
                f"this host speaks {PROTOCOL_VERSION} (schema {SCHEMA:08x}): update the firmware or the host"
            )
            log.error(self._fatal)
            self._stop.set()
            raise ProtocolError(self._fatal)
        reset = self.hello is not None and hello.boot_id != self.hello.boot_id
        self.channel.restart(hello.epoch, keep_pending=not reset)
        if reset:
            self.resets += 1
            self._fail_waiters()
        first = self.hello is None
        self.hello = hello
        self._up.set()
        if not first:  # the first session is what open() returns, not news for a deal in progress
            self.events.put(LinkUp(hello, reset))

    def _fail_waiters(self) -> None:
        # Commands sent to the previous boot are void: the caller re-decides, nothing is re-sent blindly.
        self.channel.drop_pending()
        for event, _ in self._waiters.values():
            event.set()

    def _port_failed(self, reason: str) -> None:
        log.warning("%s: %s", self.url, reason)
        was_up = self._up.is_set()
        self._close_port()
        self._up.clear()
        if was_up:
            self.reconnects += 1
            self.events.put(LinkDown(reason))
        self._stop.wait(0.05)

    def _close_port(self) -> None:
        with self._lock:
            port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except Exception:  # closing a vanished port may fail; it is gone either way
                log.debug("closing %s", self.url, exc_info=True)
