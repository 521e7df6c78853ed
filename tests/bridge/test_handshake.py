"""The session handshake on a bad line: retried until a Hello gets through, or the deal is void with the reason."""

from __future__ import annotations

from controller.dealing import plan_for
from engine.games import get_game
from firmware_bridge.framing import cobs_decode
from firmware_bridge.protocol import HelloReq
from simulators.dealing_machine import SimulatedMachine
from simulators.faults import FaultSpec, load_stack
from simulators.serial_link import LineFaults, PtyLink
from tests.bridge.machine_checks import check_deal

FAST = 2000.0
HELLO_REQ = HelloReq.CODE


class LosesHelloRequests(PtyLink):
    """A line that loses the host's first ``n`` HelloReq frames whole, and nothing else."""

    def __init__(self, n: int, seed: int = 0) -> None:
        super().__init__(seed=seed)
        self.to_lose = n
        self.lost = 0
        self._partial = b""

    def read(self) -> bytes:
        data, self._partial = self._partial + super().read(), b""
        if self.lost >= self.to_lose:
            return data
        *frames, self._partial = data.split(b"\x00")  # a frame cut by the read waits for its end
        kept = [f for f in frames if not self._loses(f)]
        return b"".join(f + b"\x00" for f in kept)

    def _loses(self, frame: bytes) -> bool:
        body = cobs_decode(frame) if frame else None
        if body is None or len(body) < 2 or body[1] != HELLO_REQ or self.lost >= self.to_lose:
            return False
        self.lost += 1
        return True


def simulated(line: PtyLink, seed: int = 1) -> tuple[SimulatedMachine, int]:
    stack = load_stack(get_game("poley").pack, FaultSpec(), seed)
    return SimulatedMachine(stack, seed=seed, speed=FAST, pty=line), len(stack)


def test_the_handshake_is_retried_until_a_hello_request_gets_through():
    # Forty lost requests: as many as a noisy line loses in a row before the first gets through.
    line = LosesHelloRequests(40)
    machine, cards = simulated(line)
    plan = plan_for(get_game("poley"), 4)
    with machine:
        sim = machine.deal(plan)
    assert line.lost == 40
    assert sim.result.status == "complete", sim.result.message
    check_deal(sim, plan, cards)


def test_a_hello_that_never_gets_through_voids_the_deal_with_the_reason():
    line = LosesHelloRequests(10**9)
    machine, cards = simulated(line)
    plan = plan_for(get_game("poley"), 4)
    with machine:
        sim = machine.deal(plan, link_deadline_s=1.0)
    assert sim.result.status == "void"
    assert "no answer from the dealing machine" in sim.result.message and "in 1 s" in sim.result.message
    assert sim.snapshot["path"] == [] and not any(sim.snapshot["slots"]), sim.snapshot  # nothing moved
    check_deal(sim, plan, cards)


def test_a_line_too_noisy_for_any_hello_is_named_as_such():
    g = get_game("poley")
    stack = load_stack(g.pack, FaultSpec(), 3)
    machine = SimulatedMachine(stack, seed=3, line=LineFaults(corrupt=0.5), speed=FAST)
    with machine:
        sim = machine.deal(plan_for(g, 4), link_deadline_s=1.0)
    assert sim.result.status == "void"
    assert "frames arrived damaged, the serial line is too noisy" in sim.result.message, sim.result.message
