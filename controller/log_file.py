"""Reading a table log (or a predetermined deal) that a user names: bounded, decoded, one clear error.

The file may be anything at all (``/dev/zero``, a disk image, a directory), so it is read only up
to :data:`MAX_LOG_BYTES` and refused past it, with its size named."""

from __future__ import annotations

import os
import stat
from pathlib import Path

# 16 MiB: the longest real match measured, a whole Fifty-Six match of 58 hands written as the
# engine writes logs (indented), is 265 kB; this holds some 60 of them, and still reads in a
# second or two on a Raspberry Pi.
MAX_LOG_BYTES = 16 * 1024 * 1024
_LIMIT_WORDS = f"{MAX_LOG_BYTES // (1024 * 1024)} MiB"


class LogFileError(ValueError):
    """The file cannot be read as a table log's text; the message names the file and why."""


def read_log_file(path: Path) -> str:
    """The file's text (UTF-8), if it is no larger than MAX_LOG_BYTES; else LogFileError."""
    try:
        with path.open("rb") as f:
            _refuse_a_large_file(path, os.fstat(f.fileno()))
            data = f.read(MAX_LOG_BYTES + 1)  # one byte more tells a file at the limit from a longer one
    except OSError as exc:
        raise LogFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_LOG_BYTES:  # a device or pipe, whose size is not known before reading
        raise LogFileError(f"{path} holds more than {_LIMIT_WORDS}, the most a table log may be (read stopped there)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LogFileError(
            f"cannot read {path}: not UTF-8 text (byte {exc.start:,} is 0x{data[exc.start]:02x})"
        ) from None


def _refuse_a_large_file(path: Path, status: os.stat_result) -> None:
    if stat.S_ISREG(status.st_mode) and status.st_size > MAX_LOG_BYTES:
        raise LogFileError(f"{path} is {status.st_size:,} bytes, more than a table log may be ({_LIMIT_WORDS})")
