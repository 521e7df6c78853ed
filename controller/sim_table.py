"""The whole table, simulated, through the real code paths (``croupier sim``).

What is simulated is only what would be physical: the dealing machine's firmware behind a
pseudo-terminal (spoken to by the real bridge over pyserial), the table top with its cards and
hands as rendered camera frames (read by the real vision pipeline), the panel's pins (gpiozero's
mock factory, driven by the real panel code) and the people. Everything else is the real table:
the runtime and its controller, the journal in SQLite, the web server with its page, API and
WebSocket. The people use that server as a person uses the page.
"""

from __future__ import annotations

import logging
import random
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import uvicorn

from api.app import create_app
from controller.dealer_service import DealerService
from controller.live import LiveTable
from controller.runtime import Runtime
from controller.settings import ClubSettings, Settings
from engine.games import get_game
from hardware.panel import Panel
from simulators.dealer_model import NO_FAULTS, MachineFaults, SimulatedOperator
from simulators.dealing_machine import SimulatedMachine
from simulators.live_scene import SceneCamera, TableScene, WorldClock
from simulators.people import SimulatedPeople
from simulators.scenes import tilted_view
from vision.mat import MatLayout
from vision.observe import Observer
from vision.service import VisionService
from vision.tracker import Tracker

log = logging.getLogger(__name__)

FPS = 10.0  # the simulated camera's frames per second of table time
FRAME = (1280, 720)


@dataclass(frozen=True)
class SimOptions:
    game: str = "poley"
    players: int | None = None
    options: dict[str, Any] | None = None
    speed: float = 1.0
    seed: int = 0
    mistakes: float = 0.0
    host: str = "127.0.0.1"
    port: int = 8000
    store: Path | None = None  # the journal; None: a fresh one in a temporary folder
    token: str | None = None
    club: ClubSettings | None = None  # publish to this club's broker, as a table with [club] settings does
    machine_faults: MachineFaults = NO_FAULTS  # the dealing machine's faults, each at a chosen card


class SimulatedTableRig:
    """Builds, starts and stops a simulated table; ``play`` runs the people."""

    def __init__(self, options: SimOptions) -> None:
        self.options = options
        game = get_game(options.game)
        self.game = game
        self.players = options.players or game.default_players()
        self._tmp = tempfile.TemporaryDirectory(prefix="croupier-sim-") if options.store is None else None
        store = options.store or Path(self._tmp.name) / "croupier.db"  # type: ignore[union-attr]
        self.settings = Settings(
            store={"path": store},  # type: ignore[arg-type]
            api={"host": options.host, "port": options.port},  # type: ignore[arg-type]
            table={"game": options.game, "players": self.players, "options": options.options or {}},  # type: ignore[arg-type]
            **({"club": options.club} if options.club is not None else {}),  # else the environment's, if any
        )
        self.token = options.token or _token()
        self.rng = random.Random(options.seed)
        self.runtime = Runtime.open(self.settings, self.token)
        self.layout = MatLayout.create(4 if self.players <= 4 else 6, "a2")
        self.clock = WorldClock(FPS)
        view = tilted_view(np.random.default_rng(options.seed), FRAME, "felt", self.layout)
        self.scene = TableScene(view, self.layout, self.clock, options.seed)
        self.camera = SceneCamera(self.scene, options.speed, options.seed)
        stack = [c.index for c in game.pack]
        random.Random(options.seed).shuffle(stack)  # the pack as it lies in the hopper
        self.machine = SimulatedMachine(stack, seed=options.seed, speed=options.speed, faults=options.machine_faults)
        self.panel: Panel | None = None
        self.live: LiveTable | None = None
        self.people: SimulatedPeople | None = None
        self._server: uvicorn.Server | None = None
        self._server_thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.options.host}:{self.options.port}/"

    # --- life ------------------------------------------------------------------------------

    def start(self) -> None:
        self.machine.__enter__()
        dealer = DealerService(self.machine.link, rng=random.Random(self.rng.getrandbits(64)))
        seats = [z.name for z in self.layout.zones if z.seat is not None and z.seat < self.players]
        observer = Observer(self.layout)
        vision = VisionService(self.camera, observer, Tracker(seats))
        operator = SimulatedOperator(self.machine.firmware)  # does what each fault's remedy says
        self.live = LiveTable(self.runtime, dealer, vision, None, operator)
        self.panel = Panel(self.settings.panel, self.live.press)
        self.live.panel = self.panel
        self.live.start()
        self._serve()
        self.people = SimulatedPeople(
            self.url.rstrip("/"),
            self.token,
            self.scene,
            machine_slots=lambda: self.machine.firmware.snapshot()["slots"],
            gather_machine=self.machine.firmware.gather,
            press_deal=self.press_deal,
            mistakes=self.options.mistakes,
            seed=self.options.seed,
        )

    def press_deal(self) -> None:
        """A finger on the panel's deal button (the mock pin goes low, then high)."""
        assert self.panel is not None
        pin = self.panel.factory.pin(self.settings.panel.deal_button)
        pin.drive_low()
        time.sleep(0.01)
        pin.drive_high()

    def start_match(self) -> int:
        assert self.people is not None
        body = {"game": self.options.game, "players": self.players, "options": self.options.options or {}}
        response = self.people.http.post("/api/matches", json=body)
        response.raise_for_status()
        return int(response.json()["match_id"])

    def play(self, hands: int | None) -> None:
        assert self.people is not None
        self.people.play(hands)

    def export(self) -> dict[str, Any]:
        match_id = self.runtime.controller.match_id
        assert match_id is not None
        return self.runtime.journal.export(match_id)

    def close(self) -> None:
        if self.people is not None:
            self.people.close()
        if self._server is not None:
            self._server.should_exit = True
            if self._server_thread is not None:
                self._server_thread.join(timeout=10)
        if self.live is not None:
            self.live.close()
        self.machine.__exit__(None, None, None)
        self.runtime.journal.close()
        if self._tmp is not None:
            self._tmp.cleanup()

    def _serve(self) -> None:
        config = uvicorn.Config(
            create_app(self.runtime), host=self.options.host, port=self.options.port, log_level="warning"
        )
        self._server = uvicorn.Server(config)
        self._server_thread = threading.Thread(target=self._server.run, name="web-server", daemon=True)
        self._server_thread.start()
        deadline = time.monotonic() + 15
        while not self._server.started:
            if not self._server_thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the web server did not start on {self.options.host}:{self.options.port}")
            time.sleep(0.02)


def _token() -> str:
    import secrets

    return secrets.token_urlsafe(24)
