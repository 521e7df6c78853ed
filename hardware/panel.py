"""The control panel: deal, undo and next buttons, one LED per seat, and a buzzer.

Button presses come in on gpiozero's own threads; the panel never changes the table's state,
it only tells ``on_press`` which button it was, and the controller posts that to its inbox.
The pin factory is injected, as gpiozero intends: gpiozero's ``MockFactory`` wherever there
is no Pi, so the same code runs in the simulator and in the tests.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from gpiozero import LED, Button, Buzzer

from hardware.config import PanelConfig

log = logging.getLogger(__name__)

BUTTONS = ("deal", "undo", "next")
BOUNCE_S = 0.05  # contact bounce of an ordinary push button


def make_pin_factory(name: str) -> Any:
    """The gpiozero pin factory of that name (the Pi's libraries are imported only when used)."""
    if name == "mock":
        from gpiozero.pins.mock import MockFactory

        return MockFactory()
    if name == "lgpio":
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    from gpiozero.pins.rpigpio import RPiGPIOFactory

    return RPiGPIOFactory()


class Panel:
    def __init__(self, config: PanelConfig, on_press: Callable[[str], None], pin_factory: Any = None) -> None:
        self.config = config
        self.factory = pin_factory if pin_factory is not None else make_pin_factory(config.pin_factory)
        self._on_press = on_press
        self.buttons = {name: self._button(name, pin) for name, pin in zip(BUTTONS, self._button_pins(), strict=True)}
        self.leds = [LED(pin, pin_factory=self.factory) for pin in config.seat_leds]
        self.buzzer = Buzzer(config.buzzer, pin_factory=self.factory)

    def _button_pins(self) -> tuple[int, int, int]:
        return (self.config.deal_button, self.config.undo_button, self.config.next_button)

    def _button(self, name: str, pin: int) -> Button:
        # Pressed to ground, with the Pi's internal pull-up (docs/wiring.md).
        button = Button(pin, pull_up=True, bounce_time=BOUNCE_S, pin_factory=self.factory)
        button.when_pressed = lambda: self._pressed(name)
        return button

    def _pressed(self, name: str) -> None:
        try:
            self._on_press(name)
        except Exception:  # gpiozero's thread must survive whatever the receiver does
            log.exception("the %s button's handler failed", name)

    # --- what the table shows ------------------------------------------------------------

    def show_turn(self, seat: int | None) -> None:
        """Light the LED of the seat to act, and only that one (None: all off)."""
        for number, led in enumerate(self.leds):
            if number == seat:
                led.on()
            else:
                led.off()

    def show_dealer(self, seat: int) -> None:
        """Blink the next dealer's LED until the deal starts (the next show_turn stops it)."""
        self.show_turn(None)
        self._led(seat).blink(on_time=0.5, off_time=0.5)

    def alert(self, seat: int | None) -> None:
        """An illegal play: two short beeps, and the offending seat's LED flashes."""
        self.buzzer.beep(on_time=0.15, off_time=0.1, n=2)
        if seat is not None:
            self._led(seat).blink(on_time=0.1, off_time=0.1, n=6)

    def _led(self, seat: int) -> LED:
        if not 0 <= seat < len(self.leds):
            raise ValueError(f"the panel has LEDs for seats 0 to {len(self.leds) - 1}, not seat {seat}")
        return self.leds[seat]

    def close(self) -> None:
        for device in (*self.buttons.values(), *self.leds, self.buzzer):
            device.close()
