"""Cards, calls and contracts as people at the table say them, in each game's own words.

The table log writes a call as the game's notation ("2H", "44Hx", "4no"); read by someone who
does not know the notation it says the wrong thing: Poley's "2H" is *two hot* (the seven of
diamonds the only trump), not two hearts. Everything a person reads (the page, the terminal,
a violation's sentence) writes cards and calls through this module, in the words of
``docs/rules/``: Poley "2 hot", "3 ♠"; Fifty-Six "44 ♥ doubled", "40 no trump", "thani"; Bid Whist
"4 uptown ♥", "4 no trump low"; Nap "Nap", "misery"; Shelem "120 ♠". Fifty-Six's cards may be
written with its rule sheet's letters (P M S D N R for J 9 A 10 K Q) when the table chooses.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.cards import Card, Suit

SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
PLURALS = {s.letter: s.plural for s in Suit}
JOKERS = {"BJ": "big joker", "LJ": "little joker"}
# Fifty-Six's rule sheet names J 9 A 10 K Q by the letters P M S D N R.
SHEET_LETTERS = {"J": "P", "9": "M", "A": "S", "T": "D", "K": "N", "Q": "R"}
DIRECTIONS = {"high": "high", "low": "low"}  # Bid Whist no-trump: the way the cards run


def rank_faces(game: str, letters: bool = False) -> dict[str, str]:
    """How each rank letter is drawn on a card: the ten as "10", Fifty-Six's sheet letters."""
    faces = {r: ("10" if r == "T" else r) for r in "23456789TJQKA"}
    if letters and game == "fifty-six":
        faces |= SHEET_LETTERS
    return faces


def card_words(code: str, game: str = "", letters: bool = False) -> str:
    """A card as people read it: "10♥", "M♠" (Fifty-Six's letters), "big joker"."""
    if code in JOKERS:
        return JOKERS[code]
    card = Card.from_str(code)
    return rank_faces(game, letters)[code[0].upper()] + SYMBOLS[str(card)[1]]


def suit_words(letter: str) -> str:
    """A suit named as trumps: "♠ spades"."""
    return f"{SYMBOLS[letter]} {PLURALS[letter]}"


# --- calls ---------------------------------------------------------------------------------------

_PLAIN = {"pass": "pass", "hold": "hold", "double": "double", "redouble": "redouble"}


def call_words(game: str, text: str) -> str:
    """A call of the auction in the game's words ("2H" in Poley is "2 hot")."""
    if text in _PLAIN:
        return _PLAIN[text]
    return _CALLS.get(game, _as_written)(text)


def contract_words(
    game: str, contract: str | None, trump: str | None = None, direction: str | None = None
) -> str | None:
    """The contract as the table says it: the bid, then its trumps or direction once named
    ("3 ♠", "2 hot", "4 uptown ♥", "4 no trump low", "44 ♥ doubled", "Nap ♣")."""
    if contract is None:
        return None
    words = call_words(game, contract)
    if game == "poley" and contract.endswith("H"):
        return words  # hot: there are no trumps to name
    if game == "fifty-six":
        return words  # the bid names its suit; doubling is written after it
    if trump is not None:
        return _with_trump(game, words, SYMBOLS[trump])
    if direction is not None and game == "bid-whist" and contract.endswith("no"):
        return f"{words} {DIRECTIONS[direction]}"
    return words


def _with_trump(game: str, words: str, symbol: str) -> str:
    if game == "poley" and words.endswith(" poley"):  # "5 ♠ poley": the number, its suit, its name
        return words.replace(" poley", f" {symbol} poley")
    return f"{words} {symbol}"


def declaration_words(trump: str | None = None, direction: str | None = None) -> str:
    """A declaration as a choice: trumps "♠ spades", or Bid Whist's direction "high (uptown)"."""
    if trump is not None:
        return suit_words(trump)
    assert direction is not None
    return f"{direction} ({'uptown' if direction == 'high' else 'downtown'})"


def _as_written(text: str) -> str:
    return text


def _poley(text: str) -> str:
    m = re.fullmatch(r"([1-5])(H?)", text)
    if not m:
        return text
    number, hot = m.groups()
    if number == "5":
        return "5 hot shooter" if hot else "5 poley"
    return f"{number} hot" if hot else number


def _fifty_six(text: str) -> str:
    if text == "thani":
        return "thani"
    m = re.fullmatch(r"(\d+)(NT|[SHDC])(x{0,2})", text)
    if not m:
        return text
    number, suit, doubled = m.groups()
    words = f"{number} {'no trump' if suit == 'NT' else SYMBOLS[suit]}"
    return words + {"": "", "x": " doubled", "xx": " redoubled"}[doubled]


def _bid_whist(text: str) -> str:
    m = re.fullmatch(r"([1-7])(high|low|no)?", text)
    if not m:
        return text
    number, kind = m.groups()
    return f"{number} {({None: 'uptown', 'high': 'uptown', 'low': 'downtown', 'no': 'no trump'})[kind]}"


_NAP = {"nap": "Nap", "5": "Nap", "misery": "misery", "wellington": "Wellington", "blucher": "Blücher"}


def _nap(text: str) -> str:
    return _NAP.get(text.lower().replace("ü", "u"), text)


_CALLS: dict[str, Callable[[str], str]] = {
    "poley": _poley,
    "shelem": _as_written,  # a bid is its number: "120"
    "fifty-six": _fifty_six,
    "bid-whist": _bid_whist,
    "nap": _nap,
}
