"""Reliable delivery over a lossy byte stream, without I/O (sans-IO, driven by a clock).

Both ends use the same :class:`Channel`: the host's link thread and the simulated firmware.
One reliable frame is in flight per direction (window 1: a card takes ~100 ms, a frame ~2 ms,
so a wider window buys nothing and would complicate resume). The receiver accepts exactly the
next sequence number, drops and re-acknowledges the previous one, and piggybacks its
cumulative ack on every frame it sends. The retransmission timeout adapts to the measured
round trip (RFC 6298 estimator, Karn's rule) and backs off exponentially.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from firmware_bridge.errors import ProtocolError
from firmware_bridge.framing import encode_frame
from firmware_bridge.protocol import FLAG_NACK, FLAG_RETRANSMIT, Ack, Hello, HelloReq, Message, decode, encode

log = logging.getLogger(__name__)
wire = logging.getLogger("firmware_bridge.wire")  # serial traffic, off by default

SESSION_TYPES = (Hello, HelloReq)  # accepted whatever their epoch: they set the epoch up


@dataclass
class ChannelStats:
    frames_sent: int = 0
    reliable_sent: int = 0  # first transmissions of reliable frames
    retransmissions: int = 0
    frames_received: int = 0
    duplicates: int = 0
    rejected: int = 0  # decoded but refused: stale epoch, bad version, unknown type

    def retransmit_rate(self) -> float:
        """Retransmissions per reliable frame: the link's health figure (0 on a clean line)."""
        return self.retransmissions / self.reliable_sent if self.reliable_sent else 0.0


@dataclass
class _InFlight:
    msg: Message
    seq: int
    first_sent: float
    deadline: float
    tries: int


def _next(seq: int) -> int:
    return 1 if seq >= 0xFFFF else seq + 1  # 0 means "none", so sequence numbers skip it


def _prev(seq: int) -> int:
    return 0xFFFF if seq <= 1 else seq - 1


class Channel:
    """Sequence, acknowledgement and retransmission for one end of the link."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        rto_initial_s: float = 0.05,
        rto_min_s: float = 0.01,
        rto_max_s: float = 1.0,
        name: str = "host",
        ack_delay_s: float = 0.002,
    ) -> None:
        self.clock = clock
        self.name = name
        self.ack_delay_s = ack_delay_s  # a bare ACK waits this long for a reply to ride on
        self.stats = ChannelStats()
        self._rto_initial, self._rto_min, self._rto_max = rto_initial_s, rto_min_s, rto_max_s
        self._srtt: float | None = None
        self._rttvar = 0.0
        self.epoch = 0
        self._pending: deque[Message] = deque()
        self._unreliable: deque[Message] = deque()
        self._flight: _InFlight | None = None
        self.restart(0, keep_pending=False)

    # --- session ------------------------------------------------------------------------------

    def restart(self, epoch: int, keep_pending: bool = True) -> None:
        """Start a new session: sequence numbers restart; unacked messages are re-sent in it."""
        self.epoch = epoch
        self._tx_seq = 0
        self._rx_last = 0  # last accepted peer sequence number (0: none yet)
        self._need_ack = False
        self._ack_due = 0.0
        self._need_nack = False
        if self._flight is not None and keep_pending:
            self._pending.appendleft(self._flight.msg)
        self._flight = None
        if not keep_pending:
            self._pending.clear()
        self._unreliable.clear()

    def drop_pending(self) -> list[Message]:
        """Forget unsent and unacked messages (after the peer rebooted); return them."""
        dropped = ([self._flight.msg] if self._flight else []) + list(self._pending)
        self._flight = None
        self._pending.clear()
        return dropped

    # --- sending ------------------------------------------------------------------------------

    def send(self, msg: Message) -> None:
        (self._pending if msg.RELIABLE else self._unreliable).append(msg)

    def backlog(self) -> int:
        """Reliable messages not yet acknowledged (the firmware's event ring fill)."""
        return len(self._pending) + (self._flight is not None)

    def unacked_age(self) -> float:
        """Seconds the oldest unacknowledged frame has waited (0 if none)."""
        return self.clock() - self._flight.first_sent if self._flight else 0.0

    def next_timeout(self) -> float | None:
        """Seconds until a retransmission is due, or None if nothing waits for an ack."""
        due = [self._flight.deadline] if self._flight is not None else []
        if self._need_ack:
            due.append(self._ack_due)
        return max(0.0, min(due) - self.clock()) if due else None

    def transmit(self, reliable: bool = True) -> bytes:
        """Every frame due now, concatenated and ready for the wire (b"" if none).

        ``reliable=False`` holds reliable frames back (no session yet: they would be dropped)."""
        now = self.clock()
        out = bytearray()
        while self._unreliable:
            out += self._frame(self._unreliable.popleft(), 0, 0)
        if not reliable:
            pass
        elif self._flight is None and self._pending:
            self._tx_seq = _next(self._tx_seq)
            msg = self._pending.popleft()
            self._flight = _InFlight(msg, self._tx_seq, now, now + self._rto(1), 1)
            self.stats.reliable_sent += 1
            out += self._frame(msg, self._tx_seq, 0)
        elif self._flight is not None and now >= self._flight.deadline:
            f = self._flight
            f.tries += 1
            f.deadline = now + self._rto(f.tries)
            self.stats.retransmissions += 1
            out += self._frame(f.msg, f.seq, FLAG_RETRANSMIT)
        if self._need_nack:
            self._need_nack = False
            out += self._frame(Ack(), 0, FLAG_NACK)
        elif self._need_ack and now >= self._ack_due:
            out += self._frame(Ack(), 0, 0)
        return bytes(out)

    def damaged(self) -> None:
        """The decoder dropped a damaged frame: ask the peer to resend at once (a NACK).

        Without it every lost frame costs a full timeout; with it, about one round trip.
        A NACK is only a hint: if it is lost too, the timeout still recovers."""
        self._need_nack = True

    def _frame(self, msg: Message, seq: int, flags: int) -> bytes:
        self._need_ack = False  # every frame carries the cumulative ack
        self.stats.frames_sent += 1
        wire.debug("%s tx %s seq=%d ack=%d", self.name, msg, seq, self._rx_last)
        return encode_frame(encode(msg, self.epoch, seq, self._rx_last, flags))

    def _rto(self, tries: int) -> float:
        base = self._rto_initial if self._srtt is None else max(self._rto_min, self._srtt + 4 * self._rttvar)
        return min(self._rto_max, base * 2 ** (tries - 1))

    # --- receiving ----------------------------------------------------------------------------

    def receive(self, body: bytes) -> Message | None:
        """Take one frame body (CRC already checked); return its message if it is new."""
        try:
            header, msg = decode(body)
        except ProtocolError as exc:
            self.stats.rejected += 1
            log.debug("%s dropped a frame: %s", self.name, exc)
            return None
        self.stats.frames_received += 1
        wire.debug("%s rx %s seq=%d ack=%d epoch=%d", self.name, msg, header.seq, header.ack, header.epoch)
        if isinstance(msg, SESSION_TYPES):
            return msg
        if header.epoch != self.epoch:
            self.stats.rejected += 1
            return None
        self._take_ack(header.ack)
        if header.flags & FLAG_NACK and self._flight is not None:
            self._flight.deadline = min(self._flight.deadline, self.clock())
        if not msg.RELIABLE:
            return None if isinstance(msg, Ack) else msg
        if header.seq == _next(self._rx_last):
            self._rx_last = header.seq
            if not self._need_ack:
                delay = self.ack_delay_s if msg.ANSWERED else 0.0
                self._need_ack, self._ack_due = True, self.clock() + delay
            return msg
        self.stats.duplicates += 1
        self._need_ack, self._ack_due = True, self.clock()  # our ack was lost: acknowledge again now
        return None

    def _take_ack(self, ack: int) -> None:
        f = self._flight
        if f is None or ack != f.seq:
            return
        if f.tries == 1:  # Karn: only unambiguous samples update the estimate
            self._sample(self.clock() - f.first_sent)
        self._flight = None

    def _sample(self, rtt: float) -> None:
        if self._srtt is None:
            self._srtt, self._rttvar = rtt, rtt / 2
            return
        self._rttvar = 0.75 * self._rttvar + 0.25 * abs(self._srtt - rtt)
        self._srtt = 0.875 * self._srtt + 0.125 * rtt
