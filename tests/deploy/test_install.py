"""deploy/install.sh for real, in its mode for a machine that is not a Pi (--not-a-pi skips only
the Pi's own packages): the user in its groups, the data folder, the venv over the system's numpy,
the units installed and verified, the table served by the installed command as its user. Run
twice, it changes nothing the first run made; update.sh backs the journal up and installs again;
uninstall.sh leaves the data, and --purge removes it.

It changes this machine (a system user, /opt/croupier, /etc/croupier, /var/lib/croupier, units),
so it runs only when asked: CROUPIER_INSTALL_TEST=1, as root, with apt (.ci/run does)."""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import signal
import stat
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from controller.cli_common import free_port

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
PREFIX, DATA, CONFIG = Path("/opt/croupier"), Path("/var/lib/croupier"), Path("/etc/croupier/croupier.toml")
UNITS = Path("/etc/systemd/system")
UNIT_FILES = ("croupier.service", "croupier-backup.service", "croupier-backup.timer")
PATIENCE_S = 600.0

pytestmark = [
    pytest.mark.skipif(
        os.environ.get("CROUPIER_INSTALL_TEST") != "1",
        reason="installs the table on this machine: CROUPIER_INSTALL_TEST=1 runs it (.ci/run does)",
    ),
    pytest.mark.skipif(
        os.geteuid() != 0 or shutil.which("apt-get") is None or shutil.which("systemd-analyze") is None,
        reason="needs root, apt-get and systemd-analyze",
    ),
    pytest.mark.timeout(3600),
]


def deploy(script: str, *options: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [DEPLOY / script, *options], capture_output=True, text=True, timeout=PATIENCE_S * 2, check=False
    )
    assert done.returncode == 0, f"{script} failed:\n{done.stdout}\n{done.stderr}"
    return done


def installed_state() -> dict[str, object]:
    """What an install leaves, that a second one must not change."""
    user = pwd.getpwnam("croupier")
    return {
        "uid": user.pw_uid,
        "groups": sorted(g.gr_name for g in grp.getgrall() if "croupier" in g.gr_mem),
        "data": (stat.S_IMODE(DATA.stat().st_mode), DATA.stat().st_uid),
        "token": (DATA / "croupier.db.token").read_text(),
        "settings": CONFIG.read_text(),
        "units": {name: (UNITS / name).read_text() for name in UNIT_FILES},
        "venv": (PREFIX / "venv" / "pyvenv.cfg").read_text(),
    }


def venv_python(program: str) -> str:
    done = subprocess.run(
        [PREFIX / "venv" / "bin" / "python", "-c", program], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def serve_as_the_table_user() -> None:
    """The installed command serves the installed settings as the croupier user, until its page answers."""
    port = free_port()
    serve = subprocess.Popen(
        ["/usr/local/bin/croupier", "serve", "--config", str(CONFIG), "--host", "127.0.0.1", "--port", str(port)],
        user="croupier",
        group="croupier",
        extra_groups=["dialout", "video", "gpio"],
        cwd="/",
        env={"PATH": "/usr/bin:/bin", "HOME": str(DATA)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + PATIENCE_S
        while not _answers(port):
            assert serve.poll() is None, f"croupier serve stopped: {serve.stderr.read()}"
            assert time.monotonic() < deadline, "the installed table never answered"
            time.sleep(0.5)
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(PATIENCE_S)


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=10) as answer:
            return answer.status == 200
    except OSError:
        return False


def test_install_twice_then_update_then_uninstall_which_keeps_the_data():
    if any(p.exists() for p in (PREFIX, DATA, CONFIG)):
        pytest.skip("a table is installed on this machine: this test would replace it")
    try:
        first = deploy("install.sh", "--not-a-pi").stdout
        assert (
            "==> made the system user croupier" in first
            and "==> settings written: /etc/croupier/croupier.toml" in first
        )
        state = installed_state()
        assert state["groups"] == ["dialout", "gpio", "video"] and state["data"] == (0o700, state["uid"])
        assert state["units"] == {name: (DEPLOY / "systemd" / name).read_text() for name in UNIT_FILES}
        assert "include-system-site-packages = true" in str(state["venv"])
        assert 'port = "sim"' in str(state["settings"]) and 'pin_factory = "mock"' in str(state["settings"])
        # The system's numpy, and an OpenCV that finds the mat (the system's 4.6 cannot).
        assert venv_python("import numpy; print(numpy.__file__)").startswith("/usr/lib/python3/dist-packages/")
        assert venv_python("import cv2; print(hasattr(cv2.aruco, 'ArucoDetector'))") == "True"
        verified = subprocess.run(
            ["systemd-analyze", "verify", *(str(UNITS / name) for name in UNIT_FILES)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert verified.returncode == 0, verified.stderr
        assert (UNITS / "multi-user.target.wants" / "croupier.service").is_symlink()
        assert (UNITS / "timers.target.wants" / "croupier-backup.timer").is_symlink()
        assert Path("/etc/avahi/services/croupier.service").is_file()
        serve_as_the_table_user()
        assert (DATA / "croupier.db").is_file()  # the journal the table made

        second = deploy("install.sh", "--not-a-pi").stdout
        assert "==> user croupier exists" in second and "==> settings kept: /etc/croupier/croupier.toml" in second
        assert "==> venv /opt/croupier/venv exists" in second
        assert installed_state() == state

        updated = deploy("update.sh", "--no-pull", "--not-a-pi").stdout
        assert "==> backing the journal up before the update" in updated
        assert len(list((DATA / "backups").glob("croupier-*.db"))) == 1
        assert installed_state() == state

        removed = deploy("uninstall.sh").stdout
        assert "==> kept: the journal and its backups (/var/lib/croupier)" in removed
        assert not PREFIX.exists() and not any((UNITS / name).exists() for name in UNIT_FILES)
        assert not (UNITS / "multi-user.target.wants" / "croupier.service").exists()
        assert (DATA / "croupier.db").is_file() and (DATA / "croupier.db.token").read_text() == state["token"]
        assert CONFIG.read_text() == state["settings"] and pwd.getpwnam("croupier").pw_uid == state["uid"]
    finally:
        subprocess.run([DEPLOY / "uninstall.sh", "--purge"], capture_output=True, timeout=PATIENCE_S, check=False)
    assert not DATA.exists() and not CONFIG.exists()
