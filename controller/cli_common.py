"""What every ``croupier`` command shares: the typer apps, the console, ``fail`` and the port checks."""

from __future__ import annotations

import socket
import sys
import threading
from typing import NoReturn

import typer
from rich.console import Console

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Croupier: the refereed card table.")
bench_app = typer.Typer(no_args_is_help=True, help="Measure the engine, vision, dealer, table and club.")
app.add_typer(bench_app, name="bench")
vision_app = typer.Typer(no_args_is_help=True, help="Read cards from camera images.")
app.add_typer(vision_app, name="vision")
club_app = typer.Typer(
    no_args_is_help=True, help="The club: every table's events in one database, one page (docs/club.md)."
)
app.add_typer(club_app, name="club")

console = Console()

_stopping = threading.Event()


def interrupt(signum: int, frame: object) -> None:
    """Ctrl-C's and SIGTERM's handler: a KeyboardInterrupt, as Python raises for Ctrl-C, and a
    note that it came, since a compiled module being imported (onnxruntime's) takes the exception
    for a failed import and drops it (:func:`stop_requested` finds it again)."""
    _stopping.set()
    raise KeyboardInterrupt


def stop_requested() -> bool:
    """Whether Ctrl-C or SIGTERM came, even if its KeyboardInterrupt was lost on the way."""
    return _stopping.is_set()


def fail(message: str, code: int = 2) -> NoReturn:
    """One clear line on stderr, then exit: no tracebacks for bad input."""
    # Plain write, not rich: a one-line message must never be wrapped into two.
    sys.stderr.write(f"croupier: {' '.join(message.split())}\n")
    raise typer.Exit(code)


def check_can_listen(host: str, port: int, advice: str = "") -> None:
    """Fail in one line if the address is taken, before uvicorn logs it its own way."""
    try:
        with socket.create_server((host, port), reuse_port=False):
            pass
    except OSError as exc:
        fail(f"cannot serve the page on {host}:{port}: {exc.strerror or exc}{advice}")


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on now (for a run that needs no fixed address)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])
