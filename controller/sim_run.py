"""Running the simulated table for ``croupier sim``: start it, show it, play, and hand back the log."""

from __future__ import annotations

import logging
import secrets
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from controller.cli_common import check_can_listen, fail, free_port, stop_requested
from controller.render import seat_label
from controller.settings import ClubSettings
from controller.sim_table import SimOptions, SimulatedTableRig
from engine.words import call_words, card_words, declaration_words, suit_words
from simulators.people import TableGoneQuiet

log = logging.getLogger(__name__)

DEFAULT_PORT = 8000


def run_simulated_table(
    game: str,
    players: int | None,
    seed: int | None,
    hands: int | None,
    speed: float,
    mistakes: float,
    host: str,
    port: int | None,
    store: Path | None,
    quiet: bool,
    console: Console,
    club: ClubSettings | None = None,
) -> dict[str, Any]:
    """Play ``hands`` hands (None: the whole match) on a simulated table; the match's table log."""
    port = port if port is not None else (free_port(host) if quiet else DEFAULT_PORT)
    check_can_listen(host, port, advice=" (choose another with --port)")
    options = SimOptions(
        game=game,
        players=players,
        speed=speed,
        seed=seed if seed is not None else secrets.randbelow(1 << 30),
        mistakes=mistakes,
        host=host,
        port=port,
        store=store,
        club=club,
    )
    progress = _HandProgress(hands) if quiet else None
    # Nothing between the rig and its try: a signal there would leave the rig's folders behind.
    rig = SimulatedTableRig(options)
    try:
        rig.start()
        if stop_requested():
            raise KeyboardInterrupt  # it came while the table was being set up, and was lost there
        if progress is None:
            _announce(console, rig)
            rig.runtime.listeners.append(_Narrator(console).tell)
        else:
            progress.start()
            rig.runtime.listeners.append(progress.tell)
        rig.start_match()
        rig.play(hands)
    except KeyboardInterrupt:
        console.print("stopped: the result of what was played follows", style="yellow")
    except TableGoneQuiet as exc:
        rig.close()
        fail(f"the simulated table stalled: {exc}")
    except OSError as exc:
        rig.close()
        fail(f"the simulated table could not run: {exc}")
    finally:
        if progress is not None:
            progress.stop()  # however the run ended: the terminal's cursor comes back
    try:
        return rig.export()
    finally:
        rig.close()


def _announce(console: Console, rig: SimulatedTableRig) -> None:
    console.print(f"croupier: the simulated table is at [bold]{rig.url}[/bold]")
    console.print(f"control token (for the page's setup): {rig.token}")
    console.print(f"{rig.game.title}, {rig.players} seats; the machine deals on {rig.machine.pty.path}")
    club = rig.settings.club
    if club is not None:
        console.print(f"publishing to the club {club.club} as table {club.table} at {club.broker}")
    sys.stdout.flush()


class _HandProgress:
    """A quiet run's progress on stderr (stdout is for the result): hands dealt and played."""

    def __init__(self, hands: int | None) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self._task = self._progress.add_task("hands played", total=hands)

    def start(self) -> None:
        self._progress.start()

    def stop(self) -> None:
        self._progress.stop()

    def tell(self, message: dict[str, Any]) -> None:
        event = message.get("event") or {}
        hand = (message.get("state") or {}).get("hand") or {}
        if event.get("type") == "deal":
            self._progress.update(self._task, description=f"hand {hand.get('number')}: playing")
        elif event.get("type") == "play" and hand.get("record") is not None:
            self._progress.advance(self._task)


class _Narrator:
    """One line in the terminal for each thing the table publishes."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.last_holds: list[str] = []

    def tell(self, message: dict[str, Any]) -> None:
        state = message.get("state", {})
        event = message.get("event") or {}
        names = (state.get("seat_names") or {}).get("names") or []
        game = state.get("game") or ""

        def who(seat: int) -> str:  # the names the page shows (the players' own, else compass points)
            return names[seat] if 0 <= seat < len(names) else seat_label(seat, state.get("players") or 4)

        kind = event.get("type")
        if kind in ("call", "play", "declare"):
            verb = {"call": "calls", "play": "plays", "declare": "declares"}[kind]
            self.console.print(f"  {who(event['seat']):>10} {verb} {_what(game, event)}")
        elif kind == "deal":
            hand = state.get("hand") or {}
            self.console.rule(f"Hand {hand.get('number')}: {who(hand.get('dealer', 0))} deals")
        if message.get("violation"):
            violation = message["violation"]
            self.console.print(f"  beep! {violation.get('text') or violation.get('message')}", style="bold red")
        hand = state.get("hand") or {}
        if kind == "play" and hand.get("record") is not None:
            contract = hand.get("contract_words") or hand.get("contract")
            self.console.print(f"  hand over: {contract} {hand.get('result')}, score {hand.get('score')}")
        holds = [h["message"] for h in state.get("holds", [])]
        if holds != self.last_holds:
            for message in holds:
                self.console.print(f"  table waits: {message}", style="yellow")
            if self.last_holds and not holds:
                self.console.print("  the table goes on", style="green")
            self.last_holds = holds


def _what(game: str, event: dict[str, Any]) -> str:
    """A published call, card or declaration in the game's words."""
    if event.get("call"):
        return call_words(game, event["call"])
    if event.get("card"):
        return card_words(event["card"], game)
    if event.get("trump"):
        return suit_words(event["trump"])
    return declaration_words(direction=event.get("direction") or "high")
