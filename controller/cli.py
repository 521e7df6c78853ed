"""The ``croupier`` command line: the table's own commands and ``main``.

The other commands live beside it by area (``cli_vision``, ``cli_deal``, ``cli_bench``) and
are registered on the same typer app when this module imports them."""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from club.cli import serve as club_serve  # typer and the settings only: the broker and database load when it runs
from controller import cli_backup, cli_bench, cli_deal, cli_doctor, cli_journal, cli_vision  # noqa: F401  (they register their commands)
from controller.cli_common import app, check_can_listen, club_app, console, fail, interrupt
from controller.log_file import LogFileError, read_log_file
from controller.render import print_report, report_in_words
from engine.errors import EngineError
from engine.games import GAMES, get_game
from engine.log import MalformedLog, dumps, referee_text

if TYPE_CHECKING:
    from controller.settings import ClubSettings, Settings

club_app.command("serve")(club_serve)


@app.command()
def referee(
    log: Annotated[Path, typer.Argument(help="A table log (JSON) to replay.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Replay a table log and report every hand, its violations and the match."""
    try:
        text = read_log_file(log)
    except LogFileError as exc:
        fail(str(exc))
    try:
        result = referee_text(text)
    except MalformedLog as exc:
        fail(f"{log}: malformed table log: {exc}")
    if as_json:
        sys.stdout.write(json.dumps(result.report()) + "\n")
        return
    print_report(console, report_in_words(result), result.match.players)


HEADLESS_HANDS = 1  # a headless run plays one hand (seconds, not a match's hour), unless --hands says otherwise
HEADLESS_SPEED = 200.0  # ... and its speed: the simulated mechanics and people, not the code, are sped up


@app.command()
def sim(
    game: Annotated[str, typer.Option(help=f"The game: {', '.join(GAMES)}.")] = "poley",
    hands: Annotated[
        int | None,
        typer.Option(
            min=1, help=f"Hands to play (default: until the match is over; headless, with devices: {HEADLESS_HANDS})."
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed for a repeatable match.")] = None,
    players: Annotated[int | None, typer.Option(min=2, max=6, help="Seats (Nap only).")] = None,
    speed: Annotated[
        float | None,
        typer.Option(
            min=0.01, help=f"How many times faster than a real table (default 1; headless: {HEADLESS_SPEED:g})."
        ),
    ] = None,
    mistakes: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Share of plays that are mistakes (a revoke, out of turn).")
    ] = 0.0,
    host: Annotated[str, typer.Option(help="Address the page is served on.")] = "127.0.0.1",
    port: Annotated[
        int | None, typer.Option(min=1, max=65535, help="Port (default 8000; headless: any free one).")
    ] = None,
    store: Annotated[Path | None, typer.Option(help="Keep the journal here (default: a temporary one).")] = None,
    headless: Annotated[bool, typer.Option(help="Only print the result.")] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as `croupier referee --json` does.")
    ] = False,
    log: Annotated[Path | None, typer.Option(help="Write the match's table log to this file.")] = None,
    engine_only: Annotated[
        bool, typer.Option(help="No devices: the players act on the engine directly (quick runs of many hands).")
    ] = False,
    config: Annotated[
        Path | None,
        typer.Option(help="A settings file whose [club] section the simulated table publishes with (docs/club.md)."),
    ] = None,
) -> None:
    """The whole table, simulated: the dealing machine on a pseudo-terminal, the camera's frames
    through the vision pipeline, the panel on mock pins, the controller, journal and web page."""
    try:
        chosen = get_game(game)
    except EngineError as exc:
        fail(str(exc))
    if players is not None and players not in chosen.seat_counts:
        fail(f"{chosen.title} is played by {' or '.join(map(str, chosen.seat_counts))} players, not {players}")
    if (headless or as_json) and not engine_only:  # nobody watches the devices: one hand, fast
        hands = HEADLESS_HANDS if hands is None else hands
        speed = HEADLESS_SPEED if speed is None else speed
    speed = 1.0 if speed is None else speed
    club = _club_of(config) if config is not None else None
    if club is not None and engine_only:
        fail("--engine-only plays without the table's controller and journal: it cannot publish to a club")
    if engine_only:
        table_log = _engine_only_match(chosen, players, seed, hands, speed, quiet=headless or as_json)
    else:
        from controller.sim_run import run_simulated_table

        table_log = run_simulated_table(
            chosen.name, players, seed, hands, speed, mistakes, host, port, store, headless or as_json, console, club
        )
    _finish(table_log, log, as_json)


def _club_of(config: Path) -> ClubSettings | None:
    """The [club] section of a settings file (the simulated table takes nothing else from it)."""
    from controller.settings import SettingsError, load_settings

    try:
        return load_settings(config).club
    except SettingsError as exc:
        fail(str(exc))


def _engine_only_match(chosen, players, seed, hands, speed, quiet):  # type: ignore[no-untyped-def]
    from controller.show import TableShow
    from simulators.table import SimulatedTable

    try:
        table = SimulatedTable(chosen, players=players, seed=seed)
    except EngineError as exc:
        fail(str(exc))
    table.play(hands, None if quiet else TableShow(console, speed).observe)
    return json.loads(dumps(table.log()))


def _finish(table_log: dict, log: Path | None, as_json: bool) -> None:  # type: ignore[type-arg]
    """Write the log if asked, and print what the referee makes of it."""
    text = json.dumps(table_log)
    if log is not None:
        try:
            log.write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            fail(f"cannot write {log}: {exc.strerror}")
    result = referee_text(text)
    if as_json:
        sys.stdout.write(json.dumps(result.report()) + "\n")
    else:
        print_report(console, report_in_words(result), result.match.players)


@app.command()
def serve(
    config: Annotated[Path | None, typer.Option(help="The settings file (TOML).")] = None,
    host: Annotated[str | None, typer.Option(help="Address to listen on (default: api.host).")] = None,
    port: Annotated[int | None, typer.Option(min=1, max=65535, help="Port (default: api.port).")] = None,
) -> None:
    """Serve the table: its devices as the settings say (simulated by default), the web page and
    API; resume the journal's match; print the control token once."""
    from contextlib import ExitStack

    from api.app import create_app
    from api.auth import load_or_create_token, token_path
    from controller.devices import DeviceError, build_live_table
    from controller.runtime import Runtime
    from controller.sd_notify import answers
    from controller.server_limits import ServerLimits, TooFewOpenFiles, fewer_connections_note, fit_open_files
    from controller.server_run import run_server
    from controller.settings import SettingsError, load_settings
    from controller.store import JournalError

    resources = ExitStack()
    try:
        settings = load_settings(config)
        path = token_path(settings.store.path)
        token, created = load_or_create_token(path)
        if created:  # shown once (it stays readable only by its owner), and before anything can fail
            sys.stdout.write(f"control token (shown once; kept in {path}): {token}\n")
            sys.stdout.flush()
        runtime = Runtime.open(settings, token)
        live = build_live_table(settings, runtime, resources)
    except (SettingsError, JournalError, DeviceError) as exc:
        resources.close()
        fail(str(exc))
    except OSError as exc:
        resources.close()
        fail(f"cannot keep the control token beside the journal: {exc}")
    sys.stdout.write(_devices_line(settings, path))
    listen_host, listen_port = host or settings.api.host, port or settings.api.port
    check_can_listen(listen_host, listen_port)
    wanted = ServerLimits.from_settings(settings.api)
    try:
        limits = fit_open_files(wanted)
    except TooFewOpenFiles as exc:
        resources.close()
        fail(str(exc))
    if limits != wanted:
        sys.stderr.write(f"croupier: {fewer_connections_note(wanted, limits)}\n")
    sys.stdout.write(f"croupier: serving the table on http://{listen_host}:{listen_port}/ (API docs at /docs)\n")
    sys.stdout.flush()
    live.start()
    try:
        # systemd (deploy/systemd) hears when the page answers, and its watchdog is fed while the table does
        run_server(create_app(runtime), listen_host, listen_port, limits.uvicorn_options(), answers(runtime))
    finally:
        live.close()
        resources.close()


@app.command()
def token(
    config: Annotated[Path | None, typer.Option(help="The settings file (TOML).")] = None,
    rotate: Annotated[bool, typer.Option(help="Make a new token; the old one stops working.")] = False,
) -> None:
    """Show the control token (made if there is none), or make a new one with --rotate."""
    from api.auth import load_or_create_token, new_token, token_path
    from controller.settings import SettingsError, load_settings

    try:
        path = token_path(load_settings(config).store.path)
        value = new_token(path) if rotate else load_or_create_token(path)[0]
    except SettingsError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot keep the control token beside the journal: {exc}")
    sys.stdout.write(f"control token (kept in {path}): {value}\n")
    if rotate:
        sys.stdout.write("a running croupier serve keeps the old one until it is started again\n")


def _devices_line(settings: Settings, token_file: Path) -> str:
    """What a start of ``croupier serve`` uses, in one line: the devices, the journal, the token."""
    dealer = {"sim": "simulated", "none": "none"}.get(settings.dealer.port, settings.dealer.port)
    camera = {"sim": "simulated", "none": "none"}.get(settings.camera.source, settings.camera.source)
    pins = "mock (no GPIO)" if settings.panel.pin_factory == "mock" else settings.panel.pin_factory
    return (
        f"croupier: dealing machine {dealer}; camera {camera}; panel pins {pins}; "
        f"journal {settings.store.path}; control token kept in {token_file}\n"
    )


def main() -> None:
    """Run the command line. A usage error is one line on stderr and exit status 2."""
    # Errors only by default (stdout is for results); CROUPIER_LOG=debug shows the serial traffic too.
    level = os.environ.get("CROUPIER_LOG", "error").upper()
    logging.basicConfig(
        level=level if level in logging.getLevelNamesMapping() else "ERROR", format="%(name)s: %(message)s"
    )
    # SIGTERM (systemd, kill) leaves the way Ctrl-C does: every context and finally runs, so the
    # simulated table's pseudo-terminal and temporary journal are removed, not left behind.
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
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
