"""``croupier doctor --find-dealer``: the udev rule that names the dealing machine that is plugged in.

The rule matches the machine's USB vendor, product and serial number (as pyserial's ``list_ports``
reads them from sysfs), so it is ``/dev/croupier-dealer`` whichever port it is plugged into and
whatever else is plugged in; it gives the port to the ``dialout`` group and tells ModemManager to
leave it alone (ModemManager probes new serial ports with AT commands, which the machine would
read as garbage). deploy/udev/99-croupier-dealer.rules.example is this rule for an example machine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

RULE_FILE = "/etc/udev/rules.d/99-croupier-dealer.rules"
DEALER_NAME = "croupier-dealer"
_MATCHABLE = re.compile(r"[A-Za-z0-9._:-]{1,126}")  # a serial number udev's quoted match takes as it is


class DealerNotFound(LookupError):
    """No USB serial device, or more than one, is plugged in (the message says which)."""


@dataclass(frozen=True, slots=True)
class UsbSerial:
    device: str  # where it is now: /dev/ttyACM0
    vendor: int
    product: int
    serial: str | None
    description: str

    @property
    def matchable_serial(self) -> str | None:
        """The serial number, if udev can match it as it is (None: the rule matches any such device)."""
        return self.serial if self.serial and _MATCHABLE.fullmatch(self.serial) else None


def usb_serial_ports(ports: Iterable[Any] | None = None) -> list[UsbSerial]:
    """The USB serial devices plugged in (``ports``: pyserial's ``ListPortInfo`` s; default: this machine's)."""
    if ports is None:
        from serial.tools.list_ports import comports

        ports = comports()
    found = [
        UsbSerial(p.device, p.vid, p.pid, p.serial_number, p.description or p.device)
        for p in ports
        if p.vid is not None and p.pid is not None
    ]
    return sorted(found, key=lambda p: p.device)


def the_dealer(ports: list[UsbSerial]) -> UsbSerial:
    if not ports:
        raise DealerNotFound(
            "no USB serial device is plugged in: plug the dealing machine in, switch it on, and run this again"
        )
    if len(ports) > 1:
        listed = ", ".join(f"{p.device} ({p.description})" for p in ports)
        raise DealerNotFound(
            f"{len(ports)} USB serial devices are plugged in ({listed}): unplug all but the dealing machine"
        )
    return ports[0]


def udev_rule(port: UsbSerial) -> str:
    """The rule file's text for this device."""
    serial = port.matchable_serial
    match = f'SUBSYSTEM=="tty", ATTRS{{idVendor}}=="{port.vendor:04x}", ATTRS{{idProduct}}=="{port.product:04x}"'
    if serial is not None:
        match += f', ATTRS{{serial}}=="{serial}"'
    lines = [
        f"# {RULE_FILE}: the dealing machine is /dev/{DEALER_NAME}, wherever it is plugged in.",
        f"# Made by `croupier doctor --find-dealer` for {port.description}, then at {port.device}.",
    ]
    if serial is None:
        lines.append("# It reports no serial number udev can match: any device of this make is taken for it.")
    action = f'SYMLINK+="{DEALER_NAME}", GROUP="dialout", MODE="0660", ENV{{ID_MM_DEVICE_IGNORE}}="1"'
    return "\n".join([*lines, f"{match}, {action}"]) + "\n"


def install_hint() -> str:
    return (
        f"to install it: croupier doctor --find-dealer | sudo tee {RULE_FILE} && "
        "sudo udevadm control --reload && sudo udevadm trigger"
    )
