"""The table's seating: the names the players gave the seats, and whether Fifty-Six's cards are
written with its rule sheet's letters. Both belong to the table, not to one match (the same
people play match after match), and every screen shows them alike, so they are kept by the
server, in a small JSON file beside the journal (``croupier.db.seating``), written whole or not
at all. The names are checked by :func:`engine.seat_names.check_names`.

A file that cannot be read back (edited by hand, a disk fault) is not a reason to keep the
table from starting: it is logged in one line and the seats go by their compass points.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.journal.files import beside, write_atomically
from engine.seat_names import SeatNameError, check_names

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Seating:
    names: tuple[str, ...] = ()  # "" for a seat that goes by its compass point
    letters: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"names": list(self.names), "letters": self.letters}


def seating_path(journal: Path) -> Path:
    return beside(journal, ".seating")


def load_seating(path: Path) -> Seating:
    """The seating kept at ``path``; the compass points when there is none or it is unreadable."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        return Seating(check_names(_names(doc)), _letters(doc))
    except FileNotFoundError:
        return Seating()
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, SeatNameError, ValueError) as exc:
        log.warning("%s cannot be read (%s): the seats go by their compass points until Setup names them", path, exc)
        return Seating()


def save_seating(path: Path, seating: Seating) -> None:
    write_atomically(path, json.dumps(seating.to_json(), ensure_ascii=False) + "\n")


def _names(doc: Any) -> list[str]:
    names = doc.get("names") if isinstance(doc, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError("'names' is not a list of names")
    return names


def _letters(doc: dict[str, Any]) -> bool:
    letters = doc.get("letters", False)
    if not isinstance(letters, bool):
        raise ValueError("'letters' is not true or false")
    return letters
