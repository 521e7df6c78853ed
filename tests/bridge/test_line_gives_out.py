"""A serial line that gives out in the middle of a deal: the void deal never lies about a slot."""

from __future__ import annotations

from collections import Counter

from controller.dealing import plan_for
from engine.cards import CARDS
from engine.games import get_game
from firmware_bridge.framing import cobs_decode
from firmware_bridge.protocol import REST, Route
from simulators.dealing_machine import SimulatedMachine
from simulators.faults import FaultSpec, load_stack
from simulators.serial_link import PtyLink

FAST = 2000.0


class GoesDeafAfterRoutes(PtyLink):
    """A line on which nothing from the machine reaches the host once the host's ``n``-th Route went through."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.routes_left = n
        self.cut = False

    def read(self) -> bytes:
        data = super().read()
        for frame in data.split(b"\x00"):
            body = cobs_decode(frame) if frame else None
            if body is not None and len(body) > 1 and body[1] == Route.CODE:
                self.routes_left -= 1
                self.cut = self.cut or self.routes_left <= 0
        return data

    def write(self, data: bytes) -> None:
        if not self.cut:
            super().write(data)


def test_a_card_whose_delivery_was_never_heard_of_is_named_not_dropped():
    # The machine takes the third Route and throws the card, but neither its reply nor the
    # delivery ever reach the host: the host cannot book the card, and must not pretend it is not there.
    game = get_game("poley")
    stack = load_stack(game.pack, FaultSpec(), 4)
    line = GoesDeafAfterRoutes(3)
    plan = plan_for(game, 4)
    with SimulatedMachine(stack, seed=4, speed=FAST, pty=line) as machine:
        sim = machine.deal(plan, link_deadline_s=1.0)
    assert sim.result.status == "void"
    believed = [*sim.result.hands, sim.result.rest]
    held = [*sim.snapshot["slots"][:4], sim.snapshot["slots"][REST]]
    unheard = [card for host, there in zip(believed, held, strict=True) for card in Counter(there) - Counter(host)]
    assert len(unheard) == 1, (believed, held)
    for host, there in zip(believed, held, strict=True):
        assert not Counter(host) - Counter(there)  # nothing believed that is not there
    assert "never confirmed" in sim.result.message and f"({CARDS[unheard[0]]})" in sim.result.message, sim.result
