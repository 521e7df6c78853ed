"""Invariants of a deal through the simulated machine, shared by the link and property tests."""

from __future__ import annotations

from collections import Counter

from firmware_bridge.plan import DealPlan
from firmware_bridge.protocol import REST
from simulators.dealing_machine import SimulatedDeal


def check_deal(sim: SimulatedDeal, plan: DealPlan, stack_size: int) -> None:
    result, snap, audit = sim.result, sim.snapshot, sim.machine.audit
    # Nothing thrown twice: no physical card reached a seat or the rest twice, no route ran twice.
    assert all(n == 1 for n in audit.deliveries.values()), audit.deliveries
    assert all(n == 1 for n in audit.routes.values()), audit.routes
    # Conservation: every physical card is somewhere, exactly once.
    assert snap["uids"] == list(range(stack_size))
    seats = len(plan.seats)
    if result.status == "complete":
        assert result.message == ""
        assert [len(h) for h in result.hands] == list(plan.seats)
        assert len(result.rest) == plan.rest
        assert Counter(c for h in [*result.hands, result.rest] for c in h) == Counter(plan.pack)
        # The host's belief is the machine's physical truth, card for card.
        assert result.hands == snap["slots"][:seats]
        assert result.rest == snap["slots"][REST]
        assert all(not slot for slot in snap["slots"][seats:REST])
    else:
        assert result.status == "void" and result.message.strip(), result
        # Even a void deal never lies about a slot.
        assert result.hands == snap["slots"][:seats]
        assert result.rest == snap["slots"][REST]
