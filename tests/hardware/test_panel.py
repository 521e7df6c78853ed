"""The control panel on gpiozero's mock pins: buttons in, LEDs and buzzer out."""

from __future__ import annotations

import time

import pytest
from gpiozero.pins.mock import MockFactory
from pydantic import ValidationError

from hardware.config import PanelConfig
from hardware.panel import Panel


def wait_for(condition, timeout_s=2.0):
    """Poll, rather than sleep a fixed time: gpiozero blinks on its own threads."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the panel did not react in time"
        time.sleep(0.005)


@pytest.fixture
def panel():
    pressed = []
    factory = MockFactory()
    made = Panel(PanelConfig(), pressed.append, pin_factory=factory)
    made.pressed = pressed
    yield made
    made.close()
    factory.reset()


def press(panel, pin):
    panel.factory.pin(pin).drive_low()
    panel.factory.pin(pin).drive_high()


def test_each_button_reports_its_name(panel):
    config = panel.config
    for pin in (config.deal_button, config.undo_button, config.next_button):
        press(panel, pin)
        time.sleep(0.06)  # past the debounce time, so the next press counts
    wait_for(lambda: len(panel.pressed) == 3)
    assert panel.pressed == ["deal", "undo", "next"]


def test_a_failing_receiver_does_not_break_the_button():
    factory = MockFactory()
    heard = []

    def receive(name):
        heard.append(name)
        if len(heard) == 1:
            raise RuntimeError("table busy")

    panel = Panel(PanelConfig(), receive, pin_factory=factory)
    press(panel, panel.config.deal_button)  # the handler raises: the press must not
    time.sleep(0.06)
    press(panel, panel.config.deal_button)
    wait_for(lambda: len(heard) == 2)
    panel.close()


def test_show_turn_lights_exactly_one_seat(panel):
    panel.show_turn(2)
    assert [led.is_lit for led in panel.leds] == [False, False, True, False, False, False]
    panel.show_turn(None)
    assert not any(led.is_lit for led in panel.leds)


def test_an_alert_beeps_and_flashes_the_offending_seat(panel):
    panel.alert(3)
    buzzer_pin = panel.factory.pin(panel.config.buzzer)
    led_pin = panel.factory.pin(panel.config.seat_leds[3])
    wait_for(lambda: [s.state for s in buzzer_pin.states].count(True) >= 2)
    wait_for(lambda: [s.state for s in led_pin.states].count(True) >= 2)
    wait_for(lambda: not panel.buzzer.is_active)


def test_the_next_dealer_blinks(panel):
    panel.show_turn(0)
    panel.show_dealer(4)
    assert not panel.leds[0].is_lit
    led_pin = panel.factory.pin(panel.config.seat_leds[4])
    wait_for(lambda: [s.state for s in led_pin.states].count(True) >= 1)
    with pytest.raises(ValueError, match="seats 0 to 5"):
        panel.show_dealer(6)


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"buzzer": 5}, "GPIO5 is given to two parts"),
        ({"deal_button": 40}, "GPIO40 is not a pin"),
        ({"seat_leds": (17,)}, "seat_leds"),
        ({"pin_factory": "wiringpi"}, "pin_factory"),
    ],
)
def test_bad_pin_settings_are_named(fields, words):
    with pytest.raises(ValidationError) as caught:
        PanelConfig(**fields)
    assert words in str(caught.value)
