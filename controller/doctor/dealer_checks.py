"""The dealing machine: its port exists and the table's user may use it; the machine answers the
handshake; its firmware; and what it says of itself (no fault, the emergency stop released).

The protocol has no self-test command (docs/protocol.md): the machine's own account of its state,
asked with ``GetStatus``, stands for one.
"""

from __future__ import annotations

import grp
import os
import pwd
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from controller.doctor.findings import Finding, Status, failed, passed
from firmware_bridge.errors import BridgeError
from firmware_bridge.link import Link, is_device_path
from firmware_bridge.protocol import FaultCode, GetStatus, Hello, State
from firmware_bridge.protocol import Status as MachineStatus

GROUP = "dealer"
FIND_IT = "`croupier doctor --find-dealer` prints the udev rule that names it /dev/croupier-dealer"
_FAULT_FIXES = {
    FaultCode.JAM: "a card is stuck: open the cover, take it out, and press NEXT",
    FaultCode.DOUBLE_FEED: "two cards went in together: take them out of the path and press NEXT",
    FaultCode.HOPPER_EMPTY: "put the pack in the hopper",
    FaultCode.ESTOP: "release the emergency stop",
    FaultCode.LEASE_EXPIRED: "the machine lost the host: it clears at the next deal",
    FaultCode.RING_FULL: "the machine's event queue filled: switch it off and on",
    FaultCode.MOTOR: "a motor did not turn: check that nothing blocks the rollers and the turret",
}


@dataclass(frozen=True)
class DealerRig:
    url: str  # a device path or a pyserial URL
    baud: int
    user: str | None  # the user the table runs as, whose access to the port is checked (None: this one)
    handshake_s: float = 5.0


def check_dealer(rig: DealerRig) -> Iterator[Finding]:
    if is_device_path(rig.url):
        port = _port(rig.url)
        yield port
        if port.status is not Status.PASS:
            return
        access = _access(rig.url, rig.user)
        yield access
        if access.status is not Status.PASS:
            return
    link = Link(rig.url, baudrate=rig.baud)
    try:
        hello = link.open(rig.handshake_s)
    except BridgeError as exc:
        yield failed(
            GROUP,
            "handshake",
            str(exc),
            f"switch the machine on; check its USB cable and that dealer.baud ({rig.baud}) is its speed",
        )
        return
    try:
        yield passed(GROUP, "handshake", f"a session is open with the machine at {rig.url}")
        yield _firmware(hello)
        yield _self_test(link)
    finally:
        link.close()


def _port(url: str) -> Finding:
    if not os.path.exists(url):
        return failed(GROUP, "port", f"there is no port {url}", f"plug the machine in and switch it on; {FIND_IT}")
    real = os.path.realpath(url)
    return passed(GROUP, "port", url if real == url else f"{url} ({real})")


def _access(path: str, user: str | None) -> Finding:
    who = user or pwd.getpwuid(os.geteuid()).pw_name
    try:
        allowed, owner = may_read_and_write(path, who)
    except KeyError:
        return failed(GROUP, "access", f"there is no user {who}", "run deploy/install.sh, which makes it")
    if allowed:
        return passed(GROUP, "access", f"{who} may read and write it ({owner})")
    return failed(
        GROUP,
        "access",
        f"{who} may not read and write {path} ({owner})",
        f"sudo usermod -aG dialout {who}, and give the port to the dialout group (the udev rule does)",
    )


def may_read_and_write(path: str, user: str) -> tuple[bool, str]:
    """Whether ``user`` may open the device for reading and writing, by its owner, group and mode
    (not ``os.access``, which answers for whoever runs this, often root); and those, in words."""
    info = os.stat(path)
    account = pwd.getpwnam(user)
    groups = set(os.getgrouplist(user, account.pw_gid))
    mode = stat.S_IMODE(info.st_mode)
    if account.pw_uid == 0:
        allowed = True
    elif account.pw_uid == info.st_uid:
        allowed = mode & 0o600 == 0o600
    elif info.st_gid in groups:
        allowed = mode & 0o060 == 0o060
    else:
        allowed = mode & 0o006 == 0o006
    return allowed, f"owner {_user_name(info.st_uid)}, group {_group_name(info.st_gid)}, mode {mode:04o}"


def _user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def _group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def firmware_version(hello: Hello) -> str:
    return f"{hello.fw_version >> 8}.{hello.fw_version & 0xFF}"


def _firmware(hello: Hello) -> Finding:
    return passed(
        GROUP,
        "firmware",
        f"firmware {firmware_version(hello)}, protocol {hello.proto_ver}, {hello.destinations} slots",
    )


def _self_test(link: Link) -> Finding:
    try:
        status = link.request(GetStatus(link.next_cmd_id()))
    except BridgeError as exc:
        return failed(GROUP, "self-test", f"the machine did not report its state: {exc}", "switch it off and on")
    if not isinstance(status, MachineStatus):
        return failed(GROUP, "self-test", "the machine answered its state with something else", "update its firmware")
    return _judge(status)


def _judge(status: MachineStatus) -> Finding:
    state = _name(State, status.state)
    if status.state == State.ESTOP:
        return failed(GROUP, "self-test", "the emergency stop is pressed", _FAULT_FIXES[FaultCode.ESTOP])
    if status.fault != FaultCode.NONE:
        fault = _name(FaultCode, status.fault)
        fix = _FAULT_FIXES.get(status.fault, "switch the machine off and on")  # type: ignore[call-overload]
        return failed(GROUP, "self-test", f"the machine reports a fault: {fault} (state {state})", fix)
    return passed(GROUP, "self-test", f"{state}, no fault, {status.hopper} cards in the hopper")


def _name(kind: type[State] | type[FaultCode], value: int) -> str:
    try:
        return kind(value).name.lower().replace("_", " ")
    except ValueError:
        return f"unknown ({value})"
