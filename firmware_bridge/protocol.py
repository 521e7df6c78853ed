"""The messages of dealer link v1 and their encoding (pure; docs/protocol.md is the reference).

A frame body is an 8-byte header followed by the message's fixed little struct, all fields
big-endian. Every message is a frozen dataclass whose field order *is* the wire order, with
its type code, struct format and whether it travels reliably. The schema hash (CRC-32 of
the whole table) is exchanged in the handshake, so host and firmware built from different
message tables refuse each other instead of misreading fields.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import astuple, dataclass, fields
from enum import IntEnum
from typing import Any, ClassVar

from firmware_bridge.errors import ProtocolError

PROTOCOL_VERSION = 1
HEADER = struct.Struct(">BBBBHH")  # ver, type, flags, epoch, seq, ack

FLAG_RELIABLE = 0x01
FLAG_RETRANSMIT = 0x02
FLAG_URGENT = 0x04
FLAG_NACK = 0x08  # on an ACK: "I just received a damaged frame": resend what I have not acked now

UNREADABLE = 0xFF  # card id of a card the reader could not identify
NO_CARD = 0xFE  # card id field when there is no card
NO_READ = 0xFFFF  # read_idx field when the card was never read
SEATS = 6  # destinations 0..5 are seats
REST = 6  # the kitty / undealt cards
REJECT = 7  # the reject tray
DESTINATIONS = 8


class Result(IntEnum):
    OK = 0
    OK_ALREADY = 1  # the command had already been carried out: nothing moved this time
    BAD_STATE = 2
    PLAN_CONFLICT = 3
    BUSY = 4
    UNKNOWN = 5
    VERSION_MISMATCH = 6
    FAULTED = 7


class State(IntEnum):
    IDLE = 1
    DEALING = 2
    PAUSED = 3
    FAULT = 4
    ESTOP = 5


class FaultCode(IntEnum):
    NONE = 0
    JAM = 1
    DOUBLE_FEED = 2
    HOPPER_EMPTY = 3
    ESTOP = 4
    LEASE_EXPIRED = 5
    RING_FULL = 6
    MOTOR = 7


class RejectReason(IntEnum):
    UNREADABLE = 1
    HOST = 2  # the host routed it to the reject tray (foreign, duplicate, extra)
    ABORT = 3


@dataclass(frozen=True, slots=True)
class Header:
    ver: int
    type: int
    flags: int
    epoch: int
    seq: int
    ack: int


class Message:
    """Base of every message: subclasses set CODE, FORMAT and RELIABLE."""

    CODE: ClassVar[int]
    FORMAT: ClassVar[str]
    RELIABLE: ClassVar[bool] = True
    TAIL: ClassVar[bool] = False  # the last field is variable-length text (LOG only)
    # The receiver answers it at once (a command's REPLY, a CARD_READ's ROUTE): its
    # acknowledgement can wait a moment and ride on that answer instead of a bare ACK.
    ANSWERED: ClassVar[bool] = False


_REGISTRY: dict[int, type[Any]] = {}


def message(code: int, fmt: str, reliable: bool = True, tail: bool = False, answered: bool = False) -> Any:
    """Class decorator: make a frozen dataclass message and register its type code."""

    def wrap(cls: type[Any]) -> type[Any]:
        cls = dataclass(frozen=True, slots=True)(cls)
        cls.CODE, cls.FORMAT, cls.RELIABLE, cls.TAIL = code, ">" + fmt, reliable, tail
        cls.ANSWERED = answered or (code < 0x80 and "cmd_id" in cls.__annotations__)
        assert code not in _REGISTRY, f"duplicate type code {code:#x}"
        _REGISTRY[code] = cls
        return cls

    return wrap


# --- both directions ------------------------------------------------------------------------


@message(0x7F, "", reliable=False)
class Ack(Message):
    """A bare acknowledgement (the header's ack field is the content)."""


# --- host to machine --------------------------------------------------------------------------


@message(0x01, "IBBI", reliable=False)
class HelloReq(Message):
    nonce: int
    proto_ver: int
    epoch: int
    schema: int


@message(0x02, "", reliable=False)
class Heartbeat(Message):
    pass


@message(0x03, "", reliable=False)
class Stop(Message):
    """Urgent: stop all motors now; executed on receipt, never queued."""


@message(0x10, "I")
class GetStatus(Message):
    cmd_id: int


@message(0x11, "IIH")
class Start(Message):
    cmd_id: int
    plan_id: int
    first_read: int


@message(0x12, "IIHB")
class Route(Message):
    cmd_id: int
    plan_id: int
    read_idx: int
    dest: int


@message(0x13, "II")
class Pause(Message):
    cmd_id: int
    plan_id: int


@message(0x14, "II")
class Resume(Message):
    cmd_id: int
    plan_id: int


@message(0x15, "II")
class Abort(Message):
    cmd_id: int
    plan_id: int


@message(0x16, "II")
class Finish(Message):
    cmd_id: int
    plan_id: int


@message(0x17, "I")
class Purge(Message):
    cmd_id: int


@message(0x18, "IB")
class ClearFault(Message):
    cmd_id: int
    fault: int


# --- machine to host --------------------------------------------------------------------------


@message(0x81, "IBIHIBBBIHB", reliable=False)
class Hello(Message):
    nonce: int
    proto_ver: int
    schema: int
    fw_version: int
    boot_id: int
    epoch: int
    destinations: int
    state: int
    plan_id: int
    next_read: int
    card_in_path: int


@message(0x82, "IBH")
class Reply(Message):
    cmd_id: int
    result: int
    detail: int


@message(0x83, "IBBIHHBH")
class Status(Message):
    cmd_id: int
    state: int
    fault: int
    plan_id: int
    next_read: int
    hopper: int
    card_in_path: int
    reject: int


@message(0x90, "IIHB", answered=True)
class CardRead(Message):
    event: int
    plan_id: int
    read_idx: int
    card: int


@message(0x91, "IIHBBB")
class CardDelivered(Message):
    event: int
    plan_id: int
    read_idx: int
    card: int
    dest: int
    slot_count: int


@message(0x92, "IIHBB")
class CardRejected(Message):
    event: int
    plan_id: int
    read_idx: int
    card: int
    reason: int


@message(0x93, "IIHB")
class Jam(Message):
    event: int
    plan_id: int
    read_idx: int
    card: int


@message(0x94, "IIB")
class DoubleFeed(Message):
    event: int
    plan_id: int
    count: int


@message(0x95, "IIH")
class HopperEmpty(Message):
    event: int
    plan_id: int
    read_count: int


@message(0x96, "IBHB")
class Purged(Message):
    event: int
    count: int
    read_idx: int
    card: int


@message(0x97, "IB")
class EStop(Message):
    event: int
    active: int


@message(0x98, "IBH")
class Fault(Message):
    event: int
    code: int
    detail: int


@message(0xA0, "B", reliable=False, tail=True)
class Log(Message):
    level: int
    text: bytes


def schema_hash() -> int:
    """CRC-32 of the message table: codes, names, formats and field names."""
    parts = []
    for code in sorted(_REGISTRY):
        cls = _REGISTRY[code]
        names = ",".join(f.name for f in fields(cls))
        parts.append(f"{code:02x}:{cls.__name__}:{cls.FORMAT}:{cls.RELIABLE}:{names}")
    return zlib.crc32(";".join(parts).encode())


SCHEMA = schema_hash()


def encode(msg: Message, epoch: int, seq: int = 0, ack: int = 0, flags: int = 0) -> bytes:
    """The frame body of a message: header then payload."""
    values = astuple(msg)  # type: ignore[call-overload]
    payload = struct.pack(msg.FORMAT, *values[:-1]) + values[-1] if msg.TAIL else struct.pack(msg.FORMAT, *values)
    if msg.RELIABLE:
        flags |= FLAG_RELIABLE
    return HEADER.pack(PROTOCOL_VERSION, msg.CODE, flags, epoch, seq, ack) + payload


def decode(body: bytes) -> tuple[Header, Message]:
    """Parse a frame body; raise :class:`ProtocolError` naming what is wrong."""
    if len(body) < HEADER.size:
        raise ProtocolError(f"frame of {len(body)} bytes is shorter than the header")
    header = Header(*HEADER.unpack_from(body))
    if header.ver != PROTOCOL_VERSION:
        raise ProtocolError(f"protocol version {header.ver}, expected {PROTOCOL_VERSION}")
    cls = _REGISTRY.get(header.type)
    if cls is None:
        raise ProtocolError(f"unknown message type {header.type:#04x}")
    payload = body[HEADER.size :]
    size = struct.calcsize(cls.FORMAT)
    if len(payload) != size and not (cls.TAIL and len(payload) >= size):
        raise ProtocolError(f"{cls.__name__} payload of {len(payload)} bytes, expected {size}")
    values = struct.unpack_from(cls.FORMAT, payload)
    if cls.TAIL:
        values = (*values, bytes(payload[size:]))
    return header, cls(*values)


def message_types() -> dict[int, type[Any]]:
    """Every registered message class by type code (for the document and the tests)."""
    return dict(_REGISTRY)
