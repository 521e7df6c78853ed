"""The dealing machine on a lossy serial line: the highest share of lost bytes at which 99 % of deals complete.

Each deal runs the real link and Dealer against the simulated machine on a pty, in real time at
commercial speed (about 100 ms a card), with the line dropping the given share of bytes in both
directions. A deal completes or is void with a message. Rates rise in steps; the figure is the
highest rate at which at least 99 % of the deals completed. A rate stops as soon as 99 % is out
of reach, and the series stops at the first rate that misses it.

Deals run side by side in worker processes: each spends most of its time waiting on the
protocol's timers, not on the CPU. The line's faults are seeded (deal k of a rate uses seed
``seed + k``), but the host's slot draw comes from the system's CSPRNG and thread timing varies,
so a repeat gives a close figure, not the same deals.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import re
import statistics
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from typing import Any

from controller.dealing import plan_for
from engine.games import get_game
from firmware_bridge.errors import BridgeError
from simulators.dealer_model import COMMERCIAL
from simulators.dealing_machine import SimulatedMachine
from simulators.faults import FaultSpec, load_stack
from simulators.serial_link import LineFaults

RATES = (0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.1)
TARGET = 0.99


@dataclass(frozen=True)
class RateOutcome:
    rate: float
    deals: int  # deals finished: fewer than asked when 99 % was out of reach before the end
    complete: int
    median_s: float
    why_not: list[str]  # the most frequent reasons of the deals that did not complete
    stopped_early: bool = False


@dataclass(frozen=True)
class LossFigure:
    game: str
    seed: int
    deals_per_rate: int
    highest_rate: float | None  # None: even the lowest rate missed 99 %
    rates: list[RateOutcome]
    command: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def loss_command(game: str, deals: int, seed: int, jobs: int) -> str:
    """The command line that reproduces a figure."""
    return f"croupier bench dealer --loss --game {game} --deals {deals} --seed {seed} --jobs {jobs}"


def one_deal(game_name: str, drop: float, seed: int) -> tuple[str, str, float]:
    """One deal on a line dropping ``drop`` of its bytes: (status, message, seconds)."""
    game = get_game(game_name)
    stack = load_stack(game.pack, FaultSpec(), seed)
    plan = plan_for(game, game.default_players())
    try:
        with SimulatedMachine(stack, seed=seed, line=LineFaults(drop=drop), timings=COMMERCIAL) as machine:
            sim = machine.deal(plan)
    except BridgeError as exc:  # the contract says this never happens: counted, not hidden
        return "error", str(exc), 0.0
    return sim.result.status, sim.result.message, sim.result.stats.seconds


def loss_limit(
    game: str,
    deals: int = 100,
    seed: int = 1,
    jobs: int = 4,
    rates: Iterable[float] = RATES,
    progress: Callable[[float, int, int], None] | None = None,
) -> LossFigure:
    """Deal ``deals`` times at each rate of ``rates`` (rising) until one misses 99 %."""
    outcomes: list[RateOutcome] = []
    highest = None
    # Spawned workers: forking a process that runs threads (a progress display) can deadlock.
    spawn = multiprocessing.get_context("spawn")
    level = logging.getLogger().getEffectiveLevel()
    with ProcessPoolExecutor(jobs, mp_context=spawn, initializer=_log_as, initargs=(level,)) as pool:
        for rate in rates:
            outcome = _deal_at(pool, game, rate, deals, seed, progress)
            outcomes.append(outcome)
            if outcome.complete < _needed(deals):
                break
            highest = rate
    return LossFigure(game, seed, deals, highest, outcomes, loss_command(game, deals, seed, jobs))


def _log_as(level: int) -> None:
    # A spawned worker starts without the command line's logging set-up: without this, every
    # "the port failed" warning of a noisy line would be printed over the progress display.
    logging.basicConfig(level=level, format="%(name)s: %(message)s")


def _needed(deals: int) -> int:
    return math.ceil(TARGET * deals)


def _deal_at(
    pool: ProcessPoolExecutor,
    game: str,
    rate: float,
    deals: int,
    seed: int,
    progress: Callable[[float, int, int], None] | None,
) -> RateOutcome:
    pending: set[Future[tuple[str, str, float]]] = {pool.submit(one_deal, game, rate, seed + k) for k in range(deals)}
    results: list[tuple[str, str, float]] = []
    failed = 0
    while pending and failed <= deals - _needed(deals):
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            results.append(future.result())
            failed += results[-1][0] != "complete"
        if progress is not None:
            progress(rate, len(results), deals)
    for future in pending:  # 99 % is out of reach: the deals not started are not needed
        future.cancel()
    wait(pending)
    complete = sum(status == "complete" for status, _, _ in results)
    reasons = Counter(_reason(message) for status, message, _ in results if status != "complete")
    seconds = [s for _, _, s in results] or [0.0]
    median = round(statistics.median(seconds), 2)
    return RateOutcome(rate, len(results), complete, median, _top(reasons), stopped_early=len(results) < deals)


def _reason(message: str) -> str:
    # Each deal has its own temporary port and its own count of damaged frames: the same
    # reason on two deals must count once.
    return re.sub(r"\d+ frames? arrived", "frames arrived", re.sub(r" at /\S+", "", message))


def _top(reasons: Counter[str]) -> list[str]:
    return [f"{n} x {reason}" for reason, n in reasons.most_common(3)]
