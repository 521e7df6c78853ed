"""The person at the table, for the checks that need one: cards put on the mat, buttons pressed,
LEDs and the buzzer confirmed.

Every answer is ``True``/``False``, or ``None`` when nobody is there to ask (the check is then
skipped, not failed). :class:`TerminalPerson` asks in the terminal, on stderr so that ``--json``
keeps stdout for the result; the simulated table has its own hands
(:mod:`controller.doctor.simulated`).
"""

from __future__ import annotations

import sys
from typing import Protocol, TextIO


class CardPlacer(Protocol):
    def place_cards(self, zones: list[str]) -> bool | None:
        """Put one card face up in each of these zones of the mat."""
        ...

    def read_right(self, reads: dict[str, str]) -> bool | None:
        """Whether the cards read (by zone) are the cards put down."""
        ...


class PanelTester(Protocol):
    def press(self, button: str, pin: int) -> bool | None:
        """Press this button once (the check then waits for the press)."""
        ...

    def confirm(self, question: str, pin: int) -> bool | None:
        """Answer a yes-or-no question about a part the check has just switched on."""
        ...


class Person(CardPlacer, PanelTester, Protocol):
    """Someone at the table, for every check that needs one."""


class NobodyThere:
    """No one to ask (stdin is not a terminal, or ``--no-ask``): the checks that need a person are skipped."""

    def place_cards(self, zones: list[str]) -> bool | None:
        return None

    def read_right(self, reads: dict[str, str]) -> bool | None:
        return None

    def press(self, button: str, pin: int) -> bool | None:
        return None

    def confirm(self, question: str, pin: int) -> bool | None:
        return None


class TerminalPerson:
    """Asks in the terminal. End of input (Ctrl-D) counts as nobody there."""

    def __init__(self, read: TextIO = sys.stdin, write: TextIO = sys.stderr) -> None:
        self._in, self._out = read, write

    def place_cards(self, zones: list[str]) -> bool | None:
        self._say(f"Put one card face up in each zone ({', '.join(zones)}), then press Enter (s to skip): ")
        answer = self._line()
        return None if answer is None or answer.startswith("s") else True

    def read_right(self, reads: dict[str, str]) -> bool | None:
        return self._yes_or_no(f"Read {', '.join(f'{zone}: {card}' for zone, card in reads.items())}. Right?")

    def press(self, button: str, pin: int) -> bool | None:
        self._say(f"Press the {button.upper()} button (GPIO{pin}) now.\n")
        return True

    def confirm(self, question: str, pin: int) -> bool | None:
        return self._yes_or_no(question)

    def _yes_or_no(self, question: str) -> bool | None:
        while True:
            self._say(f"{question} [y/n] ")
            answer = self._line()
            if answer is None:
                return None
            if answer[:1] in ("y", "n"):
                return answer.startswith("y")

    def _say(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()

    def _line(self) -> str | None:
        line = self._in.readline()
        return None if line == "" else line.strip().lower()
