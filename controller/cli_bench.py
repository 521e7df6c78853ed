"""``croupier bench``: the engine, vision, dealer, table and club measurements."""

from __future__ import annotations

import json
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from controller.cli_common import bench_app, console, fail
from engine.errors import EngineError
from engine.games import GAMES, get_game

if TYPE_CHECKING:
    from benchmarks.vision import SpeedFigure


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


@bench_app.command("vision")
def bench_vision(
    frames: Annotated[int, typer.Option(min=2, help="Frames per speed case.")] = 12,
    scenes: Annotated[int, typer.Option(min=1, help="Rendered scenes per design (six cards each).")] = 30,
    size: Annotated[str, typer.Option(help="Rendered frame size: 1280x720 or 1920x1080.")] = "1280x720",
    seed: Annotated[
        list[int] | None,
        typer.Option(help="Seed of the rendered scenes; repeat it to score over several (default 11)."),
    ] = None,
    real: Annotated[bool, typer.Option(help="Score the real photographs' validation half (--no-real: skip).")] = True,
    half: Annotated[
        str,
        typer.Option(
            help="The real photographs' half: validation (the figures), train (to choose between models on) or "
            "held-out (the part of the training half a training given --hold-out is not taught)."
        ),
    ] = "validation",
    rendered: Annotated[bool, typer.Option(help="Score rendered scenes (--no-rendered: skip).")] = True,
    speed: Annotated[bool, typer.Option(help="Time the frames (--no-speed: accuracy only).")] = True,
    model: Annotated[
        Path | None, typer.Option(help="Another index detector (ONNX) than the shipped one, to compare.")
    ] = None,
    reader: Annotated[
        Path | None,
        typer.Option(help="Another index reader (ONNX, its window in the .json beside it) than the shipped one."),
    ] = None,
    corner: Annotated[
        bool, typer.Option(help="Weigh each read by the corner reader (--no-corner: without it, to compare).")
    ] = True,
    float_readers: Annotated[
        bool, typer.Option(help="The shipped readers in 32-bit floats, not their 8-bit files, to compare.")
    ] = False,
    ink: Annotated[
        bool, typer.Option(help="Check that a red card's index shows red ink (--no-ink: without it, to compare).")
    ] = True,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """The card reader's accuracy on real photographs and rendered scenes; per-frame time."""
    from benchmarks.vision import real_figures, rendered_figures, speed_figures
    from vision.indices import with_shipped
    from vision.networks import ModelError
    from vision.photo_set import HALF_NAMES, HALVES, PhotoSetError

    if size not in ("1280x720", "1920x1080"):
        fail(f"unknown size {size!r} (use 1280x720 or 1920x1080)")
    if half not in HALVES:
        fail(f"unknown half {half!r} of the real photographs (use {', '.join(HALVES)})")
    detector = None
    if model is not None or reader is not None or not corner or float_readers or not ink:
        for path in (model, reader):
            if path is not None and not path.is_file():
                fail(f"{path}: no such model file")
        try:
            detector = with_shipped(model, reader, float_readers=float_readers, read_corner=corner, check_ink=ink)
        except ModelError as exc:
            fail(str(exc))
    width, height = (int(v) for v in size.split("x"))
    seeds = tuple(seed or (11,))
    figures: list[Any] = []
    timings: list[SpeedFigure] = []
    status = (lambda text: console.status(text, spinner="dots")) if not as_json else (lambda text: nullcontext())
    if real:
        with status(f"reading the real photographs' {HALF_NAMES[half]}..."):
            try:
                figures += real_figures(detector=detector, half=half)
            except PhotoSetError as exc:
                fail(f"{exc} (or run with --no-real)")
    if rendered:
        with status("reading rendered scenes..."):
            figures += rendered_figures(scenes, (width, height), seeds, detector)
    if speed:
        with status("timing frames..."):
            timings = speed_figures(frames, detector=detector)
    if as_json:
        doc = {"speed": [f.to_json() for f in timings], "accuracy": [f.to_json() for f in figures]}
        sys.stdout.write(json.dumps(doc) + "\n")
        return
    if figures:
        _print_accuracy(figures)
    if timings:
        _print_speed(timings)


def _print_accuracy(figures: list[Any]) -> None:
    from rich.table import Table

    # Fits 80 columns: the source wraps, not the figures; confusions are listed under the table.
    table = Table(title="Vision: cards read (real photos: the validation half, unless named; rendered: per design)")
    table.add_column("source", overflow="fold", ratio=1)
    for column in ("size", "cards", "right", "wrong", "unread", "prec.", "recall"):
        table.add_column(column, justify="right", no_wrap=True)
    for f in figures:
        size = f.size.replace("1280x720", "720p").replace("1920x1080", "1080p")
        row = (str(f.cards), str(f.right), str(f.wrong), str(f.unknown), f"{f.precision:.1%}", f"{f.recall:.1%}")
        table.add_row(f.source, size, *row)
    console.print(table)
    for f in figures:
        if f.confusions:
            console.print(f"  {f.source}: {', '.join(f.confusions[:4])}", markup=False)


def _print_speed(timings: list[SpeedFigure]) -> None:
    from rich.table import Table

    table = Table(title="Vision: ms per frame, one thread (mat, changes, detector, cards, zones)")
    for column in ("frame", "cards", "state", "median", "p95", "CPU med.", "CPU p95", "frames"):
        table.add_column(column, justify="right", no_wrap=True)
    for f in timings:
        size_text = {(1280, 720): "720p", (1920, 1080): "1080p"}.get(tuple(f.size), f"{f.size[0]}x{f.size[1]}")
        times = (f"{f.median_ms:.1f}", f"{f.p95_ms:.1f}", f"{f.cpu_median_ms:.1f}", f"{f.cpu_p95_ms:.1f}")
        table.add_row(size_text, str(f.cards), f.state, *times, str(f.frames))
    console.print(table)


@bench_app.command("dealer")
def bench_dealer(
    game: Annotated[list[str] | None, typer.Option(help="Games to measure (default: all).")] = None,
    corrupt: Annotated[float, typer.Option(help="Share of bytes corrupted on the noisy line.")] = 0.01,
    loss: Annotated[
        bool,
        typer.Option(
            "--loss",
            help="Instead: the highest share of dropped bytes at which 99% of deals complete "
            "(default game poley; slow: --deals deals at each rate).",
        ),
    ] = False,
    deals: Annotated[int, typer.Option(min=1, help="With --loss: deals at each rate.")] = 100,
    seed: Annotated[int, typer.Option(help="With --loss: seed of the first deal's line and pack.")] = 1,
    jobs: Annotated[int, typer.Option(min=1, max=32, help="With --loss: deals run side by side.")] = 4,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Host overhead per card at commercial speed (clean and noisy line), and cards/s at 115200 baud;
    with --loss, the highest loss rate at which 99% of deals still complete."""
    from rich.table import Table

    from benchmarks.dealer import overhead, throughput

    if not 0 <= corrupt <= 0.5:
        fail(f"--corrupt must be between 0 and 0.5, not {corrupt}")
    chosen = []
    for name in game or (["poley"] if loss else list(GAMES)):
        try:
            chosen.append(get_game(name))
        except EngineError as exc:
            fail(str(exc))
    if loss:
        _bench_dealer_loss([g.name for g in chosen], deals, seed, jobs, as_json)
        return
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


def _bench_dealer_loss(games: list[str], deals: int, seed: int, jobs: int, as_json: bool) -> None:
    from rich.table import Table

    from benchmarks.dealer_loss import TARGET, loss_limit

    figures = []
    for name in games:
        shown = None if as_json else console.status(f"{name}: dealing on a lossy line...", spinner="dots")

        def progress(rate: float, done: int, total: int, shown: Any = shown, name: str = name) -> None:
            if shown is not None:
                shown.update(f"{name}: {rate:.0%} of bytes dropped, {done} of {total} deals...")

        with shown or nullcontext():
            figures.append(loss_limit(name, deals=deals, seed=seed, jobs=jobs, progress=progress))
    if as_json:
        sys.stdout.write(json.dumps({"loss": [f.to_json() for f in figures]}) + "\n")
        return
    for f in figures:
        table = Table(title=f"{f.game}: deals on a line losing bytes both ways (real time, ~100 ms a card)")
        for column in ("bytes dropped", "complete", "median s", "why not"):
            table.add_column(column, justify="right" if column != "why not" else "left")
        for r in f.rates:
            done = f"{r.complete} of {r.deals}" + (" (99% out of reach)" if r.stopped_early else "")
            table.add_row(f"{r.rate:.0%}", done, f"{r.median_s:.1f}", "; ".join(r.why_not))
        console.print(table)
        limit = "below the lowest rate tried" if f.highest_rate is None else f"{f.highest_rate:.0%} of bytes dropped"
        console.print(
            f"Highest loss at which {TARGET:.0%} of {f.game} deals complete: {limit} "
            f"(seed {f.seed}, deal k uses seed {f.seed}+k; {f.command})",
            markup=False,
        )


@bench_app.command("table")
def bench_table(
    clients: Annotated[list[int] | None, typer.Option(help="WebSocket clients per run (default: 1 and 50).")] = None,
    cards: Annotated[int, typer.Option(min=2, help="Cards played per run.")] = 12,
    seed: Annotated[int, typer.Option(help="Seed of the simulated table.")] = 1,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Card-to-page latency (a card still on the mat to its message on the WebSocket) and the
    table's CPU share, with the whole table simulated in real time."""
    from rich.table import Table

    from benchmarks.table import run_table

    counts = clients or [1, 50]
    if any(not 1 <= n <= 500 for n in counts):
        fail("--clients must be between 1 and 500")
    runs = []
    for n in counts:
        with (
            console.status(f"playing {cards} cards in real time with {n} page(s) open...", spinner="dots")
            if not as_json
            else nullcontext()
        ):
            runs.append(run_table(n, cards, seed))
    if as_json:
        sys.stdout.write(json.dumps([{"latency": lat.to_json(), "cpu": cpu.to_json()} for lat, cpu in runs]) + "\n")
        return
    table = Table(title="Card on the mat -> its message on the page's WebSocket (real time, camera at 10 fps)")
    for column in ("clients", "cards", "messages", "median ms", "p95 ms", "max ms", "frame interval ms"):
        table.add_column(column, justify="right")
    for lat, _ in runs:
        table.add_row(
            str(lat.clients), str(lat.cards), str(lat.messages), f"{lat.median_ms:.0f}", f"{lat.p95_ms:.0f}",
            f"{lat.max_ms:.0f}", f"{lat.frame_interval_ms:.0f}",
        )  # fmt: skip
    console.print(table)
    table = Table(title="The table's CPU while it plays in real time (the simulator's own work taken out)")
    for column in ("clients", "wall s", "table CPU s", "of one core", "of a 4-core Pi", "simulator CPU s"):
        table.add_column(column, justify="right")
    for lat, cpu in runs:
        table.add_row(
            str(lat.clients), f"{cpu.wall_s:.0f}", f"{cpu.table_cpu_s:.1f}", f"{cpu.table_share_of_one_core:.0%}",
            f"{cpu.table_share_of_a_pi:.0%}", f"{cpu.simulator_cpu_s:.1f}",
        )  # fmt: skip
    console.print(table)


def _compare_with_rlcard(figures: list[Any]) -> None:
    """RLCard's bridge random playouts in this process, and each game's speed relative to it."""
    from benchmarks.rlcard_bridge import rlcard_bridge_figures

    with console.status("playing RLCard bridge hands...", spinner="dots"):
        reference = rlcard_bridge_figures()
    if reference is None:
        console.print("RLCard is not installed: comparison skipped (pip install 'croupier[bench]')", markup=False)
        return
    console.print(
        f"{reference.name}: {reference.cards_per_s:,.0f} cards/s ({reference.runs} x {reference.hands_per_run})"
    )
    for f in figures:
        console.print(f"  {f.game}: {f.cards_per_s / reference.cards_per_s:.1f} x RLCard bridge")


@bench_app.command("club")
def bench_club(
    tables: Annotated[int, typer.Option(min=1, max=200, help="Tables publishing at once (each a real runtime).")] = 50,
    hands: Annotated[
        int, typer.Option(min=1, max=20, help="Hands each table journals for the run into PostgreSQL.")
    ] = 8,
    live_s: Annotated[float, typer.Option(min=1, max=3600, help="Seconds of play at live pace.")] = 60,
    pace_s: Annotated[
        float, typer.Option(min=0.1, max=60, help="Seconds between two events of a table at live pace.")
    ] = 1.0,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """The club end to end, with a real Mosquitto and PostgreSQL started for the run and `croupier
    club serve` in its own process: events a second from the tables' journals to rows committed
    in PostgreSQL, and the delay from a table's event to the club's page API at live pace."""
    from rich.table import Table

    from benchmarks.club_tables import ClubBenchError, measure

    shown = None if as_json else console.status("the club's benchmark...", spinner="dots")
    progress = shown.update if shown is not None else lambda text: None
    with shown or nullcontext():
        try:
            f = measure(tables, hands, live_s, pace_s, progress=progress)
        except ClubBenchError as exc:
            fail(str(exc))
    if as_json:
        sys.stdout.write(json.dumps({**f.to_json(), "command": f.command}) + "\n")
        return
    table = Table(title=f"Club: {f.tables} tables' journals -> Mosquitto -> croupier club serve -> PostgreSQL")
    for column in ("hands a table", "events", "messages", "journaled/s", "into PostgreSQL s", "events/s", "messages/s"):
        table.add_column(column, justify="right")
    table.add_row(
        str(f.hands), str(f.events), str(f.messages), f"{f.journal_events_per_s:,.0f}", f"{f.drain_s:.2f}",
        f"{f.events_per_s:,.0f}", f"{f.messages_per_s:,.0f}",
    )  # fmt: skip
    console.print(table)
    table = Table(title=f"Live pace: a table's event every {f.pace_s:g} s for {f.live_s:g} s; delay from its journal")
    for column in ("events", "to the page p50", "p95", "max", "to the row p50", "p95", "not shown"):
        table.add_column(column, justify="right")
    table.add_row(
        str(f.live_events), f"{f.page_p50_ms:.0f} ms", f"{f.page_p95_ms:.0f} ms", f"{f.page_max_ms:.0f} ms",
        f"{f.row_p50_ms:.0f} ms", f"{f.row_p95_ms:.0f} ms", str(f.lost),
    )  # fmt: skip
    console.print(table)
    console.print(
        f"The page: a WebSocket client on the club's live updates, {f.updates_per_s:.1f} updates a second. "
        f"Targets: p95 under 500 ms, 2,000 events/s. "
        f"Load average {f.load_average:.1f} on {f.cores} cores. {f.command}",
        markup=False,
    )
