"""`croupier club serve`: its help names every setting, and a setting it cannot use, or a database
it cannot reach, is one line on stderr and exit status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from club.settings import ClubSettings

ROOT = Path(__file__).resolve().parents[2]


def serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "controller", "club", "serve", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)


def test_the_help_names_every_setting_and_its_variable():
    shown = serve("--help", env={"COLUMNS": "300", "PATH": "/usr/bin:/bin"}).stdout
    for name in ClubSettings.model_fields:
        assert f"--{name.replace('_', '-')}" in shown, name
        assert f"CROUPIER_CLUB_{name.upper()}" in shown, name


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--broker", "http://example.net"], "broker: 'http://example.net' is not a broker URL"),
        (["--club", "Oak Club"], "club: 'Oak Club' is not a club name"),
        (["--broker-ca", "ca.crt"], "broker_ca is for an mqtts:// broker"),
        (["--password", "a", "--password-file", "f"], "the password or password_file, not both"),
        (["--password-file", "/nonexistent/password"], "cannot read password_file /nonexistent/password"),
        (["--database", "postgresql://nobody@127.0.0.1:1/none"], "cannot connect to the club's database"),
    ],
)
def test_a_setting_it_cannot_use_is_one_line_and_status_2(args, words, tmp_path):
    done = serve(*args, "--token-file", str(tmp_path / "token"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("croupier: ") and words in done.stderr
