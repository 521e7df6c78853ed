"""The host: room on the disk for the journal; a synchronised clock (the Pi has no clock of its
own, and the journal's records carry the time); the journal's integrity; and the addresses that
open the page."""

from __future__ import annotations

import ctypes
import ctypes.util
import shutil
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from controller.doctor.findings import Finding, Status, failed, passed
from controller.journal.check import inspect
from controller.journal.errors import JournalError
from controller.store import SCHEMA_VERSION

GROUP = "system"
MIN_FREE_BYTES = 200 * 1024 * 1024  # years of matches, and room for the copies and backups
_TIME_ERROR = 5  # adjtimex's answer while the kernel's clock is not synchronised (STA_UNSYNC)
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def kernel_clock_synchronised() -> bool | None:
    """The kernel's own word (adjtimex), which timedatectl's NTPSynchronized reports too; None
    where it cannot be asked."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    timex = ctypes.create_string_buffer(512)  # struct timex, zeroed: modes 0 only reads
    state = int(ctypes.CDLL(name, use_errno=True).adjtimex(timex))
    return None if state < 0 else state != _TIME_ERROR


def host_addresses() -> list[str]:
    """This machine's name on the local network (avahi's), and the address it reaches it by."""
    names = [f"{socket.gethostname()}.local"]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # a documentation address: nothing is sent, a route is chosen
            names.append(probe.getsockname()[0])
        except OSError:
            pass  # no network: the name alone
    return names


@dataclass(frozen=True)
class SystemRig:
    journal: Path
    api_host: str
    api_port: int
    clock_synchronised: Callable[[], bool | None] = kernel_clock_synchronised
    addresses: Callable[[], list[str]] = field(default=host_addresses)


def check_system(rig: SystemRig) -> Iterator[Finding]:
    yield _disk(rig.journal)
    yield _clock(rig.clock_synchronised())
    yield _journal(rig.journal)
    yield _page(rig)


def _disk(journal: Path) -> Finding:
    folder = _nearest_folder(journal.parent)
    free = shutil.disk_usage(folder).free
    text = f"{free / 1024**3:.1f} GB free for the journal ({folder})"
    if free < MIN_FREE_BYTES:
        return failed(
            GROUP, "disk space", text, f"free at least {MIN_FREE_BYTES // 1024**2} MB (old logs, `apt clean`)"
        )
    return passed(GROUP, "disk space", text)


def _nearest_folder(path: Path) -> Path:
    path = path.absolute()
    while not path.exists():
        path = path.parent
    return path


def _clock(synchronised: bool | None) -> Finding:
    if synchronised is None:
        return Finding(GROUP, "clock", Status.WARN, "cannot tell whether the clock is synchronised", "")
    if synchronised:
        return passed(GROUP, "clock", "synchronised")
    return failed(
        GROUP,
        "clock",
        "the clock is not synchronised (the Pi keeps no time while it is off)",
        "connect the Pi to a network that reaches a time server; `timedatectl` shows when it is done",
    )


def _journal(path: Path) -> Finding:
    try:
        found = inspect(path, SCHEMA_VERSION)
    except JournalError as exc:
        return failed(GROUP, "journal", str(exc), f"`croupier journal check {path}` says more")
    refusal = found.refusal(SCHEMA_VERSION)
    if refusal is not None:
        return failed(GROUP, "journal", str(refusal), f"`croupier journal recover {path} --out FILE` salvages it")
    if not found.exists:
        return passed(GROUP, "journal", f"none yet at {path}: the first start makes it")
    return passed(GROUP, "journal", f"{path}: whole, {found.matches} matches, {found.events} events")


def page_urls(host: str, port: int, addresses: list[str]) -> list[str]:
    """The addresses a tablet opens the page at (none when it is served to this machine only)."""
    if host in _LOOPBACK:
        return []
    suffix = "" if port == 80 else f":{port}"
    names = addresses if host in ("0.0.0.0", "::", "") else [host]
    return [f"http://{name}{suffix}/" for name in names]


def _page(rig: SystemRig) -> Finding:
    urls = page_urls(rig.api_host, rig.api_port, rig.addresses())
    if not urls:
        return Finding(
            GROUP,
            "page",
            Status.WARN,
            f"the page is served to this machine only (api.host = {rig.api_host})",
            'set api.host = "0.0.0.0" in the settings for the tablets at the table',
        )
    return passed(GROUP, "page", " or ".join(urls))
