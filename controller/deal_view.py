"""What ``croupier deal`` shows while dealing and after: a progress bar, faults, a readable report."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from controller.render import seat_label
from firmware_bridge.events import CardDealt, FaultRaised


class DealProgress:
    """A rich progress bar fed by the Dealer's events; faults print above it."""

    def __init__(self, console: Console, total: int, title: str) -> None:
        self.console = console
        self.progress = Progress(
            TextColumn(f"dealing {title}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
        )
        self.task = self.progress.add_task("deal", total=total)

    def __enter__(self) -> DealProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def observe(self, event: Any) -> None:
        if isinstance(event, CardDealt):
            self.progress.update(self.task, completed=event.dealt)
        elif isinstance(event, FaultRaised):
            self.console.print(f"[yellow]{event.reason}[/]: {event.remedy}")


def print_deal(console: Console, result: dict[str, Any], players: int) -> None:
    """The deal as a person reads it: status, each seat's cards, the rest, the machine's counts."""
    if result["status"] == "complete":
        console.print(f"[green]Deal complete[/] ({result['game']})")
    else:
        console.print(f"[red]Deal void[/]: {result['message']}")
    table = Table(show_header=True)
    table.add_column("seat")
    table.add_column("cards (host)")
    table.add_column("machine slot agrees", justify="center")
    machine = result.get("machine")
    for seat, hand in enumerate(result["hands"]):
        agrees = "-" if machine is None else ("yes" if machine["hands"][seat] == hand else "NO")
        table.add_row(seat_label(seat, players), " ".join(hand), agrees)
    agrees = "-" if machine is None else ("yes" if machine["rest"] == result["rest"] else "NO")
    table.add_row("rest", " ".join(result["rest"]), agrees)
    console.print(table)
    if machine is not None and machine["reject"]:
        console.print(f"reject tray: {' '.join(machine['reject'])}")
    s = result["stats"]
    console.print(
        f"{s['cards_read']} cards read in {s['seconds']:.2f} s; {s['faults']} fault(s) handled, "
        f"{s['resets']} reset(s), {s['reconnects']} reconnection(s), {s['retransmissions']} retransmission(s)"
    )


class ConsoleOperator:
    """A person at a real machine: shown the remedy, answers on the terminal."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def attend(self, code: str, reason: str, remedy: str) -> bool:
        self.console.print(f"[bold yellow]{reason}[/]: {remedy}")
        sys.stderr.write("press Enter when done, or type 'abort': ")
        sys.stderr.flush()
        answer = sys.stdin.readline()
        return bool(answer) and answer.strip().lower() != "abort"
