"""Terminal rendering of referee results with rich: one table per match, one row per hand.

Seats, calls, contracts and violations are written as the page writes them: through
``engine.seat_names``, ``engine.words`` and ``engine.violation_words`` (a seat is "North", Poley's
"2H" is "2 hot", a revoke is a sentence).
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from engine.log import Referee
from engine.seat_names import SeatNames
from engine.view import public_violation, table_words
from engine.words import SYMBOLS, contract_words


def seat_label(seat: int | None, players: int = 4, names: SeatNames | None = None) -> str:
    """A seat as every screen at the table names it: the players' name for it, else its compass point."""
    if seat is None:
        return "-"
    return (names or SeatNames.of(players))(seat)


def seat_short(seat: int | None, players: int = 4, names: SeatNames | None = None) -> str:
    """The same, in a narrow column: a compass point by its initials ("NE")."""
    return (names or SeatNames.of(players)).short(seat)


def numbers(values: list[int] | tuple[int, ...], signed: bool = False) -> str:
    """Two teams as "4 - 0"; one value per seat (Nap) as "+5 -1 -1 -1", compact enough to fit."""
    if len(values) == 2:
        return " - ".join(map(str, values))
    return " ".join(f"{v:+d}" if signed else str(v) for v in values)


def report_in_words(referee: Referee, names: tuple[str, ...] = ()) -> dict[str, Any]:
    """The referee's report with each contract and violation in words (``contract_words``, ``text``)."""
    words = table_words(referee, names)
    report = referee.report()
    for hand, violations in zip(report["hands"], referee.violations, strict=True):
        hand["contract_words"] = contract_words(words.game, hand["contract"], hand["trump"], hand.get("direction"))
        hand["violations"] = [public_violation(v, words) for v in violations]
    return report


def result_table(report: dict[str, Any], players: int = 4) -> Table:
    names = SeatNames.of(players)
    table = Table(title=f"{report['game']}: {len(report['hands'])} hand(s)", show_lines=False)
    for column in ("#", "dealer", "decl.", "contract", "trump", "tricks", "result", "score", "viol."):
        # Per-seat lists (Nap) may wrap inside their cells; the short columns never do.
        wraps = column in ("tricks", "score")
        table.add_column(column, justify="right" if column in ("#", "viol.") else "left", no_wrap=not wraps)
    for number, hand in enumerate(report["hands"], start=1):
        result = hand["result"] or f"{hand.get('phase')}: {seat_label(hand.get('to_act'), players, names)}"
        score = hand["score"]
        table.add_row(
            str(number),
            seat_short(hand["dealer"], players, names),
            seat_short(hand["declarer"], players, names),
            hand.get("contract_words") or hand["contract"] or "-",
            SYMBOLS.get(hand.get("trump") or "", None) or hand.get("direction") or "-",
            numbers(hand["tricks"]),
            result,
            numbers(score, signed=True) if score is not None else "-",
            str(len(hand["violations"])),
        )
    return table


def violations_text(report: dict[str, Any]) -> Text:
    text = Text()
    for number, hand in enumerate(report["hands"], start=1):
        for v in hand["violations"]:
            text.append(f"hand {number}, event {v['event']}: ", style="bold red")
            text.append(f"{v.get('text') or v['message']} [{v['rule']}]\n")
    return text


def match_text(report: dict[str, Any], players: int = 4) -> Text:
    match = report["match"]
    parts = [] if "chips" in match else [f"score {numbers(match['score'], signed=len(match['score']) > 2)}"]
    for key in ("horses", "chips", "pool"):
        if key in match:
            value = match[key]
            parts.append(f"{key} {numbers(value) if isinstance(value, list) else value}")
    if match["over"]:
        over = f"over: {winner_name(report['game'], match['winner'], players)} wins"
        parts.append(over if match["winner"] is not None else "over")
    else:
        parts.append("match goes on")
    return Text("Match: " + "; ".join(parts), style="bold")


def winner_name(game: str, winner: int, players: int) -> str:
    """The winning team ("N–S") or, where each plays for himself (Nap), the winning seat."""
    names = SeatNames.of(players)
    return names(winner) if game == "nap" else names.team(winner)


def print_report(console: Console, report: dict[str, Any], players: int = 4) -> None:
    parts: list[Any] = [result_table(report, players)]
    violations = violations_text(report)
    if violations.plain:
        parts.append(violations)
    parts.append(match_text(report, players))
    console.print(Group(*parts))
