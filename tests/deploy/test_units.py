"""deploy/'s files hold together: the systemd units pass ``systemd-analyze verify``, the service's
file limit fits the server's connections, the Pi's settings load and name what the unit and the
avahi announcement expect, and the scripts refuse bad options in one line."""

from __future__ import annotations

import configparser
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from controller.server_limits import RESERVED_FILES
from controller.settings import load_settings

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
UNITS = ("croupier.service", "croupier-backup.service", "croupier-backup.timer")
COMMAND = "/opt/croupier/venv/bin/croupier"


def unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # systemd's keys are case-sensitive
    parser.read(DEPLOY / "systemd" / name)
    return parser


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verifies_the_units(tmp_path):
    # The command is installed later (deploy/install.sh): here a stand-in, so verify checks the rest.
    stand_in = tmp_path / "croupier"
    stand_in.write_text("#!/bin/sh\n")
    stand_in.chmod(0o755)
    for name in UNITS:
        text = (DEPLOY / "systemd" / name).read_text().replace(COMMAND, str(stand_in))
        (tmp_path / name).write_text(text)
    done = subprocess.run(
        ["systemd-analyze", "verify", *(str(tmp_path / name) for name in UNITS)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_the_service_may_open_as_many_files_as_the_server_serves_connections():
    settings = load_settings(DEPLOY / "croupier.toml")
    limit = int(unit("croupier.service")["Service"]["LimitNOFILE"])
    assert limit == settings.api.max_connections + RESERVED_FILES  # what fit_open_files asks for


def test_the_service_is_a_hardened_notifying_one_that_comes_back_by_itself():
    service = unit("croupier.service")["Service"]
    assert service["Type"] == "notify" and service["Restart"] == "on-failure" and service["WatchdogSec"]
    assert service["ExecStart"] == f"{COMMAND} serve --config /etc/croupier/croupier.toml"
    assert service["User"] == "croupier" and service["NoNewPrivileges"] == "yes" and service["PrivateTmp"] == "yes"
    assert service["ProtectSystem"] == "strict" and service["DevicePolicy"] == "closed"
    assert service["StandardOutput"] == service["StandardError"] == "journal"


def test_the_pis_settings_keep_the_journal_where_the_service_may_write():
    settings = load_settings(DEPLOY / "croupier.toml")
    writable = Path(unit("croupier.service")["Service"]["ReadWritePaths"])
    assert settings.store.path.parent == writable == Path("/var/lib/croupier")
    assert (settings.dealer.port, settings.camera.source, settings.panel.pin_factory) == (
        "/dev/croupier-dealer",
        "picamera2",
        "lgpio",
    )
    assert settings.api.host == "0.0.0.0"


def test_avahi_announces_the_page_on_the_port_it_is_served_on():
    service = ElementTree.parse(DEPLOY / "avahi" / "croupier.service").getroot().find("service")
    assert service.findtext("type") == "_http._tcp"
    assert int(service.findtext("port")) == load_settings(DEPLOY / "croupier.toml").api.port == 80


@pytest.mark.parametrize("script", ["install.sh", "update.sh", "uninstall.sh"])
def test_the_scripts_say_what_they_do_and_refuse_an_unknown_option(script):
    helped = subprocess.run([DEPLOY / script, "--help"], capture_output=True, text=True, timeout=60, check=False)
    assert helped.returncode == 0 and helped.stdout.strip() and "#" not in helped.stdout
    refused = subprocess.run([DEPLOY / script, "--bogus"], capture_output=True, text=True, timeout=60, check=False)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr == "croupier: unknown option --bogus (see --help)\n"
