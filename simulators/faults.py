"""The fault SPEC of ``croupier deal --sim --faults``: parse it, and load the hopper it describes.

``corrupt=0.01,drop=0.01,reset-after=20,jam-at=7,double-feed-at=12,unreadable-at=3`` and
``estop-at=K``, ``empty-at=K`` (the hopper runs dry before card K; the operator holds the rest),
``vanish-at=K`` (the port disappears after K cards dealt and returns), and the pack faults
``missing=9H``, ``extra=QS`` (one more copy), ``foreign=2C`` (a card from outside the pack),
each of which may be repeated.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace

from engine.cards import Card
from engine.errors import BadNotation
from simulators.dealer_model import NO_FAULTS, MachineFaults
from simulators.serial_link import CLEAN_LINE, LineFaults


class BadFaultSpec(ValueError):
    """The SPEC cannot be understood; the message names the item."""


@dataclass(frozen=True)
class FaultSpec:
    line: LineFaults = CLEAN_LINE
    machine: MachineFaults = NO_FAULTS
    missing: tuple[Card, ...] = ()
    extra: tuple[Card, ...] = ()
    foreign: tuple[Card, ...] = field(default=())

    def count(self) -> int:
        """How many faults the SPEC injects (line rates count once each)."""
        machine = sum(getattr(self.machine, f.name) is not None for f in fields(MachineFaults) if f.name != "vanish_s")
        line = (self.line.corrupt > 0) + (self.line.drop > 0)
        return machine + line + len(self.missing) + len(self.extra) + len(self.foreign)


_RATES = {"corrupt", "drop"}
_AT = {
    "reset-after": "reset_after",
    "jam-at": "jam_at",
    "double-feed-at": "double_feed_at",
    "unreadable-at": "unreadable_at",
    "estop-at": "estop_at",
    "empty-at": "empty_at",
    "vanish-at": "vanish_at",
}
_CARDS = {"missing", "extra", "foreign"}
KNOWN = sorted(_RATES | set(_AT) | _CARDS)
# The hopper holds two packs at most (108 cards), and a card number past the deal's last card
# never fires: a larger number can only be a typo.
MAX_CARD_NUMBER = 1000
MAX_RATE = 0.5
WIDTH = 40  # the most characters of a user's text that a message repeats


def parse_faults(spec: str | None) -> FaultSpec:
    """Parse a SPEC; raise BadFaultSpec with one clear sentence."""
    result = FaultSpec()
    seen: set[str] = set()
    for item in (spec or "").split(","):
        item = item.strip()
        if item:
            result = _apply(result, item, seen)
    return result


def _apply(spec: FaultSpec, item: str, seen: set[str]) -> FaultSpec:
    name, eq, value = item.partition("=")
    name, value = name.strip().lower(), value.strip()
    if not eq or not value:
        raise BadFaultSpec(f"fault {_quoted(item)} needs a value, as in jam-at=7 (known: {', '.join(KNOWN)})")
    if name in _RATES or name in _AT:
        if name in seen:  # the machine has one of each: a second would silently replace the first
            raise BadFaultSpec(f"{_item(name, value)}: {name} is given twice (the pack faults may repeat, not it)")
        seen.add(name)
    if name in _RATES:
        return replace(spec, line=replace(spec.line, **{name: _rate(name, value)}))
    if name in _AT:
        return replace(spec, machine=replace(spec.machine, **{_AT[name]: _card_number(name, value)}))
    if name in _CARDS:
        return replace(spec, **{name: (*getattr(spec, name), _card(name, value))})
    raise BadFaultSpec(f"unknown fault {_quoted(name)} (known: {', '.join(KNOWN)})")


def _rate(name: str, value: str) -> float:
    try:
        rate = float(value) if value.isascii() else None  # float() also reads other scripts' digits
    except ValueError:
        rate = None
    if rate is None:
        raise BadFaultSpec(f"{_item(name, value)}: the rate must be a number such as 0.01")
    if not 0 <= rate <= MAX_RATE:  # NaN fails this too
        raise BadFaultSpec(f"{_item(name, value)}: the rate must be between 0 and {MAX_RATE}")
    return rate


def _card_number(name: str, value: str) -> int:
    # ASCII digits only: str.isdigit() also accepts "²" and other scripts' digits, and int()
    # refuses a number of more than 4,300 digits; the length is checked before converting.
    digits = value.isascii() and value.isdigit()
    if not digits or len(value.lstrip("0")) > 4 or not 1 <= int(value) <= MAX_CARD_NUMBER:
        raise BadFaultSpec(f"{_item(name, value)}: give a card number from 1 to {MAX_CARD_NUMBER}")
    return int(value)


def _card(name: str, value: str) -> Card:
    try:
        return Card.from_str(value)
    except BadNotation:
        raise BadFaultSpec(f"{_item(name, value)}: not a card code (use 9H, QS, TC, BJ ...)") from None


def _item(name: str, value: str) -> str:
    """An item as the user wrote it, or quoted when it holds what a terminal would not show as is."""
    text = f"{name}={value}"
    return _cut(text) if text.isprintable() else _quoted(text)


def _cut(text: str, width: int = WIDTH) -> str:
    """Text from the command line, cut short: a message stays one readable line."""
    return text if len(text) <= width else text[: width - 3] + "..."


def _quoted(text: str, width: int = WIDTH) -> str:
    """Text from the command line quoted as Python writes it, cut short as quoted: one character
    the terminal would not show may take ten to write (``\\U0001019d``), so cutting the text
    before quoting it could still make a line hundreds of characters long."""
    quoted = repr(text)
    if len(quoted) <= width:
        return quoted
    cut = text[:width]
    while cut and len(repr(cut)) > width - 3:
        cut = cut[:-1]
    return repr(cut) + "..."


def load_stack(pack: Sequence[Card], spec: FaultSpec, seed: int) -> list[int]:
    """The cards in the hopper, top first: the pack in a seeded order, made wrong as the SPEC says."""
    stack = list(pack)
    for c in spec.missing:
        if c not in stack:
            raise BadFaultSpec(f"missing={c}: the pack has no {c} to leave out")
        stack.remove(c)
    for c in spec.extra:
        if c not in pack:
            raise BadFaultSpec(f"extra={c}: {c} is not in this pack (use foreign={c})")
        stack.append(c)
    for c in spec.foreign:
        if c in pack:
            raise BadFaultSpec(f"foreign={c}: {c} belongs to this pack (use extra={c})")
        stack.append(c)
    random.Random(seed).shuffle(stack)
    return [c.index for c in stack]
