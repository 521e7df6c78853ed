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
vision_app = typer.Typer(no_args_is_help=True, help="Read cards from camera images.")
app.add_typer(vision_app, name="vision")

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
def serve(
    config: Annotated[Path | None, typer.Option(help="The settings file (TOML).")] = None,
    host: Annotated[str | None, typer.Option(help="Address to listen on (default: api.host).")] = None,
    port: Annotated[int | None, typer.Option(min=1, max=65535, help="Port (default: api.port).")] = None,
) -> None:
    """Serve the table's web API: resume the journal's match, print the control token once."""
    import uvicorn

    from api.app import create_app
    from api.auth import load_or_create_token, token_path
    from controller.runtime import Runtime
    from controller.settings import SettingsError, load_settings
    from controller.store import JournalError

    try:
        settings = load_settings(config)
        path = token_path(settings.store.path)
        token, created = load_or_create_token(path)
        runtime = Runtime.open(settings, token)
    except (SettingsError, JournalError) as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot keep the control token beside the journal: {exc}")
    if created:  # shown once: it stays readable only by its owner in the token file
        sys.stdout.write(f"control token (shown once; kept in {path}): {token}\n")
    listen_host, listen_port = host or settings.api.host, port or settings.api.port
    _check_can_listen(listen_host, listen_port)
    sys.stdout.write(f"croupier: serving the table on http://{listen_host}:{listen_port}/ (API docs at /docs)\n")
    sys.stdout.flush()
    try:
        uvicorn.run(create_app(runtime), host=listen_host, port=listen_port, log_level="warning")
    finally:
        runtime.stop()


def _check_can_listen(host: str, port: int) -> None:
    """Fail in one line if the address is taken, before uvicorn logs it its own way."""
    import socket

    try:
        with socket.create_server((host, port), reuse_port=False):
            pass
    except OSError as exc:
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")


@app.command()
def mat(
    out: Annotated[Path, typer.Option(help="Where to write the mat: a .pdf or a .png file.")],
    seats: Annotated[int, typer.Option(help="Seats around the table: 4 or 6.")] = 4,
    size: Annotated[str, typer.Option(help="Sheet size: a2 or a3 (landscape).")] = "a2",
    dpi: Annotated[int, typer.Option(min=50, max=600, help="Print resolution.")] = 150,
) -> None:
    """Write the printable play mat: four ArUco markers, one zone per seat and a centre area."""
    from vision.mat import MatError, MatLayout
    from vision.mat_print import MatOutputError, write_mat

    try:
        write_mat(MatLayout.create(seats, size.lower()), out, dpi)
    except (MatError, MatOutputError) as exc:
        fail(str(exc))


@vision_app.command("scan")
def vision_scan(
    images: Annotated[list[Path], typer.Argument(help="Photos or frames of cards on a table.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON line per image.")] = False,
    deck: Annotated[
        str,
        typer.Option(
            help="Whose indices: project, kde:standard, kde:nicu-white, aisleriot:anglo, or an enrolled deck's folder."
        ),
    ] = "project",
) -> None:
    """Find and read every face-up card in each image (coordinates in image pixels)."""
    import cv2

    from vision.scan import recognise

    templates = _templates(deck)
    for path in images:
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
        if frame is None:
            fail(f"cannot read {path}: {'not an image' if path.is_file() else 'no such file'}")
        found = [r for r in recognise(frame, templates) if r.card is not None]
        if as_json:
            doc = {"image": str(path), "cards": [r.to_json() for r in found]}
            sys.stdout.write(json.dumps(doc) + "\n")
        else:
            listing = ", ".join(f"{r.card} ({r.confidence:.2f})" for r in found) or "no card"
            console.print(f"{path}: {listing}", highlight=False)


@vision_app.command("watch")
def vision_watch(
    source: Annotated[str, typer.Argument(help="picamera2, uvc:N, file:VIDEO, folder:IMAGES, or sim (a demo trick).")],
    seats: Annotated[int, typer.Option(help="Seats on the mat: 4 or 6.")] = 4,
    size: Annotated[str, typer.Option(help="The mat's sheet: a2 or a3.")] = "a2",
    deck: Annotated[str, typer.Option(help="Whose indices to read (see `vision scan`).")] = "project",
    frames: Annotated[int | None, typer.Option(min=1, help="Stop after this many frames.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON line per event.")] = False,
) -> None:
    """Follow the table through the camera and print each card played and each trick cleared."""
    from vision.mat import MatError, MatLayout
    from vision.observe import Observer
    from vision.sources import SourceError
    from vision.tracker import CardPlayed, Tracker

    try:
        layout = MatLayout.create(seats, size.lower())
    except MatError as exc:
        fail(str(exc))
    observer = Observer(layout, _templates(deck))
    tracker = Tracker([z.name for z in layout.zones if z.seat is not None])
    try:
        camera = _open_camera(source, layout)
        count = 0
        while (frames is None or count < frames) and (frame := camera.read()) is not None:
            count += 1
            for event in tracker.update(observer.observe(frame)):
                if isinstance(event, CardPlayed):
                    doc = {"event": "card_played", "seat": event.seat, "card": str(event.card), "frame": event.frame}
                    text = f"frame {event.frame}: {event.seat} played {event.card.name()}"
                else:
                    doc = {"event": "trick_cleared", "cards": [str(c) for c in event.cards], "frame": event.frame}
                    text = f"frame {event.frame}: trick cleared ({' '.join(map(str, event.cards))})"
                if as_json:
                    sys.stdout.write(json.dumps(doc) + "\n")
                    sys.stdout.flush()
                else:
                    console.print(text, highlight=False)
        camera.close()
    except SourceError as exc:
        fail(str(exc))


def _open_camera(spec: str, layout: Any) -> Any:
    """A frame source; ``sim`` is the simulated camera playing one demo trick on this mat."""
    from vision.sources import open_source

    if spec != "sim":
        return open_source(spec)
    import numpy as np

    from engine.cards import cards
    from simulators.camera import Scene, SimulatedCamera
    from simulators.scenes import tilted_view, trick_scenes

    rng = np.random.default_rng(1)
    view = tilted_view(rng, (1280, 720), "wood", layout)
    played = cards("QH 7D AS KH KS 2C")[: layout.seats]
    look = Scene(light_falloff=0.3, blur_sigma=0.6, noise_sigma=3.0)
    # Cards lie still long enough for the tracker's vote (the first still frame is still "moving").
    return SimulatedCamera(view, trick_scenes(rng, layout, played, look, still_frames=6, gathered_frames=8))


def _templates(deck: str) -> Any:
    """Index templates: the project's own faces, one of the Debian designs, or an enrolled deck's folder."""
    from simulators.card_faces import all_faces
    from vision.classify import IndexTemplates, TemplateError
    from vision.decks import DECKS, DeckError, deck_faces
    from vision.enrol import EnrolError, load_deck

    try:
        if deck == "project":
            faces = all_faces()
        elif deck in DECKS:
            faces = deck_faces(deck)
        else:
            faces = load_deck(Path(deck))
        return IndexTemplates.from_faces(faces)
    except (DeckError, TemplateError, EnrolError) as exc:
        fail(str(exc))


@vision_app.command("enroll")
def vision_enroll(
    photos: Annotated[Path, typer.Argument(help="A folder of photos, one card each, named by code: QS.jpg, TH.png.")],
    out: Annotated[Path, typer.Option(help="The deck folder to write (use it as --deck FOLDER).")],
) -> None:
    """Teach the reader a deck's own indices from one photo of each card."""
    from vision.enrol import EnrolError, enrol_folder

    try:
        enrolled = enrol_folder(photos, out)
    except EnrolError as exc:
        fail(str(exc))
    console.print(f"{len(enrolled)} cards enrolled into {out}: use --deck {out}", highlight=False)


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


@bench_app.command("vision")
def bench_vision(
    frames: Annotated[int, typer.Option(min=2, help="Frames per speed case.")] = 12,
    scenes: Annotated[int, typer.Option(min=1, help="Scenes per deck for accuracy (six cards each).")] = 30,
    size: Annotated[str, typer.Option(help="Frame size for accuracy: 1280x720 or 1920x1080.")] = "1280x720",
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Per-frame time (single thread) and accuracy per deck on rendered scenes."""
    from rich.table import Table

    from benchmarks.vision import accuracy_figures, speed_figures

    if size not in ("1280x720", "1920x1080"):
        fail(f"unknown size {size!r} (use 1280x720 or 1920x1080)")
    width, height = (int(v) for v in size.split("x"))
    with console.status("timing frames...", spinner="dots") if not as_json else nullcontext():
        speed = speed_figures(frames)
    with console.status("reading scenes...", spinner="dots") if not as_json else nullcontext():
        accuracy = accuracy_figures(scenes, (width, height))
    if as_json:
        doc = {"speed": [f.to_json() for f in speed], "accuracy": [f.to_json() for f in accuracy]}
        sys.stdout.write(json.dumps(doc) + "\n")
        return
    table = Table(title="Vision: per-frame time, single thread (mat, detection, reading, zones)")
    for column in ("frame", "cards", "median ms", "p95 ms", "frames"):
        table.add_column(column, justify="right")
    for f in speed:
        table.add_row(f"{f.size[0]}x{f.size[1]}", str(f.cards), f"{f.median_ms:.1f}", f"{f.p95_ms:.1f}", str(f.frames))
    console.print(table)
    table = Table(title=f"Vision: accuracy on rendered scenes at {size} (six cards each, one face down)")
    for column in ("deck", "templates", "cards", "precision", "recall", "wrong", "unknown", "confusions"):
        table.add_column(column, justify="right")
    for a in accuracy:
        s = a.score
        confusions = ", ".join(f"{t}->{r} x{n}" for (t, r), n in s.confusions.most_common(4)) or "-"
        table.add_row(
            a.deck,
            a.templates,
            str(s.cards),
            f"{s.precision:.2%}",
            f"{s.recall:.2%}",
            str(len(s.wrong)),
            str(s.unknown),
            confusions,
        )


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
    """Run the command line. A usage error is one line on stderr and exit status 2."""
    # Errors only by default (stdout is for results); CROUPIER_LOG=debug shows the serial traffic too.
    level = os.environ.get("CROUPIER_LOG", "error").upper()
    logging.basicConfig(
        level=level if level in logging.getLevelNamesMapping() else "ERROR", format="%(name)s: %(message)s"
    )
    try:
        code = app(standalone_mode=False)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.stderr.write("croupier: interrupted\n")
        sys.exit(130)
    except typer.TyperException as exc:  # typer's usage errors: bad option, missing argument
        if type(exc).__name__ == "NoArgsIsHelpError":  # a bare command: show its help
            sys.stdout.write(exc.format_message() + "\n")
            sys.exit(2)
        context = getattr(exc, "ctx", None)
        where = f" (see '{context.command_path} --help')" if context is not None else ""
        sys.stderr.write(f"croupier: {' '.join(exc.format_message().split())}{where}\n")
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)
