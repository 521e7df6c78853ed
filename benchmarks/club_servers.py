"""A real PostgreSQL and a real Mosquitto for the club's tests and benchmark, each in a temporary
folder on a free port, run as an unprivileged user when run as root; stopped and gone afterwards.

The broker is set up as docs/club.md tells a club to: a password for the club service and for
each table, and an ACL that lets a table write only under its own name and the club read all."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

CLUB = "oak"
CLUB_USER, CLUB_PASSWORD = "club", "club-secret"
TABLES = [f"t{i}" for i in range(1, 21)]


def password_of(table: str) -> str:
    return f"pw-{table}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def mosquitto_bin() -> str | None:
    """Mosquitto's broker program (Debian puts it in /usr/sbin, outside a user's PATH)."""
    return shutil.which("mosquitto") or next((p for p in ("/usr/sbin/mosquitto",) if Path(p).exists()), None)


def postgres_bin() -> Path | None:
    """The folder of PostgreSQL's server programs (Debian keeps them out of PATH)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True)
    if found:
        return found[0].parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def _as_user(user: str, command: list[str]) -> list[str]:
    """The command run as ``user`` if the tests run as root (PostgreSQL refuses root)."""
    if os.geteuid() != 0:
        return command
    return ["setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups", "--", *command]


def _give(path: Path, user: str) -> None:
    if os.geteuid() == 0:
        entry = pwd.getpwnam(user)
        for p in [path, *path.rglob("*")]:
            os.chown(p, entry.pw_uid, entry.pw_gid)


def wait_for_port(port: int, process: subprocess.Popen, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout_s} s")


@dataclass
class Postgres:
    port: int
    folder: Path

    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://croupier@127.0.0.1:{self.port}/{database}"


@contextlib.contextmanager
def postgres(folder: Path) -> Iterator[Postgres]:
    binaries = postgres_bin()
    assert binaries is not None
    user = "postgres"
    folder.mkdir(parents=True, exist_ok=True)
    _give(folder, user)
    data, port = folder / "data", free_port()
    run = lambda *cmd: subprocess.run(_as_user(user, list(cmd)), check=True, capture_output=True)  # noqa: E731
    run(str(binaries / "initdb"), "-D", str(data), "-U", "croupier", "-A", "trust", "--no-sync", "-E", "UTF8")
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
    run(str(binaries / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "start")
    try:
        yield Postgres(port, folder)
    finally:
        run(str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")


@dataclass
class Broker:
    port: int
    folder: Path
    process: subprocess.Popen
    ca: Path | None = None  # the CA that signed its certificate, when it speaks TLS

    def start(self) -> None:
        """Start the broker (again) on its port, with its sessions and queued messages kept on disk."""
        with (self.folder / "log").open("ab") as log:
            self.process = subprocess.Popen(
                [str(mosquitto_bin()), "-c", str(self.folder / "mosquitto.conf")], stdout=log, stderr=subprocess.STDOUT
            )
        wait_for_port(self.port, self.process)

    def restart(self) -> None:
        stop(self.process)  # SIGTERM: Mosquitto writes its sessions and queues to disk as it stops
        self.start()

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.ca else 'mqtt'}://127.0.0.1:{self.port}"


def _certificates(folder: Path) -> str:
    """A CA and the broker's certificate for 127.0.0.1 (openssl); the listener's lines."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run = lambda *cmd: subprocess.run(["openssl", *cmd], cwd=folder, check=True, capture_output=True)  # noqa: E731
    run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=croupier test CA")
    run("req", *ec, "-keyout", "broker.key", "-out", "broker.csr", "-subj", "/CN=127.0.0.1")
    (folder / "san").write_text("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-in", "broker.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "broker.crt", "-days", "2", "-extfile", "san")  # fmt: skip
    return f"cafile {folder / 'ca.crt'}\ncertfile {folder / 'broker.crt'}\nkeyfile {folder / 'broker.key'}\n"


def _broker_files(folder: Path, port: int, tables: list[str], tls: bool = False) -> Path:
    passwords = folder / "passwd"
    users = [(CLUB_USER, CLUB_PASSWORD), *((t, password_of(t)) for t in tables)]
    passwords.write_text("".join(f"{user}:{password}\n" for user, password in users))
    subprocess.run(["mosquitto_passwd", "-U", str(passwords)], check=True, capture_output=True)  # hashed in place
    (folder / "acl").write_text(
        f"user {CLUB_USER}\ntopic read croupier/{CLUB}/#\ntopic write croupier/{CLUB}/+/seating\n\n"
        f"pattern write croupier/{CLUB}/%u/events\npattern write croupier/{CLUB}/%u/status\n"
        f"pattern read croupier/{CLUB}/%u/seating\n"
    )
    config = folder / "mosquitto.conf"
    config.write_text(
        f"listener {port} 127.0.0.1\n{_certificates(folder) if tls else ''}"
        f"allow_anonymous false\npassword_file {passwords}\nacl_file {folder / 'acl'}\n"
        f"persistence true\npersistence_location {folder}/\n"
        "max_inflight_messages 1000\nmax_queued_messages 1000000\n" + ("user mosquitto\n" if os.geteuid() == 0 else "")
    )
    return config


@contextlib.contextmanager
def mosquitto(folder: Path, tables: list[str] = TABLES, tls: bool = False) -> Iterator[Broker]:
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    config = _broker_files(folder, port, tables, tls)
    if os.geteuid() == 0:
        _give(folder, "mosquitto")
        os.chmod(folder / "passwd", 0o600)
    assert config == folder / "mosquitto.conf"
    broker = Broker(port, folder, None, folder / "ca.crt" if tls else None)  # type: ignore[arg-type]
    try:
        broker.start()
        yield broker
    finally:
        if broker.process is not None:
            stop(broker.process)


def stop(process: subprocess.Popen, timeout_s: float = 15.0) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
