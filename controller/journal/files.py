"""The small files kept beside the journal, and how each is written: whole or not at all."""

from __future__ import annotations

import os
from pathlib import Path


def beside(journal: Path, suffix: str) -> Path:
    """A file named after the journal: ``croupier.db`` -> ``croupier.db.ack``."""
    return journal.with_name(journal.name + suffix)


def ack_path(journal: Path) -> Path:
    """The acknowledgement record: how many records the journal had acknowledged, and the last one's hash."""
    return beside(journal, ".ack")


def copy_path(journal: Path) -> Path:
    """The copy of the journal made at the end of every hand."""
    return beside(journal, ".backup")


def pause_path(journal: Path) -> Path:
    """Why the table is paused, while it is."""
    return beside(journal, ".paused")


def write_atomically(path: Path, text: str) -> None:
    """Write ``path`` (mode 0600) so that a power cut or a full disk leaves the old file or the
    new one, never a part: the text goes to a temporary file beside it, reaches the disk, and is
    renamed over it. If anything fails the temporary file is removed and the error raised."""
    partial = beside(path, ".tmp")
    try:
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(descriptor, 0o600)  # a stale temporary file may have been wider
            _write_all(descriptor, text.encode("utf-8"))
            os.fsync(descriptor)  # on the disk before the rename makes it the file
        finally:
            os.close(descriptor)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def _write_all(descriptor: int, data: bytes) -> None:
    while data:
        data = data[os.write(descriptor, data) :]
