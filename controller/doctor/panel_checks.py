"""The control panel: the pin factory in use; each button pressed in turn when asked; each seat's
LED lit in turn and the buzzer sounded, for the person at the table to confirm (docs/wiring.md)."""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from controller.doctor.findings import Finding, Status, failed, passed, skipped
from controller.doctor.person import PanelTester
from hardware.config import PanelConfig
from hardware.panel import BUTTONS, Panel

GROUP = "panel"
WIRING = "docs/wiring.md"
_NOBODY = "nobody at the table to ask (run it in a terminal there)"


@dataclass(frozen=True)
class PanelRig:
    config: PanelConfig
    factory: Callable[[], Any]  # makes the gpiozero pin factory (raises where there is no GPIO)
    on_pi: bool  # this machine is a Raspberry Pi


def check_panel(rig: PanelRig, person: PanelTester, wait_s: float) -> Iterator[Finding]:
    pins = _pins(rig)
    yield pins
    if pins.status is not Status.PASS:
        return
    presses: queue.Queue[str] = queue.Queue()
    try:
        panel = Panel(rig.config, presses.put, pin_factory=rig.factory())
    except Exception as exc:  # gpiozero's own errors: a pin in use, a pin this board lacks
        yield failed(GROUP, "pins", f"the panel cannot use its pins: {exc}", f"check panel pins against {WIRING}")
        return
    try:
        yield from _buttons(panel, person, presses, wait_s)
        yield from _leds(panel, person)
        yield _buzzer(panel, person)
    finally:
        panel.close()


def _pins(rig: PanelRig) -> Finding:
    name = rig.config.pin_factory
    if name == "mock" and rig.on_pi:
        return failed(
            GROUP,
            "pins",
            "this is a Raspberry Pi, but the panel uses mock pins",
            'set panel.pin_factory = "lgpio" in the settings',
        )
    if name == "mock":
        return passed(GROUP, "pins", "mock pins (no GPIO here: the panel is simulated)")
    try:
        rig.factory().close()
    except Exception as exc:  # the factory's library missing, or no GPIO chip to open
        return failed(
            GROUP,
            "pins",
            f"the {name} pin factory cannot be used: {exc}",
            "install python3-lgpio (deploy/install.sh does) and run as a user in the gpio group",
        )
    return passed(GROUP, "pins", f"{name} (GPIO)")


def _button_pins(config: PanelConfig) -> dict[str, int]:
    return dict(zip(BUTTONS, (config.deal_button, config.undo_button, config.next_button), strict=True))


def _buttons(panel: Panel, person: PanelTester, presses: queue.Queue[str], wait_s: float) -> Iterator[Finding]:
    for name, pin in _button_pins(panel.config).items():
        check = f"{name} button"
        _drain(presses)
        if person.press(name, pin) is None:
            yield skipped(GROUP, check, _NOBODY)
            continue
        yield _pressed(name, pin, _next_press(presses, wait_s), wait_s)


def _pressed(name: str, pin: int, heard: str | None, wait_s: float) -> Finding:
    check = f"{name} button"
    if heard == name:
        return passed(GROUP, check, f"pressed (GPIO{pin})")
    if heard is None:
        return failed(
            GROUP,
            check,
            f"the {name.upper()} button (GPIO{pin}) was not pressed within {wait_s:g} s",
            f"check its wiring: GPIO{pin} to one side of the button, the other side to ground ({WIRING})",
        )
    return failed(
        GROUP,
        check,
        f"the {heard.upper()} button was heard when {name.upper()} (GPIO{pin}) was asked for",
        f"the two buttons' wires are swapped, or the settings name the wrong pins ({WIRING})",
    )


def _next_press(presses: queue.Queue[str], wait_s: float) -> str | None:
    try:
        return presses.get(timeout=wait_s)
    except queue.Empty:
        return None


def _drain(presses: queue.Queue[str]) -> None:
    while not presses.empty():
        presses.get_nowait()


def _leds(panel: Panel, person: PanelTester) -> Iterator[Finding]:
    for seat, (led, pin) in enumerate(zip(panel.leds, panel.config.seat_leds, strict=True)):
        check = f"seat {seat} LED"
        led.on()
        try:
            answer = person.confirm(f"Is the LED of seat {seat} lit (GPIO{pin}), and no other?", pin)
        finally:
            led.off()
        if answer is None:
            yield skipped(GROUP, check, _NOBODY)
        elif answer:
            yield passed(GROUP, check, f"lit (GPIO{pin})")
        else:
            yield failed(
                GROUP,
                check,
                f"the LED of seat {seat} (GPIO{pin}) did not light",
                f"check it is the right way round (its long leg towards GPIO{pin}, through its resistor) ({WIRING})",
            )


def _buzzer(panel: Panel, person: PanelTester) -> Finding:
    pin = panel.config.buzzer
    panel.buzzer.beep(on_time=0.2, off_time=0.3)
    try:
        answer = person.confirm(f"Does the buzzer beep (GPIO{pin})?", pin)
    finally:
        panel.buzzer.off()
    if answer is None:
        return skipped(GROUP, "buzzer", _NOBODY)
    if answer:
        return passed(GROUP, "buzzer", f"beeps (GPIO{pin})")
    return failed(
        GROUP,
        "buzzer",
        f"the buzzer (GPIO{pin}) did not sound",
        f"check the transistor's wiring and that the buzzer is an active one, its + to 5 V ({WIRING})",
    )
