"""Frames on the wire: ``COBS(body | crc32) 0x00`` (pure functions, no I/O).

COBS removes every zero byte from the frame, so a zero always means "end of frame": after
garbage, a lost byte or a torn write the decoder resynchronises at the next zero. The CRC is
CRC-32/ISO-HDLC (zlib's, as in Ethernet), sent big-endian and pinned by its check value:
``crc32(b"123456789") == 0xCBF43926``.

Why not CRC-16/CCITT-FALSE, the other usual choice: its residue is zero (the CRC of a message
followed by its own CRC is 0), so a delimiter flipped from 0x00 to 0x01 and followed by an idle
zero decodes as a *valid* frame one byte longer. The property test found it; CRC-32's final xor
leaves a non-zero residue, and such a frame then fails the check like any other corruption.
"""

from __future__ import annotations

import logging
import zlib

log = logging.getLogger(__name__)

DELIMITER = 0
MAX_BODY = 250  # header + payload; a longer run between zeros is garbage
CRC_CHECK_VALUE = 0xCBF43926
CRC_SIZE = 4


def crc32(data: bytes) -> int:
    """CRC-32/ISO-HDLC of ``data`` (poly 0x04C11DB7 reflected, init and final xor 0xFFFFFFFF)."""
    return zlib.crc32(data) & 0xFFFFFFFF


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
    return cobs_encode(body + crc32(body).to_bytes(CRC_SIZE, "big")) + b"\x00"


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
        if not raw and not overlong:
            return None  # two delimiters in a row: an idle line, not an error
        decoded = None if overlong else cobs_decode(raw)
        if (
            decoded is None
            or len(decoded) <= CRC_SIZE
            or crc32(decoded[:-CRC_SIZE]) != int.from_bytes(decoded[-CRC_SIZE:], "big")
        ):
            self.bad_frames += 1
            log.debug("dropped a bad frame of %d bytes", len(raw))
            return None
        return decoded[:-CRC_SIZE]


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
