"""The write-ahead log read past the point where SQLite stops.

SQLite applies the frames of its write-ahead log (``croupier.db-wal``) up to the first one whose
checksum fails, and ignores every frame after it: one flipped bit there hides every transaction
committed since. Each frame is a whole page, and a later frame of the same page replaces an
earlier one, so the pages as the last committed frame leaves them are usually whole even when
one frame in the middle is damaged. :func:`replay` writes that database to a separate file
(checksums ignored; the journal and its log untouched); the salvage then keeps only the records
whose own hashes show them intact.

Format (sqlite.org/fileformat.html, "The WAL File Format"): a 32-byte header (magic, version,
page size, checkpoint sequence, two salts, checksum), then frames of a 24-byte header (page
number, the database's size in pages after a commit or 0, the two salts, checksum) and a page.
Frames whose salts differ from the header's are left from an earlier use of the file.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

HEADER = 32
FRAME_HEADER = 24


@dataclass(frozen=True, slots=True)
class Frame:
    page: int
    commit: int  # the database's size in pages once this frame's transaction is committed; 0 if not its last
    salts: tuple[int, int]
    offset: int  # where its page begins in the log


def replay(database: Path, log: Path, out: Path) -> bool:
    """Write ``out``: the database with every committed frame of the log applied. False if the
    log holds no committed frame (then there is nothing the database itself does not show)."""
    main = database.read_bytes() if database.exists() else b""
    wal = log.read_bytes() if log.exists() else b""
    size = _page_size(main, wal)
    if size is None:
        return False
    current = _current_frames(wal, size)
    commits = [i for i, frame in enumerate(current) if frame.commit]
    if not commits:
        return False
    pages = min(current[commits[-1]].commit, len(main) // size + len(current))  # a damaged size stays bounded
    image = bytearray(main[: pages * size].ljust(pages * size, b"\0"))
    for frame in current[: commits[-1] + 1]:
        if 1 <= frame.page <= pages:
            image[(frame.page - 1) * size : frame.page * size] = wal[frame.offset : frame.offset + size]
    image[18:20] = b"\x01\x01"  # a database without a log: SQLite reads this file alone
    out.write_bytes(bytes(image))
    return True


def _page_size(main: bytes, wal: bytes) -> int | None:
    """The page size: the database's header says it, else the log's; None without a log."""
    if len(wal) < HEADER + FRAME_HEADER:
        return None
    candidates = []
    if len(main) >= 100:
        (raw,) = struct.unpack(">H", main[16:18])
        candidates.append(65536 if raw == 1 else raw)
    candidates.append(struct.unpack(">I", wal[8:12])[0])
    return next((c for c in candidates if 512 <= c <= 65536 and c & (c - 1) == 0), None)


def _current_frames(wal: bytes, size: int) -> list[Frame]:
    """The frames written since the log was last reset: those with the header's salts (or, if
    the header itself is damaged, the first frame's)."""
    frames = []
    for offset in range(HEADER, len(wal) - FRAME_HEADER - size + 1, FRAME_HEADER + size):
        page, commit, salt1, salt2 = struct.unpack(">IIII", wal[offset : offset + 16])
        frames.append(Frame(page, commit, (salt1, salt2), offset + FRAME_HEADER))
    if not frames:
        return []
    salts = struct.unpack(">II", wal[16:24])
    if not any(frame.salts == salts for frame in frames):
        salts = frames[0].salts
    return [frame for frame in frames if frame.salts == salts]
