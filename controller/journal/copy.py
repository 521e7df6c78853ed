"""The copy of the journal made at the end of every hand.

Whatever happens to the journal afterwards (a damaged page, a lost write-ahead log, a file
truncated to nothing), the copy holds every hand that had ended: the worst loss is the hand in
play. It is made with SQLite's online backup (``sqlite3.Connection.backup``) from a read-only
connection, on a thread of its own, so a long journal on a slow SD card never holds up the
table; it is written beside the journal under a temporary name and renamed over the last copy
once it is whole on the disk, so there is always one whole copy (``croupier.db.backup``).
``croupier journal recover`` reads it beside the journal itself and its write-ahead log.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from pathlib import Path

from controller.journal.check import connect_read_only
from controller.journal.files import beside

log = logging.getLogger(__name__)


def make_copy(journal: Path, target: Path) -> None:
    """Copy the journal to ``target`` (mode 0600) whole, or leave the last copy and no stray file."""
    partial = beside(target, ".tmp")
    try:
        os.close(os.open(partial, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600))
        partial.chmod(0o600)  # a stale temporary file may have been wider
        source, destination = connect_read_only(journal, in_use=True), sqlite3.connect(partial)
        try:
            destination.execute("PRAGMA journal_mode=OFF")  # the rename, not a rollback journal, makes it whole
            source.backup(destination)
        finally:
            destination.close()
            source.close()
        _sync(partial)
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def _sync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


class HandEndCopies:
    """Makes :func:`make_copy` on request, one at a time; requests made while a copy is being
    made are answered by one more copy after it. The thread that makes them lives only while
    there is a copy to make, and is not a daemon: a process that exits finishes the copy it was
    making rather than leave half of one."""

    def __init__(self, journal: Path, target: Path) -> None:
        self.journal, self.target = journal, target
        self.made = 0  # copies finished (made or failed): what a test waits for
        self._changed = threading.Condition()
        self._pending = self._busy = self._running = self._closed = False
        self._thread: threading.Thread | None = None

    def request(self) -> None:
        with self._changed:
            if self._closed:
                return
            self._pending = True
            if not self._running:
                self._running = True
                self._thread = threading.Thread(target=self._serve, name="journal-copy")
                self._thread.start()

    def wait(self, timeout: float) -> bool:
        """Wait until no copy is wanted or being made; False if ``timeout`` passed first."""
        with self._changed:
            return self._changed.wait_for(lambda: not (self._pending or self._busy), timeout)

    def close(self) -> None:
        """Finish the copies asked for, then take no more."""
        with self._changed:
            self._closed = True
            thread = self._thread
        if thread is not None:
            thread.join()

    def _serve(self) -> None:
        while self._next():
            try:
                make_copy(self.journal, self.target)
            except (sqlite3.Error, OSError) as exc:
                log.warning("the copy of the journal at the hand's end failed (the last copy stays): %s", exc)
            finally:
                with self._changed:
                    self._busy = False
                    self.made += 1
                    self._changed.notify_all()

    def _next(self) -> bool:
        """Take the next request, or end the thread if there is none."""
        with self._changed:
            if not self._pending:
                self._running = False
                return False
            self._pending, self._busy = False, True
            return True
