"""The dealing machine's protocol under load: host overhead per card, and the link's own limit.

Overhead: the simulated machine runs at commercial speed (COMMERCIAL timings, about 100 ms a
card, as Dealer4 and Duplimate reach 8-10 cards a second) on a pty, in real time. The firmware
adds up the mechanical time it spent (feed, read, turret, throw); everything else between
START and the end of the deal (frames on the line, the host's routing and bookkeeping, waiting
on retransmissions) is overhead, reported as a share of the mechanical time. It is measured
on a clean line and with a share of bytes corrupted in both directions.

Throughput: mechanics take no time and the pty is paced at 115200 baud, so cards per second
is the protocol's own limit (read event, route, reply, delivery event and acks per card).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from controller.dealing import plan_for
from engine.game import Game
from simulators.dealer_model import COMMERCIAL, ZERO, Timings
from simulators.dealing_machine import SimulatedMachine
from simulators.faults import FaultSpec, load_stack
from simulators.serial_link import LineFaults


@dataclass(frozen=True)
class OverheadFigure:
    game: str
    line: str
    cards: int
    mechanical_s: float
    deal_s: float
    overhead_pct: float
    retransmissions: int
    status: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ThroughputFigure:
    game: str
    baud: int
    cards: int
    deal_s: float
    cards_per_s: float
    status: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _run(game: Game, line: LineFaults, timings: Timings, seed: int) -> tuple[Any, SimulatedMachine]:
    stack = load_stack(game.pack, FaultSpec(), seed)
    plan = plan_for(game, game.default_players())
    machine = SimulatedMachine(stack, seed=seed, line=line, timings=timings, speed=1.0)
    with machine:
        sim = machine.deal(plan)
    return sim, machine


def overhead(game: Game, corrupt: float = 0.0, seed: int = 1) -> OverheadFigure:
    """One deal at commercial speed; the host's overhead as a share of the mechanical time."""
    sim, machine = _run(game, LineFaults(corrupt=corrupt), COMMERCIAL, seed)
    mechanical = machine.firmware.mechanical_s
    deal_s = sim.result.stats.seconds
    return OverheadFigure(
        game=game.name,
        line=f"{corrupt:.0%} corrupt" if corrupt else "clean",
        cards=sim.result.stats.cards_read,
        mechanical_s=round(mechanical, 3),
        deal_s=round(deal_s, 3),
        overhead_pct=round(100 * (deal_s - mechanical) / mechanical, 2),
        retransmissions=sim.result.stats.retransmissions,
        status=sim.result.status,
    )


def throughput(game: Game, baud: int = 115200, seed: int = 1) -> ThroughputFigure:
    """One deal with zero-time mechanics on a line paced at ``baud``: cards per second."""
    sim, _ = _run(game, LineFaults(baud=baud), ZERO, seed)
    s = sim.result.stats
    return ThroughputFigure(
        game.name, baud, s.cards_read, round(s.seconds, 3), round(s.cards_read / s.seconds, 1), sim.result.status
    )
