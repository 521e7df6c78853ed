"""The ``croupier`` command line (typer)."""

from __future__ import annotations

import json
import logging
import os
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from controller.render import print_report
from engine.errors import EngineError
from engine.games import GAMES, get_game
from engine.log import MalformedLog, dumps, referee_text, replay
from firmware_bridge.errors import BridgeError

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Croupier: the refereed card table.")
bench_app = typer.Typer(no_args_is_help=True, help="Measure the engine, vision and dealer.")
app.add_typer(bench_app, name="bench")

console = Console()


def fail(message: str, code: int = 2) -> None:
    """One clear line on stderr, then exit: no tracebacks for bad input."""
    # Plain write, not rich: a one-line message must never be wrapped into two.
    sys.stderr.write(f"croupier: {' '.join(message.split())}\n")
    raise typer.Exit(code)


@app.command()
def referee(
    log: Annotated[Path, typer.Argument(help="A table log (JSON) to replay.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Replay a table log and report every hand, its violations and the match."""
    try:
        text = log.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"cannot read {log}: {exc.strerror if isinstance(exc, OSError) else exc}")
    try:
        result = referee_text(text)
    except MalformedLog as exc:
        fail(f"{log}: malformed table log: {exc}")
    if as_json:
        sys.stdout.write(json.dumps(result.report()) + "\n")
        return
    print_report(console, result.report(), result.match.players)


@app.command()
def sim(
    game: Annotated[str, typer.Option(help=f"The game: {', '.join(GAMES)}.")] = "poley",
    hands: Annotated[int | None, typer.Option(min=1, help="Hands to play (default: until the match is over).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed for a repeatable match.")] = None,
    players: Annotated[int | None, typer.Option(min=2, max=6, help="Seats (Nap only).")] = None,
    speed: Annotated[float, typer.Option(min=0.01, help="How many times faster than a real table.")] = 1.0,
    headless: Annotated[bool, typer.Option(help="Only print the result.")] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as `croupier referee --json` does.")
    ] = False,
    log: Annotated[Path | None, typer.Option(help="Write the match's table log to this file.")] = None,
) -> None:
    """Play a match between simulated players, and show it or print its result."""
    from controller.show import TableShow
    from simulators.table import SimulatedTable

    try:
        chosen = get_game(game)
        if players is not None and players not in chosen.seat_counts:
            fail(f"{chosen.title} is played by {' or '.join(map(str, chosen.seat_counts))} players, not {players}")
        table = SimulatedTable(chosen, players=players, seed=seed)
    except EngineError as exc:
        fail(str(exc))
    observer = None if headless or as_json else TableShow(console, speed).observe
    table.play(hands, observer)
    table_log = table.log()
    if log is not None:
        try:
            log.write_text(dumps(table_log) + "\n", encoding="utf-8")
        except OSError as exc:
            fail(f"cannot write {log}: {exc.strerror}")
    report = replay(table_log).report()
    if as_json:
        sys.stdout.write(json.dumps(report) + "\n")
    else:
        print_report(console, report, table.match.players)


@app.command()
def deal(
    game: Annotated[str, typer.Option(help=f"The game: {', '.join(GAMES)}.")] = "poley",
    sim_: Annotated[
        bool, typer.Option("--sim", help="Deal on the simulated machine (over a pseudo-terminal).")
    ] = False,
    port: Annotated[str | None, typer.Option(help="A real machine's pyserial URL (/dev/croupier-dealer).")] = None,
    players: Annotated[int | None, typer.Option(help="Seats (Nap: 2 to 6).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the simulated stack order and faults.")] = None,
    faults: Annotated[
        str | None,
        typer.Option(
            help="Simulated faults, a comma list: corrupt=R, drop=R, jam-at=K, double-feed-at=K, unreadable-at=K, "
            "estop-at=K, empty-at=K, reset-after=K, vanish-at=K, missing=9H, extra=QS, foreign=2C."
        ),
    ] = None,
    speed: Annotated[float, typer.Option(help="Simulated mechanics run this many times faster.")] = 1.0,
    deal_file: Annotated[
        Path | None, typer.Option("--deal-file", help="Deal as this file says: a table log's first deal, or PBN.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as one JSON object.")] = False,
) -> None:
    """Deal one hand through the dealing machine (or its simulator) and report what went where."""
    from controller import dealing
    from controller.deal_view import ConsoleOperator, DealProgress, print_deal
    from simulators.faults import BadFaultSpec, parse_faults

    if sim_ == (port is not None):
        fail("give either --sim or --port URL")
    if not speed > 0 or speed != speed or speed == float("inf"):
        fail(f"--speed must be a positive number, not {speed}")
    if port is not None and faults:
        fail("--faults applies to the simulated machine only (--sim)")
    try:
        chosen = get_game(game)
        n = dealing.seats_for(chosen, players)
        fixed = dealing.read_deal_file(deal_file, chosen, n) if deal_file is not None else None
        spec = parse_faults(faults)
        plan = dealing.plan_for(chosen, n, fixed)
    except (EngineError, dealing.BadDealFile, BadFaultSpec) as exc:
        fail(str(exc))
    view = nullcontext() if as_json else DealProgress(console, len(chosen.pack), chosen.title)
    observer = None if as_json else view.observe  # type: ignore[union-attr]
    try:
        with view:
            if port is None:
                result = dealing.deal_on_sim(
                    chosen, n, seed=seed, spec=spec, speed=speed, fixed=fixed, observer=observer
                )
            else:
                outcome = dealing.deal_on_port(port, plan, ConsoleOperator(console), observer)
                result = dealing.result_json(chosen, outcome, None, {})
    except BadFaultSpec as exc:
        fail(str(exc))
    except BridgeError as exc:
        fail(f"dealing machine: {exc}", 1)
    if as_json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        print_deal(console, result, n)


@bench_app.command("engine")
def bench_engine(
    game: Annotated[list[str] | None, typer.Option(help="Games to measure (default: all).")] = None,
    runs: Annotated[int, typer.Option(min=1, help="Runs per game; the median is reported.")] = 5,
    hands: Annotated[int, typer.Option(min=1, help="Hands per run.")] = 4000,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    rlcard: Annotated[bool, typer.Option(help="Compare with RLCard's bridge, if installed.")] = True,
) -> None:
    """Random legal playouts through the engine's public API: cards/s and legal queries/s."""
    from rich.table import Table

    from benchmarks.engine import playout_figures

    names = game or list(GAMES)
    figures = []
    for name in names:
        try:
            chosen = get_game(name)
        except EngineError as exc:
            fail(str(exc))
        with (
            console.status(f"playing {runs} x {hands} {name} hands...", spinner="dots")
            if not as_json
            else nullcontext()
        ):
            figures.append(playout_figures(chosen, runs=runs, hands=hands))
    if as_json:
        sys.stdout.write(json.dumps([f.to_json() for f in figures]) + "\n")
        return
    table = Table(title="Engine: random legal playouts (single thread, median of runs; packs shuffled untimed)")
    for column in ("game", "cards/s", "legal queries/s", "hands/s", "cards/hand", "runs x hands"):
        table.add_column(column, justify="right")
    for f in figures:
        table.add_row(
            f.game,
            f"{f.cards_per_s:,.0f}",
            f"{f.queries_per_s:,.0f}",
            f"{f.hands_per_s:,.0f}",
            f"{f.cards_per_hand:.2f}",
            f"{f.runs} x {f.hands_per_run}",
        )
    console.print(table)
    if rlcard:
        _compare_with_rlcard(figures)


@bench_app.command("dealer")
def bench_dealer(
    game: Annotated[list[str] | None, typer.Option(help="Games to measure (default: all).")] = None,
    corrupt: Annotated[float, typer.Option(help="Share of bytes corrupted on the noisy line.")] = 0.01,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Host overhead per card at commercial speed (clean and noisy line), and cards/s at 115200 baud."""
    from rich.table import Table

    from benchmarks.dealer import overhead, throughput

    if not 0 <= corrupt <= 0.5:
        fail(f"--corrupt must be between 0 and 0.5, not {corrupt}")
    chosen = []
    for name in game or list(GAMES):
        try:
            chosen.append(get_game(name))
        except EngineError as exc:
            fail(str(exc))
    with console.status("dealing at commercial speed...", spinner="dots") if not as_json else nullcontext():
        figures = [overhead(g, c) for g in chosen for c in (0.0, corrupt)]
        limits = [throughput(g) for g in chosen]
    if as_json:
        sys.stdout.write(
            json.dumps({"overhead": [f.to_json() for f in figures], "throughput": [t.to_json() for t in limits]}) + "\n"
        )
        return
    table = Table(title="Host overhead at ~100 ms a card (target: 2% clean, 10% with 1% corrupted)")
    for column in ("game", "line", "cards", "mech. s", "deal s", "overhead", "retx", "status"):
        table.add_column(column, justify="right")
    for f in figures:
        table.add_row(
            f.game, f.line, str(f.cards), f"{f.mechanical_s:.2f}", f"{f.deal_s:.2f}", f"{f.overhead_pct:.2f}%",
            str(f.retransmissions), f.status,
        )  # fmt: skip
    console.print(table)
    table = Table(title="Protocol limit: mechanics at zero, 115200 baud")
    for column in ("game", "cards", "deal s", "cards/s", "status"):
        table.add_column(column, justify="right")
    for t in limits:
        table.add_row(t.game, str(t.cards), f"{t.deal_s:.3f}", f"{t.cards_per_s:.0f}", t.status)
    console.print(table)


def _compare_with_rlcard(figures: list[Any]) -> None:
    """RLCard's bridge random playouts in this process, and each game's speed relative to it."""
    from benchmarks.rlcard_bridge import rlcard_bridge_figures

    with console.status("playing RLCard bridge hands...", spinner="dots"):
        reference = rlcard_bridge_figures()
    if reference is None:
        console.print("RLCard is not installed: comparison skipped (pip install 'croupier[bench]')")
        return
    console.print(
        f"{reference.name}: {reference.cards_per_s:,.0f} cards/s ({reference.runs} x {reference.hands_per_run})"
    )
    for f in figures:
        console.print(f"  {f.game}: {f.cards_per_s / reference.cards_per_s:.1f} x RLCard bridge")


def main() -> None:
    # Errors only by default (stdout is for results); CROUPIER_LOG=debug shows the serial traffic too.
    level = os.environ.get("CROUPIER_LOG", "error").upper()
    logging.basicConfig(
        level=level if level in logging.getLevelNamesMapping() else "ERROR", format="%(name)s: %(message)s"
    )
    app()
