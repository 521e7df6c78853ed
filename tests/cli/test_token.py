"""`croupier token`: the control token shown, or replaced by a new one."""

from __future__ import annotations

import stat

from tests.conftest import run_croupier


def shown(done) -> str:
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[0].rsplit(": ", 1)[1]


def test_the_token_is_shown_the_same_each_time_until_it_is_rotated(tmp_path):
    env = {"CROUPIER_STORE__PATH": str(tmp_path / "table.db")}
    kept = tmp_path / "table.db.token"
    first = shown(run_croupier("token", env=env))  # made, as serve would make it
    assert shown(run_croupier("token", env=env)) == first == kept.read_text().strip()
    rotated = run_croupier("token", "--rotate", env=env)
    new = shown(rotated)
    assert new != first and kept.read_text().strip() == new
    assert "keeps the old one until it is started again" in rotated.stdout
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and list(tmp_path.glob("*.new")) == []


def test_a_bad_settings_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[dealer]\nbauds = 1\n")
    done = run_croupier("token", "--config", str(bad))
    assert done.returncode == 2 and "unknown setting 'dealer.bauds'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
