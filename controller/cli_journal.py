"""``croupier journal check`` and ``croupier journal recover``: whether a journal is what was
written, and a new journal holding every intact event of a damaged one (docs/api.md, 'A
damaged journal'). Neither changes the journal it reads."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from controller.cli_common import app, fail
from controller.journal.check import Inspection, inspect
from controller.journal.errors import JournalError
from controller.journal.files import ack_path, copy_path
from controller.journal.salvage import Salvage, salvage, write
from controller.store import SCHEMA_VERSION

journal_app = typer.Typer(no_args_is_help=True, help="Check the journal, or salvage a damaged one.")
app.add_typer(journal_app, name="journal")

JournalArgument = Annotated[
    Path | None, typer.Argument(help="The journal (default: store.path of the settings).", show_default=False)
]
ConfigOption = Annotated[Path | None, typer.Option(help="The settings file (TOML).")]


@journal_app.command()
def check(journal: JournalArgument = None, config: ConfigOption = None) -> None:
    """Check a journal without changing it.

    SQLite's integrity check, every record against its hash, and the records it had
    acknowledged. Exit 0 if it is whole; 1 if not, saying what `croupier journal recover` would
    salvage."""
    path = _journal_path(journal, config)
    try:
        found = inspect(path, SCHEMA_VERSION)
    except JournalError as exc:
        fail(str(exc))
    if not found.exists and found.acknowledged is None:
        fail(f"there is no journal at {path}")
    _say(*_inspection_lines(found))
    if found.whole:
        _say("whole: every record is what was written")
        return
    _say(*_salvage_lines(salvage(path), f"`croupier journal recover {path} --out FILE` would keep"))
    raise typer.Exit(1)


@journal_app.command()
def recover(
    out: Annotated[Path, typer.Option("--out", help="The new journal to write (it must not exist).")],
    journal: JournalArgument = None,
    config: ConfigOption = None,
) -> None:
    """Salvage every intact event of a journal into a new journal.

    Read from the journal, its write-ahead log past any damage, and the copy made at the last
    hand's end; the journal itself is not changed."""
    path = _journal_path(journal, config)
    taken = [p for p in (out, out.with_name(out.name + "-wal"), ack_path(out)) if p.exists()]
    if taken:
        fail(f"{taken[0]} exists: name a new file for the salvaged journal (nothing is overwritten)")
    if not (path.exists() or copy_path(path).exists()):
        fail(f"there is no journal at {path}, nor a copy of it ({copy_path(path)})")
    found = salvage(path)
    if not found.matches:
        fail(f"nothing could be salvaged from {path}: no match is intact in the journal, its log or its copy")
    try:
        write(found, out)
    except JournalError as exc:
        fail(str(exc))
    _say(*_salvage_lines(found, f"salvaged into {out}"))
    _say(f'to serve it, set store.path = "{out}" in the settings; {path} stays as it was')


def _journal_path(journal: Path | None, config: Path | None) -> Path:
    if journal is not None:
        return journal
    from controller.settings import SettingsError, load_settings

    try:
        return load_settings(config).store.path
    except SettingsError as exc:
        fail(str(exc))


def _inspection_lines(found: Inspection) -> list[str]:
    lines = [
        f"journal {found.path}: schema {found.schema}, {found.matches} matches, {found.events} events"
        + (f" ({found.entries} records)" if found.entries else "")
    ]
    if found.acknowledged is not None:
        lines.append(f"acknowledged: {found.acknowledged.entries} records ({ack_path(found.path)})")
    if found.replaced:
        lines.append("this journal was put in the place of another (its identity differs from the record's)")
    refusal = found.refusal(SCHEMA_VERSION)
    if refusal is not None:
        lines.append(f"NOT WHOLE: {str(refusal).split('; nothing was changed')[0]}")
        lines += [f"  - {problem}" for problem in found.problems[1:]]
        if found.more_problems:
            lines.append(f"  - and {found.more_problems} more")
    return lines


def _salvage_lines(found: Salvage, heading: str) -> list[str]:
    lines = [f"{heading}:"]
    for match in found.matches:
        line = f"  match {match.row.id} ({match.row.game}, {match.row.players} players): "
        line += f"{len(match.events)} of {match.seen} events"
        lines.append(line + (f"; the rest are lost ({match.why_cut})" if match.why_cut else ""))
    total = f"  {found.records} records (matches begun and events)"
    if found.acknowledged is not None:
        total += f" of the {found.acknowledged} acknowledged"
    lines.append(total)
    read = "; ".join(
        f"{s.name}: {s.unreadable}" if s.unreadable else f"{s.name}: {len(s.matches) + len(s.events)} intact records"
        for s in found.sources
    )
    lines.append(f"  read from {read}")
    return lines


def _say(*lines: str) -> None:
    sys.stdout.write("".join(line + "\n" for line in lines))
