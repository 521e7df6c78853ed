"""docs/protocol.md stands on its own only if its message table is the code's."""

from __future__ import annotations

import struct
from dataclasses import fields
from pathlib import Path

from firmware_bridge.framing import CRC_CHECK_VALUE
from firmware_bridge.protocol import SCHEMA, message_types

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()


def test_every_message_is_documented_with_its_fields_in_wire_order():
    for code, cls in message_types().items():
        codes = list(cls.FORMAT[1:]) + (["bytes"] if cls.TAIL else [])
        described = ", ".join(f"{f.name} {c}" for f, c in zip(fields(cls), codes, strict=True))
        row = f"| `{code:#04x}` | `{cls.__name__}` | {'yes' if cls.RELIABLE else 'no'} | {described}"
        assert row in DOC, row
        assert f"| {struct.calcsize(cls.FORMAT)}" in DOC.split(row)[1].split("\n")[0]


def test_the_schema_hash_and_crc_check_value_are_the_documented_ones():
    assert f"0x{SCHEMA:08X}" in DOC
    assert f"0x{CRC_CHECK_VALUE:08X}" in DOC
