"""Which GPIO pins the panel uses (BCM numbers), with the defaults of docs/wiring.md."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

BCM_PINS = range(2, 28)  # the 40-pin header's GPIO2 to GPIO27


class PanelConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    pin_factory: Literal["mock", "lgpio", "rpigpio"] = "mock"  # "mock" wherever there is no Pi
    deal_button: int = 5
    undo_button: int = 6
    next_button: int = 13
    seat_leds: tuple[int, ...] = Field(default=(17, 27, 22, 23, 24, 25), min_length=2, max_length=6)
    buzzer: int = 18

    @model_validator(mode="after")
    def _pins_are_gpio_and_distinct(self) -> PanelConfig:
        pins = self.all_pins()
        for pin in pins:
            if pin not in BCM_PINS:
                raise ValueError(f"GPIO{pin} is not a pin of the header (use BCM numbers 2 to 27)")
        repeated = sorted({p for p in pins if pins.count(p) > 1})
        if repeated:
            raise ValueError(f"GPIO{repeated[0]} is given to two parts of the panel")
        return self

    def all_pins(self) -> list[int]:
        return [self.deal_button, self.undo_button, self.next_button, *self.seat_leds, self.buzzer]
