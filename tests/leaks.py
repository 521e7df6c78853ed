"""Finding card codes in what the table shows, for the sweep tests of what is public.

Card codes are looked for as whole JSON string values and as whole words of free text
(violation messages), never as substrings: "AS" inside "PASS" is no card. Calls and
contracts are skipped, being a game's vocabulary, not cards (none of the games' calls is a
card of its own pack, but the check must not depend on that luck).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from engine.hand import Hand

_CODE = re.compile(r"^(?:[AKQJT98765432][SHDC]|BJ|LJ)$")
_WORD = re.compile(r"[0-9A-Za-z]+")
_VOCABULARY_KEYS = {"call", "calls", "contract"}


def card_codes(doc: Any) -> set[str]:
    """Every card code that appears in a JSON document (or its text)."""
    if isinstance(doc, str | bytes):
        try:
            doc = json.loads(doc)
        except ValueError:
            return {w for w in _WORD.findall(doc if isinstance(doc, str) else doc.decode()) if _CODE.match(w)}
    found: set[str] = set()
    _walk(doc, found)
    return found


def _walk(value: Any, found: set[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in _VOCABULARY_KEYS:
                _walk(item, found)
    elif isinstance(value, list):
        for item in value:
            _walk(item, found)
    elif isinstance(value, str):
        found.update(w for w in _WORD.findall(value) if _CODE.match(w))


def hidden_cards(hand: Hand, seen: Iterable[str]) -> set[str]:
    """The cards of a hand nobody may see yet: every card dealt that was not shown on the mat."""
    dealt = {str(c) for cards in hand.deal.hands for c in cards} | {str(c) for c in hand.deal.rest}
    return dealt - set(seen)


def assert_no_leak(doc: Any, hidden: set[str], where: str) -> None:
    leaked = card_codes(doc) & hidden
    assert not leaked, f"{where} shows hidden cards {sorted(leaked)}: {doc}"
