"""The host's link and Dealer against the simulated firmware over a real pseudo-terminal."""

from __future__ import annotations

import errno

import pytest

from controller.dealing import plan_for
from engine.games import get_game
from firmware_bridge.errors import LinkLost, PortUnavailable
from firmware_bridge.link import Link, why_not_open
from firmware_bridge.protocol import GetStatus, State, Status
from simulators.dealer_model import NO_FAULTS, MachineFaults
from simulators.dealing_machine import SimulatedMachine
from simulators.faults import FaultSpec, load_stack
from simulators.serial_link import CLEAN_LINE, LineFaults
from tests.bridge.machine_checks import check_deal

FAST = 2000.0  # mechanics 2000 times faster than real: a card takes ~0.1 ms


def machine(game="poley", seed=1, line=CLEAN_LINE, faults=NO_FAULTS):
    g = get_game(game)
    stack = load_stack(g.pack, FaultSpec(), seed)
    return g, stack, SimulatedMachine(stack, seed=seed, line=line, faults=faults, speed=FAST)


def test_the_link_opens_a_session_and_answers_a_status_request():
    _, _, m = machine()
    with m:
        assert m.link.wait_up(timeout_s=60).destinations == 8
        reply = m.link.request(GetStatus(m.link.next_cmd_id()))
        assert isinstance(reply, Status) and reply.state == State.IDLE and reply.hopper == 22


def test_no_machine_means_link_lost_not_a_hang():
    from simulators.serial_link import PtyLink

    silent = PtyLink()  # a port with nothing behind it
    try:
        with pytest.raises(LinkLost, match="no answer"):
            Link(silent.path).open(timeout_s=0.5)
    finally:
        silent.close()


def test_a_port_that_cannot_be_opened_is_named_with_its_cause_at_once(tmp_path):
    import serial

    from simulators.serial_link import PtyLink

    with pytest.raises(PortUnavailable, match=r"no such port .*nothing-here: is the dealing machine plugged in"):
        Link(str(tmp_path / "nothing-here")).open(timeout_s=30)
    port = PtyLink()
    held = serial.Serial(port.path, exclusive=True)  # another program has it
    try:
        with pytest.raises(PortUnavailable, match=r"is busy: another program has it open"):
            Link(port.path).open(timeout_s=30)
    finally:
        held.close()
        port.close()


def test_permission_denied_names_the_dialout_group():
    # Tests may run as root, who may open anything: the error's wording is checked on its own.
    denied = OSError(errno.EACCES, "Permission denied")
    assert "must be in the 'dialout' group" in why_not_open("/dev/ttyUSB0", denied)


@pytest.mark.parametrize("game", ["poley", "shelem", "fifty-six", "bid-whist", "nap"])
def test_a_clean_deal_of_every_game(game):
    g, stack, m = machine(game)
    plan = plan_for(g, g.default_players())
    with m:
        sim = m.deal(plan)
    assert sim.result.status == "complete", sim.result.message
    # On a clean line the link never had to start again; retransmissions are a measure of timing
    # (a loaded machine answers late and a frame is sent twice), so `croupier bench dealer` counts
    # them, and a test does not.
    stats = sim.result.stats
    assert (stats.resets, stats.reconnects, stats.faults) == (0, 0, 0), stats
    check_deal(sim, plan, len(stack))


def test_retransmission_under_loss():
    g, stack, m = machine("bid-whist", seed=4, line=LineFaults(corrupt=0.01, drop=0.01))
    plan = plan_for(g, 4)
    with m:
        sim = m.deal(plan)
    assert sim.result.status == "complete", sim.result.message
    assert sim.result.stats.retransmissions > 0
    assert sim.line["bytes_corrupted"] > 0 and sim.line["bytes_dropped"] > 0
    check_deal(sim, plan, len(stack))


def test_a_port_that_closes_and_reopens():
    g, stack, m = machine("shelem", seed=2, faults=MachineFaults(vanish_at=10, vanish_s=0.4))
    plan = plan_for(g, 4)
    events = []
    with m:
        sim = m.deal(plan, observer=events.append)
    assert sim.result.status == "complete", sim.result.message
    assert sim.result.stats.reconnects >= 1 and m.pty.vanished == 1
    assert any(getattr(e, "code", None) == "link" for e in events)
    check_deal(sim, plan, len(stack))


def test_a_reset_mid_deal_resumes_without_losing_or_doubling_a_card():
    for seed in (1, 2, 3, 4):  # both kinds of reset: card past the exit, and card still in the path
        g, stack, m = machine("poley", seed=seed, faults=MachineFaults(reset_after=7))
        plan = plan_for(g, 4)
        with m:
            sim = m.deal(plan)
        assert sim.result.status == "complete", sim.result.message
        assert sim.result.stats.resets == 1 and sim.machine.audit.resets == 1
        check_deal(sim, plan, len(stack))


def test_an_extra_copy_cannot_take_the_slot_of_a_card_purged_at_an_emergency_stop():
    # Fifty-Six's pack holds two of each card; here a third jack of spades. The emergency stop
    # purges the card in the path (a jack, read and routed) into the reject tray and its slot is
    # given back: the extra jack took it, every slot was full, and the deal was declared complete
    # with a read jack left in the tray (found by the property test's soak campaign).
    g = get_game("fifty-six")
    stack = load_stack(g.pack, FaultSpec(extra=(g.pack[0],)), 0)
    m = SimulatedMachine(stack, seed=0, faults=MachineFaults(estop_at=7), speed=FAST)
    plan = plan_for(g, g.default_players())
    with m:
        sim = m.deal(plan)
    assert sim.result.status == "void", sim.result.message
    assert f"({g.pack[0]})" in sim.result.message
    check_deal(sim, plan, len(stack))


def test_every_fault_reaches_the_caller_with_a_reason_and_a_remedy():
    faults = MachineFaults(jam_at=2, double_feed_at=4, unreadable_at=6, estop_at=8, empty_at=15)
    g, stack, m = machine("poley", seed=5, faults=faults)
    plan = plan_for(g, 4)
    events = []
    with m:
        sim = m.deal(plan, observer=events.append)
    assert sim.result.status == "complete", sim.result.message
    raised = {e.code: e for e in events if hasattr(e, "remedy")}
    assert {"jam", "double_feed", "unreadable", "estop", "hopper_empty"} <= set(raised)
    assert all(e.reason and e.remedy for e in raised.values())
    assert "press resume" in raised["jam"].remedy
    check_deal(sim, plan, len(stack))


def test_pause_and_resume_from_another_thread():
    import threading

    g, _stack, m = machine("bid-whist", seed=6)
    plan = plan_for(g, 4)
    m.firmware.speed = 200.0  # slow enough that the pause lands mid-deal
    with m:
        from firmware_bridge.dealer import Dealer
        from simulators.dealer_model import SimulatedOperator

        dealer = Dealer(m.link)
        paused = threading.Event()

        def control(event):
            if getattr(event, "dealt", 0) == 10 and not paused.is_set():
                paused.set()
                threading.Thread(target=lambda: (dealer.pause(), dealer.resume())).start()

        dealer.observer = control
        result = dealer.deal(plan, SimulatedOperator(m.firmware))
    assert result.status == "complete" and paused.is_set()


def test_abort_voids_the_deal_and_leaves_the_machine_idle():
    g, _stack, m = machine("shelem", seed=7)
    plan = plan_for(g, 4)
    m.firmware.speed = 200.0
    with m:
        from firmware_bridge.dealer import Dealer
        from simulators.dealer_model import SimulatedOperator

        dealer = Dealer(m.link)
        dealer.observer = lambda e: dealer.abort("stopped by the test") if getattr(e, "dealt", 0) == 5 else None
        result = dealer.deal(plan, SimulatedOperator(m.firmware))
        status = m.link.request(GetStatus(m.link.next_cmd_id()))
    assert result.status == "void" and result.message == "stopped by the test"
    assert isinstance(status, Status) and status.state == State.IDLE


def test_croupier_deal_on_a_port_talks_to_a_machine_at_that_path():
    # The --port path of the command line, against the simulated firmware's pty.
    import json

    from simulators.dealer_firmware import DealerFirmware
    from simulators.serial_link import PtyLink
    from tests.conftest import run_croupier

    g = get_game("poley")
    pty = PtyLink()
    firmware = DealerFirmware(load_stack(g.pack, FaultSpec(), 3), pty, speed=FAST)
    firmware.start()
    try:
        done = run_croupier("deal", "--port", pty.path, "--game", "poley", "--json")
        snapshot = firmware.snapshot()
    finally:
        firmware.stop()
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "complete" and "machine" not in result
    assert [len(h) for h in result["hands"]] == [5, 5, 5, 5]
    from engine.cards import CARDS

    assert result["hands"] == [[str(CARDS[c]) for c in slot] for slot in snapshot["slots"][:4]]


def test_a_port_that_is_not_there_or_does_not_answer_is_one_line_exit_1(tmp_path):
    from simulators.serial_link import PtyLink
    from tests.conftest import run_croupier

    done = run_croupier("deal", "--port", str(tmp_path / "no-such-port"), "--game", "poley")
    assert done.returncode == 1 and "no such port" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    silent = PtyLink()
    try:
        done = run_croupier("deal", "--port", silent.path, "--game", "poley")
    finally:
        silent.close()
    assert done.returncode == 1 and "no answer from the dealing machine" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_firmware_with_another_message_table_is_refused_by_name(monkeypatch):
    import simulators.dealer_commands as firmware_module

    monkeypatch.setattr(firmware_module, "SCHEMA", 0x12345678)
    g, _, m = machine()
    with m:
        with pytest.raises(LinkLost, match=r"schema 12345678.*update the firmware or the host"):
            m.link.wait_up(timeout_s=60)
        sim = m.deal(plan_for(g, 4))  # croupier deal --sim reports it in its result
    assert sim.result.status == "void" and "schema 12345678" in sim.result.message
    assert sim.snapshot["hopper"] and not any(sim.snapshot["slots"])  # no session: nothing moved


def test_two_deals_in_a_row_on_one_link():
    g, stack, m = machine("fifty-six", seed=8, faults=MachineFaults(jam_at=60, reset_after=20))
    plan = plan_for(g, 6)
    with m:
        first = m.deal(plan)
        assert m.firmware.gather() == 48
        second = m.deal(plan)
    assert first.result.status == second.result.status == "complete", second.result.message
    assert first.result.stats.resets == 1 and second.operator_actions == ["jam"]
    check_deal(second, plan, len(stack))


def test_events_sent_while_the_port_was_away_are_not_lost():
    # Found by the property test: frames of the old session that arrived while the host was
    # reopening the port were acknowledged but never reached the deal, so it stalled.
    faults = MachineFaults(
        reset_after=22,
        jam_at=16,
        empty_at=7,
        estop_at=6,
        vanish_at=15,
        double_feed_at=17,
        unreadable_at=13,
        vanish_s=0.15,
    )
    g, stack, m = machine("poley", seed=9931, line=LineFaults(corrupt=0.005, drop=0.005), faults=faults)
    plan = plan_for(g, 4)
    with m:
        sim = m.deal(plan)
    assert sim.result.status == "complete", sim.result.message
    assert sim.result.stats.reconnects == 1
    check_deal(sim, plan, len(stack))


def test_a_pty_link_never_closed_leaves_no_folder_when_the_program_ends(tmp_path):
    # A signal that stops the table just after the link was made gives nobody the link to close:
    # its folder must still go when the interpreter exits.
    import os
    import subprocess
    import sys

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    program = "from simulators.serial_link import PtyLink\nlink = PtyLink()\nprint(link.path)\n"
    done = subprocess.run(
        [sys.executable, "-c", program], env={**os.environ, "TMPDIR": str(scratch)}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert str(scratch) in done.stdout  # the link was made in the scratch folder
    assert list(scratch.iterdir()) == []
