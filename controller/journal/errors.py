"""The journal's errors, each named for what went wrong, each message saying what to do."""

from __future__ import annotations

from pathlib import Path


class JournalError(RuntimeError):
    """The journal cannot be opened, read or written; the message says why."""


class JournalDamaged(JournalError):
    """The journal is not what was written: a record changed, missing or unreadable, a table gone,
    SQLite's integrity check failed. It is never served so; the message says how to salvage it."""


class JournalShortened(JournalDamaged):
    """The journal holds fewer records than it had acknowledged (its write-ahead log lost its end,
    the file was truncated or replaced by an older copy)."""


class JournalUnavailable(JournalError):
    """The journal cannot take a write now (the disk is full, read-only, failing): nothing was
    recorded, and what was recorded before is safe. The web API answers 503."""


def way_out(journal: Path) -> str:
    """What to do about a damaged journal, in one sentence (the problem comes before it)."""
    return (
        f"nothing was changed: `croupier journal check {journal}` lists what is intact, and "
        f"`croupier journal recover {journal} --out FILE` salvages every intact event into a new "
        "journal to serve instead (docs/api.md, 'A damaged journal')"
    )
