"""The acknowledgement record: what the journal had acknowledged, kept outside it.

SQLite cannot tell a journal that lost its end from a shorter one: a flipped bit in the
write-ahead log makes it drop every transaction from there on, a file truncated to nothing is
a new database. So after every write the journal records, in a small file beside it
(``croupier.db.ack``, written atomically), its own identity, how many records it holds and the
last one's hash. On the next start a journal with fewer records than its record says, or a
different one in that place, is refused in words instead of being served rewound.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from controller.journal.files import write_atomically


class AckUnreadable(ValueError):
    """The acknowledgement record exists but is not one."""


@dataclass(frozen=True, slots=True)
class Acknowledged:
    journal: str  # the journal's identity (made when it was created)
    entries: int  # how many records it held
    head: str  # the last record's hash


def read_ack(path: Path) -> Acknowledged | None:
    """The record at ``path``; None if there is none; AckUnreadable if it is damaged."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise AckUnreadable(f"cannot read it: {exc}") from None
    try:
        data = json.loads(text)
        found = Acknowledged(str(data["journal"]), data["entries"], str(data["head"]))
    except (ValueError, KeyError, TypeError):
        raise AckUnreadable("it is not an acknowledgement record") from None
    if not isinstance(found.entries, int) or found.entries < 0:
        raise AckUnreadable(f"its count of records is {found.entries!r}")
    return found


def write_ack(path: Path, acknowledged: Acknowledged) -> None:
    """Replace the record atomically (OSError if the disk refuses: the old record stays)."""
    text = json.dumps({"journal": acknowledged.journal, "entries": acknowledged.entries, "head": acknowledged.head})
    write_atomically(path, text + "\n")
