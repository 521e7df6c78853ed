"""``croupier doctor --find-dealer``: the udev rule for the USB serial device plugged in, from
pyserial's port list (here a fake list of pyserial's own ``ListPortInfo`` s)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import serial.tools.list_ports
from serial.tools.list_ports_common import ListPortInfo
from typer.testing import CliRunner

from controller.cli import app
from controller.doctor.udev import DealerNotFound, UsbSerial, the_dealer, udev_rule, usb_serial_ports

EXAMPLE = Path(__file__).resolve().parents[2] / "deploy" / "udev" / "99-croupier-dealer.rules.example"


def port(device, vid=None, pid=None, serial=None, description="n/a"):
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid, info.serial_number, info.description = vid, pid, serial, description
    return info


PICO = port("/dev/ttyACM0", 0x2E8A, 0x000A, "E6614C311B6B2A34", "Board CDC")


def test_the_rule_names_the_machine_by_vendor_product_and_serial():
    found = the_dealer(usb_serial_ports([port("/dev/ttyS0"), PICO]))  # the Pi's own UART has no USB ids
    rule = udev_rule(found).splitlines()[-1]
    assert rule == (
        'SUBSYSTEM=="tty", ATTRS{idVendor}=="2e8a", ATTRS{idProduct}=="000a", ATTRS{serial}=="E6614C311B6B2A34", '
        'SYMLINK+="croupier-dealer", GROUP="dialout", MODE="0660", ENV{ID_MM_DEVICE_IGNORE}="1"'
    )


def test_a_serial_number_udev_cannot_match_is_left_out_and_said_so():
    odd = UsbSerial("/dev/ttyUSB0", 0x1A86, 0x7523, 'x"y', "USB Serial")
    text = udev_rule(odd)
    assert "ATTRS{serial}" not in text and 'x"y' not in text
    assert "any device of this make is taken for it" in text


def test_no_usb_serial_device_or_several_are_refused_in_words():
    with pytest.raises(DealerNotFound, match="no USB serial device is plugged in"):
        the_dealer(usb_serial_ports([port("/dev/ttyS0")]))
    two = usb_serial_ports([PICO, port("/dev/ttyUSB0", 0x1A86, 0x7523, None, "USB Serial")])
    with pytest.raises(DealerNotFound) as refused:
        the_dealer(two)
    assert str(refused.value) == (
        "2 USB serial devices are plugged in (/dev/ttyACM0 (Board CDC), /dev/ttyUSB0 (USB Serial)): "
        "unplug all but the dealing machine"
    )


def test_the_deploy_example_is_the_rule_this_command_writes():
    example = UsbSerial("/dev/ttyACM0", 0x2E8A, 0x000A, "E6614C311B6B2A34", "Board CDC")
    assert EXAMPLE.read_text() == udev_rule(example)


def test_the_command_prints_the_rule_on_stdout_and_how_to_install_it_on_stderr(monkeypatch):
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [PICO])
    done = CliRunner().invoke(app, ["doctor", "--find-dealer"])
    assert done.exit_code == 0
    assert done.stdout == udev_rule(the_dealer(usb_serial_ports([PICO])))
    assert "sudo tee /etc/udev/rules.d/99-croupier-dealer.rules" in done.stderr
    as_json = json.loads(CliRunner().invoke(app, ["doctor", "--find-dealer", "--json"]).stdout)
    assert (as_json["vendor"], as_json["product"], as_json["serial"]) == ("2e8a", "000a", "E6614C311B6B2A34")


def test_the_command_fails_in_one_line_when_nothing_is_plugged_in(monkeypatch):
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [port("/dev/ttyS0")])
    done = CliRunner().invoke(app, ["doctor", "--find-dealer"])
    assert done.exit_code == 1 and done.stdout == ""
    assert done.stderr == (
        "croupier: no USB serial device is plugged in: plug the dealing machine in, switch it on, and run this again\n"
    )
