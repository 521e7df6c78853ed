"""Frames on the wire: ``COBS(body | crc16) 0x00`` (pure functions, no I/O).

COBS removes every zero byte from the frame, so a zero always means "end of frame": after
garbage, a lost byte or a torn write the decoder resynchronises at the next zero. The CRC is
CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor), pinned by its
check value: ``crc16(b"123456789") == 0x29B1``.
"""

from __future__ import annotations

import binascii
import logging

log = logging.getLogger(__name__)

DELIMITER = 0
MAX_BODY = 250  # header + payload; a longer run between zeros is garbage
CRC_CHECK_VALUE = 0x29B1


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of ``data``."""
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result holds no zero byte."""
    out = bytearray()
    block = bytearray()
    for byte in data:
        if byte == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
            continue
        block.append(byte)
        if len(block) == 254:
            out.append(255)
            out += block
            block.clear()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes | None:
    """Undo :func:`cobs_encode`; ``None`` for a malformed block (never raises)."""
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        end = i + code
        if code == 0 or end > n:
            return None
        block = data[i + 1 : end]
        if 0 in block:
            return None
        out += block
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


def encode_frame(body: bytes) -> bytes:
    """Wrap a frame body (header and payload) for the wire, delimiter included."""
    if len(body) > MAX_BODY:
        raise ValueError(f"frame body of {len(body)} bytes exceeds {MAX_BODY}")
    return cobs_encode(body + crc16(body).to_bytes(2, "big")) + b"\x00"


class Decoder:
    """Incremental frame decoder: feed it any chunks, get back the bodies whose CRC holds.

    Bad frames (a broken COBS block, a CRC mismatch, an overlong run) are counted and dropped;
    the decoder never raises and always resumes at the next delimiter.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._overlong = False
        self.bad_frames = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        bodies: list[bytes] = []
        for piece in _split_keep(chunk):
            if piece == b"\x00":
                body = self._finish()
                if body is not None:
                    bodies.append(body)
                continue
            if self._overlong:
                continue
            self._buffer += piece
            if len(self._buffer) > MAX_BODY + 8:
                self._buffer.clear()
                self._overlong = True
        return bodies

    def _finish(self) -> bytes | None:
        raw, overlong = bytes(self._buffer), self._overlong
        self._buffer.clear()
        self._overlong = False
        if not raw:
            return None  # two delimiters in a row: an idle line, not an error
        decoded = None if overlong else cobs_decode(raw)
        if decoded is None or len(decoded) < 3 or crc16(decoded[:-2]) != int.from_bytes(decoded[-2:], "big"):
            self.bad_frames += 1
            log.debug("dropped a bad frame of %d bytes", len(raw))
            return None
        return decoded[:-2]


def _split_keep(chunk: bytes) -> list[bytes]:
    """Split on zero bytes, keeping each zero as its own piece (a frame boundary)."""
    pieces: list[bytes] = []
    start = 0
    while True:
        zero = chunk.find(0, start)
        if zero < 0:
            if start < len(chunk):
                pieces.append(chunk[start:])
            return pieces
        if zero > start:
            pieces.append(chunk[start:zero])
        pieces.append(b"\x00")
        start = zero + 1
