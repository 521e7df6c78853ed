"""systemd's notification protocol against a real unix datagram socket (``$NOTIFY_SOCKET``): the
table says it is ready once its page answers, feeds the watchdog while its controller thread
answers, stops feeding it while that thread hangs (systemd then restarts the service), and says
when it stops. (``systemd-run --user`` needs systemd as the machine's init, which CI lacks.)"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from controller.cli_common import free_port
from controller.runtime import Runtime
from controller.sd_notify import Watchdog, answers, notify, watchdog_period_s
from controller.settings import Settings

PATIENCE_S = 120.0  # a loaded machine is slow; the conditions are polled, never timed


class Listener:
    """systemd's end: a datagram socket that collects what the service sends."""

    def __init__(self, address: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(address)
        self.sock.settimeout(0.2)
        self.messages: list[str] = []

    def wait_for(self, wanted, what: str) -> str:
        """The first message from now on for which ``wanted`` holds (every one is kept)."""
        deadline = time.monotonic() + PATIENCE_S
        while time.monotonic() < deadline:
            try:
                message = self.sock.recv(4096).decode()
            except TimeoutError:
                continue
            self.messages.append(message)
            if wanted(message):
                return message
        raise AssertionError(f"no {what} from the table; it sent {self.messages[-5:]}")

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def systemd(tmp_path, monkeypatch):
    listener = Listener(str(tmp_path / "notify"))
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    yield listener
    listener.close()


def test_a_notification_is_one_datagram_of_lines(systemd):
    assert notify("READY=1", "STATUS=serving")
    assert systemd.wait_for(lambda m: True, "notification") == "READY=1\nSTATUS=serving"


def test_the_abstract_namespace_is_reached_by_an_at_sign(monkeypatch):
    name = f"croupier-test-{os.getpid()}"
    listener = Listener("\0" + name)
    try:
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        assert notify("WATCHDOG=1")
        assert listener.wait_for(lambda m: True, "notification") == "WATCHDOG=1"
    finally:
        listener.close()


def test_without_systemd_or_its_socket_nothing_is_sent_and_nothing_fails(tmp_path, monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert notify("READY=1") is False
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "nobody-listens"))
    assert notify("READY=1") is False


@pytest.mark.parametrize(
    ("usec", "pid", "period"),
    [
        ("30000000", None, 15.0),
        ("30000000", "self", 15.0),
        ("30000000", "1", None),
        ("0", None, None),
        ("x", None, None),
    ],
)
def test_the_watchdog_is_fed_at_half_its_timeout_and_only_by_its_process(monkeypatch, usec, pid, period):
    monkeypatch.setenv("WATCHDOG_USEC", usec)
    if pid is None:
        monkeypatch.delenv("WATCHDOG_PID", raising=False)
    else:
        monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()) if pid == "self" else pid)
    assert watchdog_period_s() == period


def test_a_table_whose_controller_hangs_stops_feeding_the_watchdog_until_it_answers_again(systemd, tmp_path):
    runtime = Runtime.open(Settings(store={"path": tmp_path / "croupier.db"}), "token")
    runtime.start()
    watchdog = Watchdog(answers(runtime), period_s=0.2)
    watchdog.start()
    try:
        systemd.wait_for(lambda m: m == "WATCHDOG=1", "watchdog feed")
        hanging, release = threading.Event(), threading.Event()
        runtime.run(lambda: (hanging.set(), release.wait()))  # the controller's thread is stuck
        assert hanging.wait(PATIENCE_S)
        systemd.wait_for(lambda m: m.startswith("STATUS=the table's controller has not answered"), "missed feed")
        after = len(systemd.messages)
        systemd.wait_for(lambda m: m.startswith("STATUS=the table's controller has not answered"), "second miss")
        assert "WATCHDOG=1" not in systemd.messages[after:]  # no feed while it hangs
        release.set()
        assert systemd.wait_for(lambda m: m.startswith("WATCHDOG=1"), "feed again") == (
            "WATCHDOG=1\nSTATUS=the table's controller answers again"
        )
    finally:
        release.set()
        watchdog.stop()
        runtime.stop()
    assert watchdog.missed >= 2 and watchdog.fed >= 2


def test_croupier_serve_says_when_it_is_ready_feeds_the_watchdog_and_says_when_it_stops(systemd, tmp_path):
    port = free_port()
    config = tmp_path / "croupier.toml"
    config.write_text(
        f'[dealer]\nport = "none"\n[camera]\nsource = "none"\n[store]\npath = "{tmp_path / "croupier.db"}"\n'
        f"[api]\nport = {port}\n"
    )
    env = {**os.environ, "WATCHDOG_USEC": "2000000"}  # no WATCHDOG_PID: systemd sets it only for a forked child
    root = Path(__file__).resolve().parents[2]
    serve = subprocess.Popen(
        [sys.executable, "-m", "controller", "serve", "--config", str(config)],
        env=env,
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ready = systemd.wait_for(lambda m: "READY=1" in m, "READY=1")
        assert ready == f"READY=1\nSTATUS=serving the table on http://127.0.0.1:{port}/"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=PATIENCE_S) as answer:
            assert answer.status == 200  # ready means the page answers
        systemd.wait_for(lambda m: m == "WATCHDOG=1", "watchdog feed")
        serve.send_signal(signal.SIGTERM)
        systemd.wait_for(lambda m: m == "STOPPING=1", "STOPPING=1")
        assert serve.wait(PATIENCE_S) == 0, serve.stderr.read()
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
