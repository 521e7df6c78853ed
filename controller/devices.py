"""The table's devices, built from the settings: real ones, simulated ones, or none.

``[dealer] port``: ``sim`` (the firmware simulator behind a pseudo-terminal, loaded with the
default game's pack), ``none`` (deals are shuffled here or entered on the page), or a serial
device or pyserial URL (``/dev/ttyACM0``, ``socket://10.0.0.5:7001``).
``[camera] source``: ``sim`` (rendered frames of a table top nobody plays on: the camera runs, the
table is not held), ``none`` (plays are entered on the page), or a source as ``croupier vision
watch`` takes it (``picamera2``, ``uvc:0``, ``file:clip.mp4``, ``folder:dir``); ``[camera] model``:
unset, the card reader shipped with the table; or an ONNX file retrained with
``python -m vision.training.train`` (docs/vision.md).
``[panel]``: gpiozero's mock pins by default, the Pi's with ``pin_factory = "lgpio"``.
"""

from __future__ import annotations

import random
from contextlib import ExitStack
from typing import Any

import numpy as np

from controller.dealer_service import DealerService
from controller.live import LiveTable
from controller.runtime import Runtime
from controller.settings import Settings
from engine.games import get_game
from firmware_bridge.errors import LinkLost, PortUnavailable
from firmware_bridge.link import Link
from hardware.panel import Panel
from vision.indices import IndexDetector
from vision.mat import MatLayout
from vision.networks import ModelError
from vision.observe import Observer
from vision.service import VisionService
from vision.tracker import Tracker


class DeviceError(RuntimeError):
    """A device named in the settings cannot be used (the message says which and why)."""


def build_live_table(settings: Settings, runtime: Runtime, resources: ExitStack) -> LiveTable:
    """The live table with the devices the settings name; ``resources`` closes what was opened."""
    dealer = _dealer(settings, resources)
    vision = _camera(settings)
    live = LiveTable(runtime, dealer, vision)
    try:
        live.panel = Panel(settings.panel, live.press)
    except Exception as exc:  # gpiozero's own errors: a pin in use, no GPIO on this machine
        raise DeviceError(f"the control panel cannot use its pins: {exc}") from None
    return live


def _dealer(settings: Settings, resources: ExitStack) -> DealerService | None:
    port = settings.dealer.port
    if port == "none":
        return None
    if port == "sim":
        from simulators.dealing_machine import SimulatedMachine

        pack = [c.index for c in get_game(settings.table.game).pack]
        random.shuffle(pack)
        machine = resources.enter_context(SimulatedMachine(pack, speed=settings.dealer.speed))
        return DealerService(machine.link)
    link = Link(port, baudrate=settings.dealer.baud)
    try:
        link.open()
    except (LinkLost, PortUnavailable) as exc:
        raise DeviceError(f"the dealing machine at {port}: {exc}") from None
    resources.callback(link.close)
    return DealerService(link)


def _camera(settings: Settings) -> VisionService | None:
    source_spec = settings.camera.source
    if source_spec == "none":
        return None
    layout = mat_layout(settings)
    size = (settings.camera.width, settings.camera.height)
    if source_spec == "sim":
        source: Any = _empty_table_camera(layout, size)
    else:
        from vision.sources import SourceError, open_source

        try:
            source = open_source(source_spec, size, settings.camera.fps, settings.camera.exposure_us)
        except SourceError as exc:
            raise DeviceError(f"the camera {source_spec!r}: {exc}") from None
    try:
        detector = card_reader(settings)
    except ModelError as exc:
        raise DeviceError(f"the camera's card reader: {exc}") from None
    observer = Observer(layout, detector)
    seats = [z.name for z in layout.zones if z.seat is not None]
    return VisionService(source, observer, Tracker(seats))


def card_reader(settings: Settings) -> IndexDetector:
    """The camera's card reader as the settings give it: the shipped models or ``[camera] model``,
    with the check of red reads' ink unless ``[camera] check_ink`` is false."""
    return IndexDetector(settings.camera.model, check_ink=settings.camera.check_ink)


def mat_layout(settings: Settings) -> MatLayout:
    """The mat the camera looks for: A2, with four seats' zones, or six for a game of more."""
    game = get_game(settings.table.game)
    players = settings.table.players or game.default_players()
    return MatLayout.create(4 if players <= 4 else 6, "a2")


def _empty_table_camera(layout: MatLayout, size: tuple[int, int]) -> Any:
    from simulators.live_scene import SceneCamera, TableScene, WorldClock
    from simulators.scenes import tilted_view

    view = tilted_view(np.random.default_rng(0), size, "felt", layout)
    scene = TableScene(view, layout, WorldClock(10.0))
    return SceneCamera(scene, speed=1.0)
