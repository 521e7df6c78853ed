"""Rule options: declared per game as a frozen dataclass, validated from plain mappings.

A game declares its options as a dataclass whose fields are ``Literal`` choices, ``bool`` or
``int`` (with bounds in the field's metadata: every number is bounded). Field ``all_pass`` is
the option ``all-pass`` of the table log. :func:`parse_options` turns a mapping from a log or a
config file into that dataclass, naming any unknown option or bad value.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from engine.errors import InvalidOption

RevokePolicy = Literal["reject", "penalise"]

T = TypeVar("T")


def bounds(low: int, high: int) -> dict[str, tuple[int, int]]:
    """Field metadata for an integer option: ``field(default=7, metadata=bounds(1, 99))``."""
    return {"bounds": (low, high)}


def is_whole_number(value: Any, low: int, high: int) -> bool:
    """Whether ``value`` is an integer (not a bool) from ``low`` to ``high``."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def shown(value: Any) -> str:
    """A value from outside as a message shows it: one short line. A huge integer is told by its
    size (Python will not even write out one of more than 4,300 digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**18:
        size = abs(value)
        digits = int(size.bit_length() * math.log10(2))  # the count of digits, or one less
        return f"a number of {digits + (size >= 10**digits)} digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def option_name(field_name: str) -> str:
    return field_name.replace("_", "-")


@functools.cache
def _hints(cls: type[Any]) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def parse_options(cls: type[T], raw: Mapping[str, Any] | None) -> T:
    """Build the options dataclass ``cls`` from a mapping, validating every name and value."""
    if not raw:
        return cls()
    hints = _hints(cls)  # type: ignore[arg-type]
    fields = {option_name(f.name): f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for name, value in (raw or {}).items():
        field = fields.get(name)
        if field is None:
            known = ", ".join(sorted(fields))
            raise InvalidOption(f"unknown option {name!r} (this game has: {known})")
        values[field.name] = _check_value(name, value, hints[field.name], field.metadata)
    return cls(**values)


def describe_options(cls: type[Any]) -> list[tuple[str, str, Any]]:
    """(name, allowed values, default) for each option: for help texts and docs."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        out.append((option_name(f.name), _allowed(hints[f.name], f.metadata), f.default))
    return out


def options_to_dict(options: Any) -> dict[str, Any]:
    """The options that differ from their defaults, by their log names."""
    return {
        option_name(f.name): getattr(options, f.name)
        for f in dataclasses.fields(options)
        if getattr(options, f.name) != f.default
    }


def _check_value(name: str, value: Any, hint: Any, metadata: Mapping[str, Any]) -> Any:
    if typing.get_origin(hint) is Literal:
        choices = typing.get_args(hint)
        if value not in choices or isinstance(value, bool) != isinstance(choices[0], bool):
            raise InvalidOption(f"option {name!r} cannot be {shown(value)} (use one of {_allowed(hint, metadata)})")
        return value
    if hint is bool:
        if not isinstance(value, bool):
            raise InvalidOption(f"option {name!r} must be true or false, not {shown(value)}")
        return value
    if hint is int:
        if "bounds" not in metadata:  # a bug in a game module: every number from outside is bounded
            raise TypeError(f"option {name!r} is a number without bounds")
        low, high = metadata["bounds"]
        if not is_whole_number(value, low, high):
            raise InvalidOption(f"option {name!r} must be a whole number from {low} to {high}, not {shown(value)}")
        return value
    raise TypeError(f"option {name!r} has an unsupported type {hint!r}")  # a bug in a game module


def _allowed(hint: Any, metadata: Mapping[str, Any]) -> str:
    if typing.get_origin(hint) is Literal:
        return ", ".join(repr(c) for c in typing.get_args(hint))
    if hint is bool:
        return "true, false"
    low, high = metadata["bounds"]
    return f"{low} to {high}"
