"""The Pi's venv install, on the Pi's architecture: a Debian 12 arm64 userland built with
debootstrap and run through qemu-user-static, then the venv made over its system numpy and the
project installed into it as deploy/install.sh does (the numpy pin, pip's OpenCV for aarch64),
and a real photo read by the card reader there.

It needs root, debootstrap, qemu-aarch64 registered with the kernel (binfmt_misc) and the network,
and takes some twenty minutes: it runs only when asked, CROUPIER_ARM64_TEST=1 (.ci/run does)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BINFMT = Path("/proc/sys/fs/binfmt_misc/qemu-aarch64")
PACKAGES = "python3,python3-venv,python3-numpy,ca-certificates"
MIRROR = "http://deb.debian.org/debian"

pytestmark = [
    pytest.mark.skipif(
        os.environ.get("CROUPIER_ARM64_TEST") != "1",
        reason="builds an arm64 userland (twenty minutes): CROUPIER_ARM64_TEST=1 runs it (.ci/run does)",
    ),
    pytest.mark.skipif(
        os.geteuid() != 0 or shutil.which("debootstrap") is None or not BINFMT.is_file(),
        reason="needs root, debootstrap and qemu-user-static registered for aarch64",
    ),
    pytest.mark.timeout(5400),
]

PHOTO = "WIN_20240627_12_06_16_Pro"  # a real photo with its labels (tests/vision/photos)

# deploy/install.sh's venv step, as it runs there (the same pin of the system's numpy).
INSTALL = """
set -e
python3 -m venv --system-site-packages /opt/croupier/venv
echo "numpy==$(python3 -c 'import numpy; print(numpy.__version__)')" > /opt/croupier/system-packages.txt
/opt/croupier/venv/bin/pip install --quiet --disable-pip-version-check \
    --constraint /opt/croupier/system-packages.txt /src
/opt/croupier/venv/bin/python -c '
import platform, cv2, numpy, onnxruntime
print(platform.machine(), numpy.__file__, hasattr(cv2.aruco, "ArucoDetector"))'
/opt/croupier/venv/bin/croupier referee /src/tests/logs/nap/n1-three-made-early-end.json --json > /dev/null
cd /src/tests/vision/photos && /opt/croupier/venv/bin/croupier vision scan {photo}.jpg --json > /tmp/scan.json
"""


def chroot(root: Path, script: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_FIND_LINKS")}
    return subprocess.run(
        ["chroot", str(root), "/bin/sh", "-c", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,
        check=False,
    )


def test_the_venv_installs_over_the_system_numpy_on_arm64(tmp_path):
    root = tmp_path / "arm64"
    built = subprocess.run(
        ["debootstrap", "--arch=arm64", "--variant=minbase", f"--include={PACKAGES}", "bookworm", str(root), MIRROR],
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    # The source as install.sh stages it, and this machine's certificates (a proxy's, if any).
    shutil.copytree(ROOT, root / "src", ignore=shutil.ignore_patterns(".git", ".venv", "runs*", "build", "*.egg-info"))
    shutil.copy("/etc/ssl/certs/ca-certificates.crt", root / "etc/ssl/certs/ca-certificates.crt")
    shutil.copy("/etc/resolv.conf", root / "etc/resolv.conf")
    done = chroot(root, INSTALL.format(photo=PHOTO))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    machine, numpy_file, aruco = done.stdout.split()[-3:]
    assert (machine, aruco) == ("aarch64", "True")
    assert numpy_file.startswith("/usr/lib/python3/dist-packages/")  # the system's numpy, kept
    # The card reader on the Pi's architecture: its 8-bit detector through onnxruntime's aarch64
    # kernels reads the real photo's cards, and none it does not hold.
    read = {c["card"] for c in json.loads((root / "tmp/scan.json").read_text())["cards"]}
    label = json.loads((ROOT / "tests/vision/photos" / f"{PHOTO}.json").read_text())
    truth = {i["card"] for i in label["indices"]}
    assert read <= truth and len(read) >= 0.75 * len(truth), (read, truth)
