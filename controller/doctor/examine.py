"""Every check, in order, over the devices the settings name: the host first (quick, and needed
by everything), then the dealing machine, the camera and the panel.

A device set to ``sim`` is the simulator's, worked by simulated hands; a device set to ``none``
is skipped; a real one is checked with the person at the table where a check needs one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from controller.devices import card_reader, mat_layout
from controller.doctor.camera_checks import CameraRig, check_camera
from controller.doctor.dealer_checks import DealerRig, check_dealer
from controller.doctor.findings import Finding, failed, skipped
from controller.doctor.panel_checks import PanelRig, check_panel
from controller.doctor.person import CardPlacer, PanelTester, Person
from controller.doctor.system_checks import SystemRig, check_system, kernel_clock_synchronised
from controller.settings import Settings
from hardware.panel import make_pin_factory
from vision.sources import FrameSource, open_source

PI_MODEL = Path("/proc/device-tree/model")


@dataclass(frozen=True)
class Visit:
    """How the doctor goes about it: who is at the table, whose access to the port counts, how long to wait."""

    person: Person
    user: str | None = None  # the user the table runs as (None: whoever runs the doctor)
    wait_s: float = 30.0  # for a button press, or the cards to be read
    handshake_s: float = 5.0
    clock_synchronised: Callable[[], bool | None] = field(default=kernel_clock_synchronised)


def examine(settings: Settings, visit: Visit) -> Iterator[Finding]:
    api = settings.api
    yield from check_system(SystemRig(settings.store.path, api.host, api.port, visit.clock_synchronised))
    with ExitStack() as resources:
        yield from _dealer(settings, visit, resources)
    yield from _camera(settings, visit)
    yield from _panel(settings, visit)


def _dealer(settings: Settings, visit: Visit, resources: ExitStack) -> Iterator[Finding]:
    port, user = settings.dealer.port, visit.user
    if port == "none":
        yield skipped("dealer", "dealing machine", "none in the settings (dealer.port = none)")
        return
    if port == "sim":
        from controller.doctor.simulated import simulated_dealer

        try:
            port, user = resources.enter_context(simulated_dealer(settings.table.game)), None
        except OSError as exc:  # no pseudo-terminals here (a container without /dev/pts)
            yield failed("dealer", "port", f"the simulated dealing machine cannot start: {exc}", "mount /dev/pts")
            return
    yield from check_dealer(DealerRig(port, settings.dealer.baud, user, visit.handshake_s))


def _camera(settings: Settings, visit: Visit) -> Iterator[Finding]:
    camera = settings.camera
    if camera.source == "none":
        yield skipped("camera", "camera", "none in the settings (camera.source = none)")
        return
    layout, size = mat_layout(settings), (camera.width, camera.height)
    person: CardPlacer = visit.person
    if camera.source == "sim":
        from controller.doctor.simulated import SimulatedCamera

        simulated = SimulatedCamera(layout, size)
        opener: Callable[[], FrameSource] = simulated.open
        person = simulated.hands()
    else:
        opener = lambda: open_source(camera.source, size, camera.fps, camera.exposure_us)  # noqa: E731
    live = camera.source == "picamera2" or camera.source.startswith("uvc:")
    rig = CameraRig(camera.source, size, layout, opener, lambda: card_reader(settings), live)
    yield from check_camera(rig, person, visit.wait_s)


def _panel(settings: Settings, visit: Visit) -> Iterator[Finding]:
    config = settings.panel
    person: PanelTester = visit.person
    if config.pin_factory == "mock":
        from controller.doctor.simulated import MockFingers

        factory = make_pin_factory("mock")
        person = MockFingers(factory)
        rig = PanelRig(config, lambda: factory, on_raspberry_pi())
    else:
        rig = PanelRig(config, lambda: make_pin_factory(config.pin_factory), on_raspberry_pi())
    yield from check_panel(rig, person, visit.wait_s)


def on_raspberry_pi() -> bool:
    try:
        return "Raspberry Pi" in PI_MODEL.read_text(errors="replace")
    except OSError:
        return False
