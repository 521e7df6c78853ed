"""Framing: COBS + CRC-16/CCITT-FALSE, and a decoder that survives any line."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.framing import CRC_CHECK_VALUE, MAX_BODY, Decoder, cobs_decode, cobs_encode, crc32, encode_frame

bodies = st.binary(min_size=1, max_size=MAX_BODY)


def test_the_crc_is_pinned_by_its_check_value():
    assert crc32(b"123456789") == CRC_CHECK_VALUE == 0xCBF43926


def test_the_documented_example_frame():
    # docs/protocol.md, "A worked example": CARD_DELIVERED, epoch 3, seq 23, ack 11.
    from firmware_bridge.protocol import CardDelivered, encode

    frame = encode_frame(encode(CardDelivered(17, 0xC0FFEE01, 5, 38, 2, 2), epoch=3, seq=23, ack=11))
    assert frame.hex(" ") == "05 01 91 01 03 02 17 02 0b 01 01 06 11 c0 ff ee 01 09 05 26 02 02 40 09 1e 3f 00"


@given(st.binary(max_size=600))
def test_cobs_round_trips_and_removes_every_zero(data):
    encoded = cobs_encode(data)
    assert 0 not in encoded
    assert cobs_decode(encoded) == data


@given(st.lists(bodies, min_size=1, max_size=8), st.data())
def test_any_chunking_round_trips(frames, data):
    stream = b"".join(encode_frame(b) for b in frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=20)))
    decoder, got, start = Decoder(), [], 0
    for cut in [*cuts, len(stream)]:
        got += decoder.feed(stream[start:cut])
        start = cut
    assert got == frames
    assert decoder.bad_frames == 0


@given(st.binary(max_size=2000))
def test_garbage_never_raises_and_the_next_frame_still_arrives(garbage):
    decoder = Decoder()
    decoder.feed(garbage)
    # One delimiter ends whatever the garbage left half-open; then a real frame gets through.
    assert decoder.feed(b"\x00" + encode_frame(b"after the noise"))[-1:] == [b"after the noise"]


@settings(max_examples=300)
@given(bodies, st.data())
def test_bit_flips_never_yield_a_false_frame(body, data):
    frame = bytearray(encode_frame(body))
    flips = data.draw(st.lists(st.integers(0, len(frame) * 8 - 1), min_size=1, max_size=3, unique=True))
    for bit in flips:
        frame[bit // 8] ^= 1 << (bit % 8)
    got = Decoder().feed(bytes(frame) + b"\x00")
    # A flip may split the frame where a zero appeared or merge it with the trailing zero,
    # but no piece passes the CRC-32 as a frame other than the original.
    assert all(g == body for g in got)


def test_a_flipped_delimiter_before_an_idle_zero_is_not_a_frame():
    # The case that rules out CRC-16/CCITT-FALSE (zero residue): see firmware_bridge.framing.
    frame = bytearray(encode_frame(b"\x00\x00"))
    frame[-1] ^= 1
    assert Decoder().feed(bytes(frame) + b"\x00") == []


def test_an_overlong_run_is_dropped_and_counted():
    decoder = Decoder()
    assert decoder.feed(b"\x01" * 1000 + b"\x00" + encode_frame(b"ok")) == [b"ok"]
    assert decoder.bad_frames == 1
