"""Stateful property test: whatever faults are injected, no card is lost, doubled or misbelieved.

Each example builds a fault schedule step by step (machine faults at random cards, a noisy
line, a wrong pack), then deals through the simulated firmware over a real pty, and checks:
every card of the pack is in exactly the slot the host believes, or the deal is void with a
message naming the problem; no physical card is delivered twice and no route runs twice; for a
complete deal, the host's hands equal the machine's slots card for card. The default run is a
small sample; ``-m soak`` runs the long campaign (``SOAK_DEALS`` examples, 150 by default).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from controller.dealing import plan_for
from engine.cards import CARDS
from engine.games import get_game
from simulators.dealer_model import MachineFaults
from simulators.dealing_machine import SimulatedMachine
from simulators.faults import FaultSpec, load_stack
from simulators.serial_link import LineFaults
from tests.bridge.machine_checks import check_deal

MACHINE_FAULTS = ["jam_at", "double_feed_at", "unreadable_at", "estop_at", "empty_at", "reset_after", "vanish_at"]


class FaultyDeal(RuleBasedStateMachine):
    @initialize(
        game=st.sampled_from(["poley", "shelem", "fifty-six", "bid-whist", "nap"]),
        seed=st.integers(0, 2**20),
        faults=st.dictionaries(st.sampled_from(MACHINE_FAULTS), st.integers(1, 22), max_size=len(MACHINE_FAULTS)),
    )
    def setup(self, game, seed, faults):
        # The schedule starts with a handful of faults at cards every pack has; rules add more.
        self.game, self.seed = get_game(game), seed
        self.faults: dict[str, int] = dict(faults)
        self.line = LineFaults()
        self.pack_fault: tuple[str, object] | None = None
        self.sim = None

    def not_dealt(self):
        return self.sim is None

    @precondition(not_dealt)
    @rule(kind=st.sampled_from(MACHINE_FAULTS), k=st.integers(1, 56))
    def machine_fault(self, kind, k):
        self.faults[kind] = k

    @precondition(not_dealt)
    @rule(corrupt=st.sampled_from([0.0, 0.002, 0.005]), drop=st.sampled_from([0.0, 0.002, 0.005]))
    def noisy_line(self, corrupt, drop):
        self.line = LineFaults(corrupt=corrupt, drop=drop)

    @precondition(not_dealt)
    @rule(kind=st.sampled_from(["missing", "extra", "foreign"]), pick=st.integers(0, 1000))
    def wrong_pack(self, kind, pick):
        pack = self.game.pack
        outside = [c for c in CARDS if c not in pack]
        if kind == "foreign" and not outside:
            return  # Bid Whist uses every card there is
        chosen = (outside if kind == "foreign" else pack)[pick % len(outside if kind == "foreign" else pack)]
        self.pack_fault = (kind, chosen)

    @precondition(not_dealt)
    @rule()
    def deal(self):
        spec = FaultSpec(**({self.pack_fault[0]: (self.pack_fault[1],)} if self.pack_fault else {}))
        self.stack = load_stack(self.game.pack, spec, self.seed)
        self.plan = plan_for(self.game, self.game.default_players())
        faults = MachineFaults(**self.faults, vanish_s=0.15)
        machine = SimulatedMachine(self.stack, seed=self.seed, line=self.line, faults=faults, speed=5000.0, lease_s=2.0)
        with machine:
            self.sim = machine.deal(self.plan)
        event(f"status {self.sim.result.status}")
        for kind in self.faults:
            event(f"fault {kind}")
        event(f"resets {self.sim.machine.audit.resets}, retransmissions>0 {self.sim.result.stats.retransmissions > 0}")

    @precondition(lambda self: self.sim is not None)
    @rule()
    def look_again(self):
        # After the deal the machine is idle: its slots no longer change.
        assert self.sim.machine.snapshot() == self.sim.snapshot

    @invariant()
    def nothing_lost_doubled_or_misbelieved(self):
        if self.sim is None:
            return
        check_deal(self.sim, self.plan, len(self.stack))
        result = self.sim.result
        if self.pack_fault is None:
            assert result.status == "complete", result.message
        else:
            _, c = self.pack_fault
            assert result.status == "void"
            assert f"({c})" in result.message, result.message

    def teardown(self):
        if self.sim is None and hasattr(self, "game"):
            self.deal()
            self.nothing_lost_doubled_or_misbelieved()


def campaign_settings(examples: int) -> settings:
    return settings(
        max_examples=examples, stateful_step_count=8, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )


class TestFaultsNeverLoseDoubleOrMisplaceACard(FaultyDeal.TestCase):  # type: ignore[name-defined,misc]
    settings = campaign_settings(25)


@pytest.mark.soak
@pytest.mark.timeout(3600)
def test_faults_never_lose_double_or_misplace_a_card_soak():
    class Campaign(FaultyDeal.TestCase):  # type: ignore[name-defined,misc]
        settings = campaign_settings(int(os.environ.get("SOAK_DEALS", "150")))

    Campaign().runTest()
