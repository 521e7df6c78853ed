"""``croupier journal backup`` (the daily backups, keeping the last N) and ``croupier journal
migrate`` (the schema brought up to this version's, after a copy of the journal as it was):
what deploy/ runs from its timer and its update script."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from controller.cli_common import fail
from controller.cli_journal import ConfigOption, JournalArgument, _journal_path, journal_app
from controller.journal.errors import JournalError

KEEP = 14  # two weeks of daily backups


@journal_app.command()
def backup(
    journal: JournalArgument = None,
    config: ConfigOption = None,
    to: Annotated[
        Path | None, typer.Option(help="The folder for the backups (default: backups/ beside the journal).")
    ] = None,
    keep: Annotated[int, typer.Option(min=1, max=10_000, help="How many of the newest backups to keep.")] = KEEP,
) -> None:
    """Back the journal up (SQLite's online backup: the table may be playing) and keep the newest.

    A damaged journal is not backed up, and no older backup is removed (exit 1)."""
    from controller.journal.backups import backup_folder, make_backup
    from controller.store import SCHEMA_VERSION

    path = _journal_path(journal, config)
    try:
        made = make_backup(path, to or backup_folder(path), keep, SCHEMA_VERSION)
    except JournalError as exc:
        fail(str(exc), code=1)
    removed = f", {len(made.removed)} older removed" if made.removed else ""
    sys.stdout.write(f"backed up {path} to {made.made} ({len(made.kept)} backups kept{removed})\n")


@journal_app.command()
def migrate(journal: JournalArgument = None, config: ConfigOption = None) -> None:
    """Bring the journal's schema up to this version's, after a copy of it as it was.

    Serving it migrates it too; deploy/update.sh runs this first, so an update says what it did."""
    from controller.journal.check import inspect
    from controller.journal.copy import make_copy
    from controller.journal.files import beside
    from controller.store import SCHEMA_VERSION, Journal

    path = _journal_path(journal, config)
    try:
        found = inspect(path, SCHEMA_VERSION)
        refusal = found.refusal(SCHEMA_VERSION)
        if refusal is not None:
            raise refusal
        if not found.exists:
            sys.stdout.write(f"there is no journal at {path} yet: nothing to migrate\n")
            return
        if found.schema == SCHEMA_VERSION:
            sys.stdout.write(f"the journal {path} is at schema {SCHEMA_VERSION}: nothing to migrate\n")
            return
        before = beside(path, f".schema-{found.schema}")
        make_copy(path, before)
        Journal(path).close()
    except JournalError as exc:
        fail(str(exc), code=1)
    except OSError as exc:
        fail(f"cannot copy the journal {path} before migrating it: {exc.strerror or exc}", code=1)
    sys.stdout.write(f"migrated {path} from schema {found.schema} to {SCHEMA_VERSION} (as it was: {before})\n")
