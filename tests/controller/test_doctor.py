"""``croupier doctor`` against the simulated devices: every check passes on the simulated table,
and each fails with its message when its device is missing or wrong (no port, a port that never
answers, a machine that reports a fault, a button that is never pressed, an LED nobody sees)."""

from __future__ import annotations

import json
import os
import sqlite3

from gpiozero.pins.mock import MockFactory

from controller.doctor.dealer_checks import DealerRig, check_dealer, may_read_and_write
from controller.doctor.examine import Visit, examine
from controller.doctor.findings import Status
from controller.doctor.panel_checks import PanelRig, check_panel
from controller.doctor.person import NobodyThere
from controller.doctor.simulated import MockFingers
from controller.doctor.system_checks import SystemRig, check_system
from controller.settings import Settings
from controller.store import Journal
from engine.games import get_game
from firmware_bridge.protocol import FaultCode, State
from hardware.config import PanelConfig
from simulators.dealer_firmware import DealerFirmware
from simulators.serial_link import PtyLink
from tests.conftest import run_croupier

EVERY_CHECK = {
    "system": ["disk space", "clock", "journal", "page"],
    "dealer": ["port", "access", "handshake", "firmware", "self-test"],
    "camera": [
        "opens",
        "resolution",
        "frame rate",
        "exposure",
        "focus",
        "mat in view",
        "zones fit",
        "cards read",
    ],
    "panel": ["pins", "deal button", "undo button", "next button"] + [f"seat {n} LED" for n in range(6)] + ["buzzer"],
}


def by_check(findings):
    return {(f.group, f.check): f for f in findings}


def by_name(findings):
    """One group's findings by their check's name."""
    return {f.check: f for f in findings}


def simulated_settings(tmp_path):
    return Settings(store={"path": tmp_path / "table" / "croupier.db"}, api={"host": "0.0.0.0", "port": 80})


def synchronised():
    return True


def test_every_check_passes_on_the_simulated_table(tmp_path):
    findings = list(examine(simulated_settings(tmp_path), Visit(NobodyThere(), clock_synchronised=synchronised)))
    checks = [(f.group, f.check) for f in findings]
    assert checks == [(group, check) for group, names in EVERY_CHECK.items() for check in names]
    assert [f for f in findings if f.status is not Status.PASS] == []
    assert by_check(findings)["camera", "cards read"].detail == "seat 1: AS, seat 2: KH, seat 3: QD, seat 4: JC"


def test_the_command_prints_every_check_as_json_and_fails_only_on_a_failed_check(tmp_path):
    config = tmp_path / "croupier.toml"
    config.write_text(f'[store]\npath = "{tmp_path / "croupier.db"}"\n[api]\nhost = "0.0.0.0"\n')
    done = run_croupier("doctor", "--json", "--no-ask", "--config", str(config), timeout=600)
    found = json.loads(done.stdout)
    statuses = {(c["group"], c["check"]): c["status"] for c in found["checks"]}
    assert list(statuses) == [(group, check) for group, names in EVERY_CHECK.items() for check in names]
    # The clock is this machine's own (synchronised or not); every device check passes.
    assert all(v == "pass" for k, v in statuses.items() if k != ("system", "clock"))
    failed = statuses["system", "clock"] == "fail"
    assert found["ok"] is not failed and done.returncode == (1 if failed else 0), done.stderr
    assert found["page"] and all(url.startswith("http://") and url.endswith(":8000/") for url in found["page"])


def test_bad_settings_are_one_line_and_exit_2(tmp_path):
    config = tmp_path / "croupier.toml"
    config.write_text("[camera]\nsorce = 'sim'\n")
    done = run_croupier("doctor", "--config", str(config))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"croupier: {config}: unknown setting 'camera.sorce'\n"


# --- the dealing machine ---------------------------------------------------------------------


def test_no_port_fails_and_says_how_to_name_the_machine(tmp_path):
    findings = list(check_dealer(DealerRig(str(tmp_path / "croupier-dealer"), 115200, None)))
    assert [(f.check, f.status) for f in findings] == [("port", Status.FAIL)]
    assert findings[0].detail == f"there is no port {tmp_path / 'croupier-dealer'}"
    assert "croupier doctor --find-dealer" in findings[0].fix


def test_a_port_that_never_answers_fails_the_handshake():
    silent = PtyLink()  # a serial port with nothing behind it
    try:
        findings = list(check_dealer(DealerRig(silent.path, 115200, None, handshake_s=1.0)))
    finally:
        silent.close()
    assert [(f.check, f.status) for f in findings] == [
        ("port", Status.PASS),
        ("access", Status.PASS),
        ("handshake", Status.FAIL),
    ]
    assert findings[-1].detail == f"no answer from the dealing machine at {silent.path} in 1 s"
    assert "switch the machine on" in findings[-1].fix


def test_a_machine_with_its_emergency_stop_pressed_fails_the_self_test():
    firmware = DealerFirmware([c.index for c in get_game("poley").pack], PtyLink())
    firmware.estop_pressed = True  # as the firmware sets it when its button is pressed
    firmware.state, firmware.fault = State.ESTOP, FaultCode.ESTOP
    firmware.start()
    try:
        findings = by_name(check_dealer(DealerRig(firmware.link.path, 115200, None)))
    finally:
        firmware.stop()
    assert findings["handshake"].status is Status.PASS and findings["firmware"].detail.startswith("firmware 1.0")
    test = findings["self-test"]
    assert (test.status, test.detail, test.fix) == (
        Status.FAIL,
        "the emergency stop is pressed",
        "release the emergency stop",
    )


def test_a_port_the_table_user_may_not_open_fails_access(tmp_path):
    port = tmp_path / "ttyACM0"
    port.touch()
    os.chmod(port, 0o600)  # its owner's only, as a port udev has not given to dialout
    allowed, owner = may_read_and_write(str(port), "nobody")
    assert not allowed and owner.endswith("mode 0600")
    findings = list(check_dealer(DealerRig(str(port), 115200, "nobody")))
    assert [(f.check, f.status) for f in findings] == [("port", Status.PASS), ("access", Status.FAIL)]
    assert findings[-1].detail.startswith(f"nobody may not read and write {port}")
    assert findings[-1].fix.startswith("sudo usermod -aG dialout nobody")


# --- the panel -------------------------------------------------------------------------------


class FingersThatSkip(MockFingers):
    """Presses every button but one; says no LED but one is lit."""

    def __init__(self, factory, never_press=None, unseen_pin=None):
        super().__init__(factory)
        self.never_press, self.unseen_pin = never_press, unseen_pin

    def press(self, button, pin):
        if button != self.never_press:
            super().press(button, pin)
        return True

    def confirm(self, question, pin):
        return False if pin == self.unseen_pin else super().confirm(question, pin)


def panel_findings(fingers, factory, config=None, on_pi=False, wait_s=5.0):
    rig = PanelRig(config or PanelConfig(), lambda: factory, on_pi)
    return by_name(check_panel(rig, fingers, wait_s))


def test_a_button_that_is_never_pressed_fails_and_names_its_pin():
    factory = MockFactory()
    findings = panel_findings(FingersThatSkip(factory, never_press="undo"), factory, wait_s=1.0)
    undo = findings["undo button"]
    assert (undo.status, undo.detail) == (Status.FAIL, "the UNDO button (GPIO6) was not pressed within 1 s")
    assert "GPIO6 to one side of the button, the other side to ground" in undo.fix
    assert findings["deal button"].status is Status.PASS and findings["next button"].status is Status.PASS


def test_swapped_buttons_are_named():
    factory = MockFactory()
    config = PanelConfig(deal_button=6, undo_button=5)  # the settings' pins crossed over the wiring's
    fingers = MockFingers(factory)

    def press_by_the_wiring(button, pin):
        return MockFingers.press(fingers, button, {"deal": 5, "undo": 6}.get(button, pin))

    fingers.press = press_by_the_wiring
    deal = panel_findings(fingers, factory, config)["deal button"]
    assert (deal.status, deal.detail) == (Status.FAIL, "the UNDO button was heard when DEAL (GPIO6) was asked for")


def test_an_led_nobody_sees_lit_fails_and_names_its_seat_and_pin():
    factory = MockFactory()
    findings = panel_findings(FingersThatSkip(factory, unseen_pin=22), factory)
    assert findings["seat 2 LED"].status is Status.FAIL
    assert findings["seat 2 LED"].detail == "the LED of seat 2 (GPIO22) did not light"
    assert all(findings[f"seat {n} LED"].status is Status.PASS for n in (0, 1, 3, 4, 5))
    assert findings["buzzer"].status is Status.PASS


def test_mock_pins_on_a_raspberry_pi_fail():
    factory = MockFactory()
    findings = panel_findings(MockFingers(factory), factory, on_pi=True)
    assert list(findings) == ["pins"]
    assert findings["pins"].fix == 'set panel.pin_factory = "lgpio" in the settings'


def test_gpio_that_cannot_be_used_fails_the_pins():
    def no_gpio():
        raise OSError("no /dev/gpiochip0")

    findings = by_name(check_panel(PanelRig(PanelConfig(pin_factory="lgpio"), no_gpio, True), NobodyThere(), 1.0))
    assert list(findings) == ["pins"]
    assert findings["pins"].detail == "the lgpio pin factory cannot be used: no /dev/gpiochip0"


def test_nobody_at_the_table_skips_the_presses_and_looks():
    factory = MockFactory()
    findings = panel_findings(NobodyThere(), factory)
    assert findings["pins"].status is Status.PASS
    assert {f.status for name, f in findings.items() if name != "pins"} == {Status.SKIP}


# --- the system ------------------------------------------------------------------------------


def test_an_unsynchronised_clock_and_a_damaged_journal_fail(tmp_path):
    path = tmp_path / "croupier.db"
    journal = Journal(path)
    match = journal.start_match("poley", 4, {}, None)
    journal.append(match, {"type": "call", "seat": 0, "call": "pass"})
    journal.close()
    with sqlite3.connect(path) as db:  # an event changed behind the journal's back
        db.execute("UPDATE events SET event = ? WHERE seq = 0", ('{"type": "call", "seat": 1, "call": "pass"}',))
    findings = by_name(check_system(SystemRig(path, "127.0.0.1", 8000, lambda: False, lambda: ["table.local"])))
    assert findings["clock"].status is Status.FAIL and "time server" in findings["clock"].fix
    assert findings["journal"].status is Status.FAIL
    assert findings["journal"].fix == f"`croupier journal recover {path} --out FILE` salvages it"
    assert findings["page"].status is Status.WARN and findings["page"].fix.startswith('set api.host = "0.0.0.0"')


def test_the_page_is_named_by_the_tables_addresses(tmp_path):
    rig = SystemRig(tmp_path / "croupier.db", "0.0.0.0", 80, synchronised, lambda: ["croupier.local", "10.0.0.7"])
    findings = by_name(check_system(rig))
    assert findings["page"].detail == "http://croupier.local/ or http://10.0.0.7/"
    assert findings["journal"].detail == f"none yet at {tmp_path / 'croupier.db'}: the first start makes it"
    assert findings["clock"].status is Status.PASS


def test_the_person_in_the_terminal_answers_on_stdin_and_is_asked_on_stderr():
    import io

    from controller.doctor.person import TerminalPerson

    asked = io.StringIO()
    person = TerminalPerson(io.StringIO("\nmaybe\nY\nn\ns\nno\n"), asked)
    assert person.place_cards(["seat 1", "seat 2"]) is True
    assert person.confirm("Is it lit?", 17) is True  # "maybe" is asked again
    assert person.confirm("Is it lit?", 17) is False
    assert person.place_cards(["seat 1"]) is None  # s: skipped
    assert person.read_right({"seat 1": "AS", "seat 2": "KH"}) is False
    assert person.confirm("Is it lit?", 17) is None  # the end of input: nobody there
    assert asked.getvalue().count("Is it lit? [y/n] ") == 4
    assert "Read seat 1: AS, seat 2: KH. Right? [y/n] " in asked.getvalue()
    assert asked.getvalue().startswith("Put one card face up in each zone (seat 1, seat 2), then press Enter")


def test_a_simulated_machine_that_cannot_start_is_a_finding_not_a_traceback(tmp_path, monkeypatch):
    import simulators.serial_link

    def no_pseudo_terminals():
        raise OSError(19, "No such device")  # a container without /dev/pts

    monkeypatch.setattr(simulators.serial_link.os, "openpty", no_pseudo_terminals)
    settings = Settings(store={"path": tmp_path / "croupier.db"}, camera={"source": "none"})
    dealer = [
        f for f in examine(settings, Visit(NobodyThere(), clock_synchronised=synchronised)) if f.group == "dealer"
    ]
    assert [(f.check, f.status, f.detail) for f in dealer] == [
        ("port", Status.FAIL, "the simulated dealing machine cannot start: [Errno 19] No such device")
    ]
