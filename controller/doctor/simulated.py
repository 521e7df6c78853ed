"""The simulated table's devices for the doctor, and the hands that work them.

With ``dealer.port = "sim"`` the doctor talks to the firmware simulator behind a pseudo-terminal,
over real serial I/O; with ``camera.source = "sim"`` it watches a rendered table top, where
:class:`SceneHands` put the cards it asks for; with mock pins, :class:`MockFingers` press the
buttons and look at the LEDs' and buzzer's pins. So ``croupier doctor`` on the simulated table
runs every check through the same code as on the Pi.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from engine.cards import Card
from engine.games import get_game
from simulators.dealer_firmware import DealerFirmware
from simulators.live_scene import SceneCamera, TableScene, WorldClock
from simulators.scenes import tilted_view
from simulators.serial_link import PtyLink
from vision.mat import MatLayout

CAMERA_SPEED = 1000.0  # table time runs as fast as frames are drawn: nobody waits for a clock
CAMERA_FPS = 10.0
_LOOK_S = 5.0  # how long the fingers watch a pin for the part to switch on


@contextmanager
def simulated_dealer(game: str) -> Iterator[str]:
    """The firmware simulator on a pseudo-terminal, loaded with the game's pack; yields the port's path."""
    pack = [c.index for c in get_game(game).pack]
    random.shuffle(pack)
    firmware = DealerFirmware(pack, PtyLink())
    firmware.start()
    try:
        yield firmware.link.path
    finally:
        firmware.stop()


class SimulatedCamera:
    """A rendered table top with the mat, as the camera above it sees it; :meth:`hands` put cards on it."""

    def __init__(self, layout: MatLayout, size: tuple[int, int]) -> None:
        view = tilted_view(np.random.default_rng(0), size, "felt", layout)
        self.scene = TableScene(view, layout, WorldClock(CAMERA_FPS))

    def open(self) -> SceneCamera:
        return SceneCamera(self.scene, speed=CAMERA_SPEED)

    def hands(self) -> SceneHands:
        return SceneHands(self.scene)


class SceneHands:
    """Put a different card, face up, in each zone asked for."""

    def __init__(self, scene: TableScene) -> None:
        self._scene = scene
        self.placed: dict[str, str] = {}

    def place_cards(self, zones: list[str]) -> bool | None:
        seats = {z.name: z.seat for z in self._scene.layout.zones if z.seat is not None}
        for zone, code in zip(zones, ("AS", "KH", "QD", "JC", "TS", "9H"), strict=False):
            self._scene.put_down(seats[zone], Card.from_str(code))
            self.placed[zone] = code
        return True

    def read_right(self, reads: dict[str, str]) -> bool | None:
        return reads == self.placed


class MockFingers:
    """Press gpiozero's mock pins, and look at them for the parts the doctor switches on."""

    def __init__(self, factory: Any) -> None:
        self._factory = factory

    def press(self, button: str, pin: int) -> bool | None:
        mock = self._factory.pin(pin)
        mock.drive_low()
        mock.drive_high()
        return True

    def confirm(self, question: str, pin: int) -> bool | None:
        """Whether the pin went high (an LED lit, the buzzer sounding) within a few seconds."""
        mock = self._factory.pin(pin)
        deadline = time.monotonic() + _LOOK_S
        while time.monotonic() < deadline:
            if any(state.state for state in mock.states):
                return True
            time.sleep(0.01)
        return False
