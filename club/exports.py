"""Exports: the results as CSV (one row per side of each match), and each match as a table log
that ``croupier referee`` replays to the same scores."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from club.replay import MatchRecord
from club.standings import Placed, leaders

COLUMNS = ["table", "match", "round", "game", "hands", "side", "entrant", "score", "result", "over", "state"]


def results_csv(placed: Sequence[tuple[Placed, MatchRecord]]) -> str:
    """Every refereed match, one row per side, in table and match order."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for match, record in placed:
        top = leaders(match.game, match.standing)
        over = bool(match.standing.get("over"))
        for side, entrant in enumerate(match.entrants):
            outcome = _outcome(side, top, over)
            score = match.standing["score"][side] if side < len(match.standing.get("score", [])) else ""
            row = [match.table, match.match, match.round or "", match.game, record.hands_revealed, side, entrant]
            writer.writerow([*row, score, outcome, "yes" if over else "no", record.state])
    return out.getvalue()


def _outcome(side: int, top: list[int], over: bool) -> str:
    if side not in top:
        return "lost" if over else "behind"
    if len(top) > 1:
        return "drawn" if over else "level"
    return "won" if over else "leading"


def table_log_text(record: MatchRecord) -> str:
    """The match's table log (docs/table-log.md) as the club rebuilt it from the reveals."""
    assert record.log is not None
    return json.dumps(record.log, indent=1) + "\n"
