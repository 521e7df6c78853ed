"""The message codec: every message round-trips; any bytes either decode or raise ProtocolError."""

from __future__ import annotations

import contextlib
import struct
from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.errors import ProtocolError
from firmware_bridge.protocol import HEADER, PROTOCOL_VERSION, SCHEMA, decode, encode, message_types, schema_hash

LIMITS = {"B": 0xFF, "H": 0xFFFF, "I": 0xFFFFFFFF}


def values_for(cls):
    codes = cls.FORMAT[1:]
    parts = [st.integers(0, LIMITS[c]) for c in codes]
    if cls.TAIL:
        parts.append(st.binary(max_size=100))
    assert len(parts) == len(fields(cls)), cls
    return st.tuples(*parts)


@pytest.mark.parametrize("code", sorted(message_types()))
@given(data=st.data())
def test_every_message_round_trips(code, data):
    cls = message_types()[code]
    msg = cls(*data.draw(values_for(cls)))
    epoch, seq, ack = (
        data.draw(st.integers(0, 255)),
        data.draw(st.integers(0, 0xFFFF)),
        data.draw(st.integers(0, 0xFFFF)),
    )
    header, back = decode(encode(msg, epoch, seq, ack))
    assert back == msg
    assert (header.ver, header.type, header.epoch, header.seq, header.ack) == (PROTOCOL_VERSION, code, epoch, seq, ack)
    assert bool(header.flags & 1) == cls.RELIABLE


@given(st.binary(max_size=300))
def test_any_body_decodes_or_raises_protocol_error(body):
    with contextlib.suppress(ProtocolError):
        decode(body)


def test_wrong_version_and_wrong_length_are_named():
    with pytest.raises(ProtocolError, match="version 2"):
        decode(HEADER.pack(2, 0x02, 0, 0, 0, 0))
    with pytest.raises(ProtocolError, match="Route payload of 3 bytes"):
        decode(HEADER.pack(PROTOCOL_VERSION, 0x12, 1, 0, 1, 0) + struct.pack(">BBB", 1, 2, 3))


def test_the_schema_hash_is_stable_and_fits_a_u32():
    assert schema_hash() == SCHEMA
    assert 0 <= SCHEMA < 1 << 32
