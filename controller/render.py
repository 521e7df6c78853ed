"""Terminal rendering of referee results with rich: one table per match, one row per hand."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

COMPASS = "NESW"


def seat_label(seat: int | None, players: int = 4) -> str:
    if seat is None:
        return "-"
    return f"{seat} {COMPASS[seat]}" if players == 4 else str(seat)


def numbers(values: list[int] | tuple[int, ...], signed: bool = False) -> str:
    """Two teams as "4 - 0"; one value per seat (Nap) as "+5 -1 -1 -1", compact enough to fit."""
    if len(values) == 2:
        return " - ".join(map(str, values))
    return " ".join(f"{v:+d}" if signed else str(v) for v in values)


def result_table(report: dict[str, Any], players: int = 4) -> Table:
    table = Table(title=f"{report['game']}: {len(report['hands'])} hand(s)", show_lines=False)
    for column in ("#", "dealer", "decl.", "contract", "trump", "tricks", "result", "score", "viol."):
        # Per-seat lists (Nap) may wrap inside their cells; the short columns never do.
        wraps = column in ("tricks", "score")
        table.add_column(column, justify="right" if column in ("#", "viol.") else "left", no_wrap=not wraps)
    for number, hand in enumerate(report["hands"], start=1):
        result = hand["result"] or f"{hand.get('phase')}: {seat_label(hand.get('to_act'), players)}"
        score = hand["score"]
        table.add_row(
            str(number),
            seat_label(hand["dealer"], players),
            seat_label(hand["declarer"], players),
            hand["contract"] or "-",
            hand.get("trump") or hand.get("direction") or "-",
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
            text.append(f"{v['message']} [{v['rule']}]\n")
    return text


def match_text(report: dict[str, Any]) -> Text:
    match = report["match"]
    parts = [] if "chips" in match else [f"score {numbers(match['score'], signed=len(match['score']) > 2)}"]
    for key in ("horses", "chips", "pool"):
        if key in match:
            value = match[key]
            parts.append(f"{key} {numbers(value) if isinstance(value, list) else value}")
    if match["over"]:
        parts.append(f"over: team {match['winner']} wins" if match["winner"] is not None else "over")
    else:
        parts.append("match goes on")
    return Text("Match: " + "; ".join(parts), style="bold")


def print_report(console: Console, report: dict[str, Any], players: int = 4) -> None:
    parts: list[Any] = [result_table(report, players)]
    violations = violations_text(report)
    if violations.plain:
        parts.append(violations)
    parts.append(match_text(report))
    console.print(Group(*parts))
