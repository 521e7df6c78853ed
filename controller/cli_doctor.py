"""``croupier doctor``: check the table's devices and host, and say what to fix (controller/doctor/)."""

from __future__ import annotations

import json
import pwd
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from controller.cli_common import app, console, fail
from controller.doctor.findings import Finding, Status, report

TABLE_USER = "croupier"  # the user deploy/install.sh makes for the service
_MARKS = {
    Status.PASS: "[green]ok  [/]",
    Status.WARN: "[yellow]warn[/]",
    Status.FAIL: "[red]FAIL[/]",
    Status.SKIP: "skip",
}


@app.command()
def doctor(
    config: Annotated[Path | None, typer.Option(help="The settings file (TOML).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the findings as JSON.")] = False,
    find_dealer: Annotated[
        bool, typer.Option("--find-dealer", help="Print the udev rule for the dealing machine plugged in.")
    ] = False,
    ask: Annotated[
        bool | None,
        typer.Option(
            help="Ask the person at the table (default: when run in a terminal); --no-ask skips those checks."
        ),
    ] = None,
    user: Annotated[
        str | None, typer.Option(help=f"Whose access to the port to check (default: {TABLE_USER} if it exists).")
    ] = None,
    wait: Annotated[float, typer.Option(min=1, max=600, help="Seconds to wait for a button or the cards.")] = 30.0,
) -> None:
    """Check the camera, the dealing machine, the panel and the host, and say what to fix.

    Exit 0 when nothing failed, 1 when a check failed, 2 for bad settings."""
    if find_dealer:
        _find_dealer(as_json)
        return
    from controller.doctor.examine import Visit, examine
    from controller.doctor.person import NobodyThere, Person, TerminalPerson
    from controller.settings import SettingsError, load_settings

    try:
        settings = load_settings(config)
    except SettingsError as exc:
        fail(str(exc))
    person: Person = TerminalPerson() if (sys.stdin.isatty() if ask is None else ask) else NobodyThere()
    findings: list[Finding] = []
    for finding in examine(settings, Visit(person, user or _table_user(), wait)):
        findings.append(finding)
        if not as_json:
            _show(finding)
    from controller.doctor.system_checks import host_addresses, page_urls

    extra = {"page": page_urls(settings.api.host, settings.api.port, host_addresses())}
    if as_json:
        sys.stdout.write(json.dumps(report(findings, extra)) + "\n")
    else:
        _summary(findings, extra["page"])
    if not report(findings)["ok"]:
        raise typer.Exit(1)


def _table_user() -> str | None:
    try:
        pwd.getpwnam(TABLE_USER)
    except KeyError:
        return None
    return TABLE_USER


def _show(finding: Finding) -> None:
    console.print(
        f"{_MARKS[finding.status]} {finding.group:7} {finding.check}: {finding.detail}", highlight=False, soft_wrap=True
    )
    if finding.fix:
        console.print(f"     {'':7} [bold]fix:[/] {finding.fix}", highlight=False, soft_wrap=True)


def _summary(findings: list[Finding], urls: list[str]) -> None:
    if urls:
        import segno

        console.print(f"the page: {urls[0]} (scan this with a tablet):")
        segno.make(urls[0]).terminal(out=sys.stdout, compact=True)
    failures = sum(f.status is Status.FAIL for f in findings)
    if failures:
        console.print(f"[red]{failures} check{'s' * (failures != 1)} failed[/]: each says what to fix above")
    else:
        console.print("[green]every check passed[/]" + (" (some were skipped)" if _any_skipped(findings) else ""))


def _any_skipped(findings: list[Finding]) -> bool:
    return any(f.status is Status.SKIP for f in findings)


def _find_dealer(as_json: bool) -> None:
    from controller.doctor.udev import DealerNotFound, install_hint, the_dealer, udev_rule, usb_serial_ports

    try:
        port = the_dealer(usb_serial_ports())
    except DealerNotFound as exc:
        fail(str(exc), code=1)
    rule = udev_rule(port)
    if as_json:
        found: dict[str, Any] = {
            "device": port.device,
            "vendor": f"{port.vendor:04x}",
            "product": f"{port.product:04x}",
            "serial": port.serial,
            "rule": rule,
        }
        sys.stdout.write(json.dumps(found) + "\n")
        return
    sys.stdout.write(rule)
    sys.stderr.write(install_hint() + "\n")
