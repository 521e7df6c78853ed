"""``croupier deal``: one deal through the dealing machine, real or simulated."""

from __future__ import annotations

import json
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated

import typer

from controller.cli_common import app, console, fail
from engine.errors import EngineError
from engine.games import GAMES, get_game
from firmware_bridge.errors import BridgeError


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
        Path | None,
        typer.Option(
            "--deal-file",
            help="Deal as this file says: a table log's first deal (for --players seats, shaped by the log's "
            "options), or PBN.",
        ),
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
        plan = dealing.plan_for(chosen, n, fixed.event, fixed.options) if fixed else dealing.plan_for(chosen, n)
    except (EngineError, dealing.BadDealFile, BadFaultSpec) as exc:
        fail(str(exc))
    view = nullcontext() if as_json else DealProgress(console, len(chosen.pack), chosen.title)
    observer = None if as_json else view.observe  # type: ignore[union-attr]
    try:
        with view:
            if port is None:
                result = dealing.deal_on_sim(chosen, plan, seed=seed, spec=spec, speed=speed, observer=observer)
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
