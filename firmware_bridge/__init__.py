"""Host side of the dealing machine's protocol ("dealer link v1", docs/protocol.md).

Layers, bottom up: :mod:`framing` (COBS + CRC, pure), :mod:`protocol` (messages, pure),
:mod:`channel` (sequence, acknowledgement, retransmission, pure and clock-driven),
:mod:`link` (the serial port, its reader thread and reconnection), :mod:`dealer` (the deal).
Seats and cards are plain integers here: this package never imports the rules engine.
"""
