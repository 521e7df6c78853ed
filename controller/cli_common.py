"""What every ``croupier`` command shares: the typer apps, the console, and ``fail``."""

from __future__ import annotations

import sys
from typing import NoReturn

import typer
from rich.console import Console

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Croupier: the refereed card table.")
bench_app = typer.Typer(no_args_is_help=True, help="Measure the engine, vision and dealer.")
app.add_typer(bench_app, name="bench")
vision_app = typer.Typer(no_args_is_help=True, help="Read cards from camera images.")
app.add_typer(vision_app, name="vision")

console = Console()


def fail(message: str, code: int = 2) -> NoReturn:
    """One clear line on stderr, then exit: no tracebacks for bad input."""
    # Plain write, not rich: a one-line message must never be wrapped into two.
    sys.stderr.write(f"croupier: {' '.join(message.split())}\n")
    raise typer.Exit(code)
