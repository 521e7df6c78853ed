"""`croupier club serve`: its help names every setting, and a setting it cannot use, or a database
it cannot reach, is one line on stderr and exit status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from club.settings import ClubSettings, ClubSettingsError, load_club_settings

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
    ("given", "words"),
    [
        ({"broker": "http://example.net"}, "broker: 'http://example.net' is not a broker URL"),
        ({"broker": "mqtt://example.net:99999"}, "has no valid port"),
        ({"club": "Oak Club"}, "club: 'Oak Club' is not a club name"),
        ({"broker_ca": "ca.crt"}, "broker_ca is for an mqtts:// broker"),
        ({"password": "a", "password_file": "f"}, "the password or password_file, not both"),
        ({"port": 0}, "port: Input should be greater than or equal to 1"),
    ],
)
def test_a_setting_it_cannot_use_is_named_with_why(given, words):
    with pytest.raises(ClubSettingsError) as refused:
        load_club_settings(**given)
    assert words in str(refused.value)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--password-file", "/nonexistent/password"], "cannot read password_file /nonexistent/password"),
        (["--database", "postgresql://nobody@127.0.0.1:1/none"], "cannot connect to the club's database"),
    ],
)
def test_what_it_cannot_use_is_one_line_and_status_2(args, words, tmp_path):
    done = serve(*args, "--token-file", str(tmp_path / "token"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("croupier: ") and words in done.stderr


def test_the_clubs_token_is_made_once_readable_by_its_owner_only(tmp_path):
    from club.token import load_or_create_token, token_matches

    token, made = load_or_create_token(tmp_path / "club-token")
    assert made and len(token) >= 40 and (tmp_path / "club-token").stat().st_mode & 0o777 == 0o600
    assert load_or_create_token(tmp_path / "club-token") == (token, False)
    (tmp_path / "club-token").chmod(0o644)  # loosened by hand: tightened again when next read
    assert load_or_create_token(tmp_path / "club-token") == (token, False)
    assert (tmp_path / "club-token").stat().st_mode & 0o777 == 0o600
    assert token_matches(token, token) and not token_matches(token, token[:-1]) and not token_matches(token, None)
