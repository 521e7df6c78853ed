"""Wires the rules engine to the dealing machine's bridge: games become plain-value deal plans.

The bridge knows card ids and seat numbers only; this module knows that Poley deals five cards
to four seats and two to the rest from a 22-card pack, what a card is called in English, how to
read a predetermined deal from a table log or a PBN file, and how to run a deal through the
simulated machine for ``croupier deal --sim``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from controller.log_file import LogFileError, read_log_file
from engine.cards import CARDS, RANK_WORDS, Card, Suit
from engine.errors import EngineError
from engine.game import Game
from engine.log import DealEvent, MalformedLog, loads
from firmware_bridge.dealer import Dealer
from firmware_bridge.events import DealResult, Operator
from firmware_bridge.link import Link
from firmware_bridge.plan import DealPlan
from firmware_bridge.protocol import REJECT, REST


class BadDealFile(ValueError):
    """A predetermined deal that cannot be used; the message says why."""


class EngineNames:
    """Card names for people: "the 9 of hearts (9H)", "queens of spades (QS)"."""

    def name(self, card: int) -> str:
        c = CARDS[card] if 0 <= card < len(CARDS) else None
        if c is None:
            return f"an unknown card (code {card})"
        return f"{_words(c)} ({c})"

    def plural(self, card: int) -> str:
        c = CARDS[card]
        if c.is_joker:
            return f"{_words(c).removeprefix('the ')}s ({c})"
        assert c.rank is not None and c.suit is not None
        word = _rank_word(c)
        return f"{word}{'es' if word.endswith('x') else 's'} of {c.suit.plural} ({c})"


def _rank_word(c: Card) -> str:
    assert c.rank is not None
    return str(c.rank + 2) if c.rank <= 8 else RANK_WORDS[c.rank]  # numerals for pips, as on the card


def _words(c: Card) -> str:
    if c.is_joker:
        return c.name()
    assert c.suit is not None
    return f"the {_rank_word(c)} of {c.suit.plural}"


def seats_for(game: Game, players: int | None) -> int:
    n = players if players is not None else game.default_players()
    if n not in game.seat_counts:
        raise BadDealFile(f"{game.title} is played by {' or '.join(map(str, game.seat_counts))} players, not {n}")
    return n


def plan_for(game: Game, players: int, fixed: DealEvent | None = None, options: Any = None) -> DealPlan:
    """The bridge's plan for one deal of ``game`` at ``players`` seats (dealer at seat 0, or the
    predetermined deal's), shaped as the engine deals under ``options`` (default: the game's
    defaults for that many players, so six-handed Nap's dealer sits out)."""
    options = game.options(None, players) if options is None else options
    shape = game.deal_shape(players, options, fixed.dealer or 0 if fixed else 0)
    hands = None
    if fixed is not None:
        hands = (*(tuple(c.index for c in h) for h in fixed.hands), tuple(c.index for c in fixed.rest))
    try:
        return DealPlan(
            pack=tuple(c.index for c in game.pack),
            seats=shape.per_seat,
            rest=shape.rest,
            fixed=hands,
            game=game.title,
            names=EngineNames(),
        )
    except ValueError as exc:
        raise BadDealFile(str(exc)) from None


# --- predetermined deals ---------------------------------------------------------------------


@dataclass(frozen=True)
class FixedDeal:
    """A predetermined deal, and the options whose shape it follows (a log's own options)."""

    event: DealEvent
    options: Any


def read_deal_file(path: Path, game: Game, players: int) -> FixedDeal:
    """The first deal of a table log (JSON) or of a PBN file (four seats, 52 cards)."""
    try:
        text = read_log_file(path)
    except LogFileError as exc:
        raise BadDealFile(str(exc)) from None
    if text.lstrip().startswith("{"):
        return _deal_from_log(text, path, game, players)
    return FixedDeal(_deal_from_pbn(text, path, game, players), game.options(None, players))


def _deal_from_log(text: str, path: Path, game: Game, players: int) -> FixedDeal:
    try:
        log = loads(text)
    except (MalformedLog, EngineError) as exc:
        raise BadDealFile(f"{path}: {exc}") from None
    if log.game.name != game.name:
        raise BadDealFile(f"{path} is a {log.game.title} log, not {game.title}")
    if log.players != players:
        raise BadDealFile(f"{path} is a log of {log.players} players, not {players} (give --players {log.players})")
    for event in log.events:
        if isinstance(event, DealEvent):
            return FixedDeal(event, log.options)
    raise BadDealFile(f"{path} has no deal event")


_PBN_DEAL = re.compile(r'\[Deal\s+"([NESW]):([^"]*)"\]', re.IGNORECASE)


def _deal_from_pbn(text: str, path: Path, game: Game, players: int) -> DealEvent:
    """PBN's Deal tag; cards of the game's pack that no hand lists go to the rest (Shelem's widow)."""
    match = _PBN_DEAL.search(text)
    if match is None:
        raise BadDealFile(f'{path}: no [Deal "N:..."] tag (PBN) and not a table log')
    if players != 4:
        raise BadDealFile(f"{path}: a PBN deal is for four seats, not {players}")
    first = "NESW".index(match.group(1).upper())
    hands_text = match.group(2).split()
    if len(hands_text) != 4:
        raise BadDealFile(f"{path}: a PBN deal lists four hands, found {len(hands_text)}")
    hands: list[tuple[Card, ...]] = [()] * 4
    for offset, hand in enumerate(hands_text):
        hands[(first + offset) % 4] = _pbn_hand(hand, path)
    listed = Counter(c for h in hands for c in h)
    rest = Counter(game.pack)
    rest.subtract(listed)
    if any(n < 0 for n in rest.values()):
        raise BadDealFile(f"{path}: the PBN deal has cards that are not in the {game.title} pack")
    return DealEvent(hands=tuple(hands), rest=tuple(sorted(rest.elements())), dealer=0)  # seat 0 is North


def _pbn_hand(text: str, path: Path) -> tuple[Card, ...]:
    suits = text.split(".")
    if len(suits) != 4:
        raise BadDealFile(f"{path}: PBN hand {text!r} needs four suits (S.H.D.C)")
    out = []
    for suit, ranks in zip((Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS), suits, strict=True):
        for r in ranks.replace("10", "T").upper():
            try:
                out.append(Card.from_str(r + suit.letter))
            except EngineError:
                raise BadDealFile(f"{path}: {r!r} is not a rank in PBN hand {text!r}") from None
    return tuple(out)


# --- running a deal ----------------------------------------------------------------------------


def deal_on_port(
    url: str, plan: DealPlan, operator: Operator, observer: Callable[[Any], None] | None = None
) -> DealResult:
    """One deal on a real machine at a pyserial URL."""
    link = Link(url)
    link.open()
    try:
        return Dealer(link, observer=observer).deal(plan, operator)
    finally:
        link.close()


def codes(ids: list[int]) -> list[str]:
    return [str(CARDS[i]) if 0 <= i < len(CARDS) else f"?{i}" for i in ids]


def result_json(
    game: Game, result: DealResult, machine: dict[str, Any] | None, extra: dict[str, Any]
) -> dict[str, Any]:
    """The object ``croupier deal --json`` prints (design.md, contract 3)."""
    out: dict[str, Any] = {"game": game.name, "status": result.status}
    if result.status != "complete":
        out["message"] = result.message
    out["hands"] = [codes(h) for h in result.hands]
    out["rest"] = codes(result.rest)
    if machine is not None:
        out["machine"] = machine
    out["stats"] = {**asdict(result.stats), **extra}
    out["stats"]["retransmit_rate"] = round(out["stats"]["retransmit_rate"], 4)
    out["stats"]["seconds"] = round(out["stats"]["seconds"], 3)
    return out


def machine_json(snapshot: dict[str, Any], seats: int) -> dict[str, Any]:
    slots = snapshot["slots"]
    return {
        "hands": [codes(slots[s]) for s in range(seats)],
        "rest": codes(slots[REST]),
        "reject": codes(slots[REJECT]),
        "hopper": codes(snapshot["hopper"]),
        "path": codes(snapshot["path"]),
    }


def dumps(obj: Any) -> str:
    return json.dumps(obj)


def deal_on_sim(
    game: Game,
    plan: DealPlan,
    *,
    seed: int | None,
    spec: Any,
    speed: float,
    observer: Callable[[Any], None] | None = None,
) -> dict[str, Any]:
    """One deal of ``plan`` through the simulated machine over a pty; the contract-3 JSON object."""
    from simulators.dealing_machine import SimulatedMachine
    from simulators.faults import load_stack

    seed = 0 if seed is None else seed
    stack = load_stack(game.pack, spec, seed)
    with SimulatedMachine(stack, seed=seed, line=spec.line, faults=spec.machine, speed=speed) as machine:
        sim = machine.deal(plan, observer)
    extra = {"injected": spec.count(), "operator": sim.operator_actions, **sim.line}
    return result_json(game, sim.result, machine_json(sim.snapshot, len(plan.seats)), extra)
