"""What joining a club costs the table's own thread: the time of one event through the table
controller (judged, journaled and, with ``[club]``, its club messages built and queued in the
outbox in the same SQLite transaction), with and without a club, on this machine's disk.

The publisher's thread is not started: what is measured is the share the table's single writer
pays; sending is the publisher's, on its own thread (docs/club-table.md).

    python -m benchmarks.club_link [--hands 3] [--rounds 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from controller.runtime import Runtime
from controller.settings import Settings
from controller.store import Journal
from controller.table import TableController
from engine.games import get_game
from engine.log import dumps
from simulators.table import SimulatedTable

GAMES = [("poley", None), ("shelem", None), ("fifty-six", None), ("bid-whist", None), ("nap", 5)]
CLUB = {"broker": "mqtt://127.0.0.1:1883", "club": "bench", "table": "t1", "password": "unused"}


def _logs(hands: int) -> list[dict[str, Any]]:
    logs = []
    for seed, (game, players) in enumerate(GAMES):
        table = SimulatedTable(get_game(game), players=players, seed=seed)
        table.play(hands)
        logs.append(json.loads(dumps(table.log())))
    return logs


def _controller(folder: Path, club: bool) -> TableController:
    path = folder / "journal.db"
    if not club:
        return TableController(Journal(path))
    settings = Settings(store={"path": path}, club=CLUB)  # type: ignore[arg-type]
    return Runtime.open(settings, "token").controller  # joined to the club; its publisher never started


def _match_times(log: dict[str, Any], club: bool) -> list[float]:
    """Seconds per event of one match, in a journal of its own."""
    times = []
    with tempfile.TemporaryDirectory(prefix="croupier-bench-") as folder:
        controller = _controller(Path(folder), club)
        controller.start_match(log["game"], log.get("players"), log.get("options"), log.get("start"))
        for event in log["events"]:
            began = time.perf_counter()
            assert controller.submit(event).accepted
            times.append(time.perf_counter() - began)
        controller.journal.close()
    return times


def measure(hands: int, rounds: int) -> dict[str, Any]:
    """Each match played with and without a club in turn, the order swapped every round (so the
    disk's and the caches' drift falls on both alike)."""
    logs = _logs(hands)
    times: dict[bool, list[float]] = {False: [], True: []}
    for turn in range(rounds):
        for log in logs:
            for club in (False, True) if turn % 2 == 0 else (True, False):
                times[club] += _match_times(log, club)
    result: dict[str, Any] = {"events": len(times[False]), "hands_per_game": hands, "rounds": rounds}
    for name, club in (("without_club", False), ("with_club", True)):
        ordered = sorted(times[club])
        result[name] = {
            "median_ms": round(statistics.median(ordered) * 1000, 3),
            "p95_ms": round(ordered[int(len(ordered) * 0.95)] * 1000, 3),
        }
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.club_link", description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=3, help="hands of each of the five games")
    parser.add_argument("--rounds", type=int, default=2, help="times each match is played in each way")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    result = measure(args.hands, args.rounds)
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"{result['events']} events each way ({args.hands} hands a game, {args.rounds} rounds), on the table's thread:"
    )
    for name in ("without_club", "with_club"):
        figures = result[name]
        print(f"  {name.replace('_', ' '):>12}: median {figures['median_ms']} ms, p95 {figures['p95_ms']} ms")


if __name__ == "__main__":
    main()
