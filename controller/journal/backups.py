"""The journal's backups: a whole copy (SQLite's online backup, :func:`copy.make_copy`) in a folder
of their own, named by the time it was made, the last ``keep`` of them kept.

The service's timer (deploy/systemd/croupier-backup.timer) makes one a day, while the table
plays; ``deploy/update.sh`` makes one before it changes anything. A journal that is damaged is
not backed up, and then no older backup is removed: the last good ones are what would restore it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from controller.journal.check import inspect
from controller.journal.copy import make_copy
from controller.journal.errors import JournalError

_STAMP = "%Y%m%dT%H%M%SZ"


@dataclass(frozen=True, slots=True)
class Backup:
    made: Path
    kept: list[Path]
    removed: list[Path]


def backup_folder(journal: Path) -> Path:
    """Where a journal's backups go by default: ``backups/`` beside it."""
    return journal.parent / "backups"


def make_backup(journal: Path, folder: Path, keep: int, schema: int, now: datetime | None = None) -> Backup:
    """Back the journal up into ``folder`` and remove all but the newest ``keep`` backups of it;
    JournalError (naming the problem, nothing removed) if it is missing, damaged or unreadable."""
    found = inspect(journal, schema)
    if not found.exists:
        raise JournalError(f"there is no journal at {journal}")
    refusal = found.refusal(schema)
    if refusal is not None:
        raise JournalError(f"not backed up, and no older backup removed: {refusal}")
    _private_folder(folder)
    stamp = (now or datetime.now(UTC)).strftime(_STAMP)
    target = folder / f"{journal.stem}-{stamp}{journal.suffix}"
    try:
        make_copy(journal, target)
    except OSError as exc:
        raise JournalError(f"cannot write the backup {target}: {exc.strerror or exc}") from None
    backups = backups_of(journal, folder)
    removed = backups[:-keep]
    for old in removed:
        old.unlink()
    return Backup(target, backups[-keep:], removed)


def backups_of(journal: Path, folder: Path) -> list[Path]:
    """The journal's backups in ``folder``, oldest first (their names sort by time)."""
    pattern = re.compile(re.escape(journal.stem) + r"-\d{8}T\d{6}Z" + re.escape(journal.suffix))
    return sorted(p for p in folder.glob(f"{journal.stem}-*") if pattern.fullmatch(p.name))


def _private_folder(folder: Path) -> None:
    """The backups hold every hidden hand, as the journal does: a folder made for them is 0700."""
    try:
        if not folder.exists():
            folder.mkdir(parents=True, mode=0o700)
            folder.chmod(0o700)  # mkdir's mode passes through the umask
    except OSError as exc:
        raise JournalError(f"cannot make the backup folder {folder}: {exc.strerror or exc}") from None
