"""Half-sent requests against the server's limits (controller/server_limits.py).

``croupier serve`` runs as a user starts it, in its own process, with the system's limit on open
files at 1,024 (the common default), and is flooded from 127.0.0.1 while other clients use
127.0.0.2 and above: Linux routes all of 127.0.0.0/8 to the loopback, so each is its own address
to the server. The limits themselves are also tried on a uvicorn in a thread, with small numbers.
"""

from __future__ import annotations

import contextlib
import json
import resource
import selectors
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from websockets.sync.client import connect

from api.app import create_app
from controller.server_limits import RESERVED_FILES, ServerLimits
from controller.settings import SettingsError, load_settings
from tests.api.conftest import TOKEN, free_port, make_runtime

pytestmark = pytest.mark.skipif(not Path("/proc/self/limits").exists(), reason="needs Linux's /proc")

SYSTEM_OPEN_FILES = 1024  # the server's hard limit in the flood: a common default
FLOOD = 1100  # half-open connections from one address: more than the server could ever hold
HALF_A_REQUEST_LINE = b"GET /api/table HT"
PATIENCE = 120.0  # seconds to wait for anything on a loaded machine (a bound, not a measure)


def until(condition: Callable[[], bool], what: str, timeout: float = PATIENCE) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.05)


@pytest.fixture(scope="module", autouse=True)
def room_for_the_flood() -> Iterator[None]:
    """This test process holds the flood's sockets: its own soft limit is raised for them."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = FLOOD + 400
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.skip(f"this test opens {needed} files; the hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, needed), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


class HalfOpen:
    """Connections from one address that send ``opening`` and then nothing, kept at ``count``:
    each one the server closes (or refuses) is counted, and opened again while ``refill`` runs."""

    def __init__(self, port: int, source: str, count: int, opening: bytes = HALF_A_REQUEST_LINE) -> None:
        self.port, self.source, self.count, self.opening = port, source, count, opening
        self.selector = selectors.DefaultSelector()
        self.closed_by_server = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._refill, name="half-open", daemon=True)

    @property
    def open(self) -> int:
        return len(self.selector.get_map())

    def top_up(self) -> None:
        while self.open < self.count:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=PATIENCE, source_address=(self.source, 0))
            if self.opening:
                sock.sendall(self.opening)
            sock.setblocking(False)
            self.selector.register(sock, selectors.EVENT_READ)

    def reap(self, wait: float = 0.1) -> None:
        """Close here every connection the server has closed."""
        for key, _ in self.selector.select(wait):
            sock: socket.socket = key.fileobj  # type: ignore[assignment]
            try:
                ended = not sock.recv(65536)
            except ConnectionError:
                ended = True
            except BlockingIOError:
                ended = False
            if ended:
                self.selector.unregister(sock)
                sock.close()
                self.closed_by_server += 1

    def start_refilling(self) -> None:
        self._thread.start()

    def stop_refilling(self) -> None:
        self._stop.set()
        self._thread.join(timeout=PATIENCE)

    def _refill(self) -> None:
        # A pause between rounds: the attack goes on for as long as the other clients are served,
        # without this test's own process taking the machine's every cycle.
        while not self._stop.is_set():
            self.reap(0.5)
            self.top_up()

    def close(self) -> None:
        for key in list(self.selector.get_map().values()):
            self.selector.unregister(key.fileobj)
            key.fileobj.close()  # type: ignore[union-attr]
        self.selector.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, subprocess.Popen[bytes], Path]]:
    """``croupier serve`` in its own process, its limit on open files 256 (soft) and 1,024 (hard):
    yields its port, the process and its stderr's file."""
    folder = tmp_path_factory.mktemp("half-open")
    config = folder / "croupier.toml"
    config.write_text(f'[dealer]\nport = "none"\n[camera]\nsource = "none"\n[store]\npath = "{folder / "table.db"}"\n')
    port = free_port()
    stderr = folder / "stderr.txt"

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, SYSTEM_OPEN_FILES))

    with open(folder / "stdout.txt", "wb") as out, open(stderr, "wb") as err:
        child = subprocess.Popen(
            [sys.executable, "-m", "controller", "serve", "--config", str(config), "--port", str(port)],
            stdout=out,
            stderr=err,
            preexec_fn=low_limit,
        )
    try:
        until(lambda: _answers(port) or child.poll() is not None, "croupier serve to start")
        assert child.poll() is None, stderr.read_text()
        yield port, child, stderr
    finally:
        child.terminate()
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _answers(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def test_croupier_serve_raises_its_open_files_limit_and_fits_its_connections_in_it(served):
    _, child, stderr = served
    limits = Path(f"/proc/{child.pid}/limits").read_text()
    soft = next(line.split()[3] for line in limits.splitlines() if line.startswith("Max open files"))
    assert int(soft) == SYSTEM_OPEN_FILES  # raised from 256, as far as the hard limit lets it
    fitted = SYSTEM_OPEN_FILES - RESERVED_FILES
    assert f"serving at most {fitted} connections, not 1000" in stderr.read_text()


def test_a_flood_of_half_sent_requests_from_one_address_leaves_the_table_served(served):
    port, child, _ = served
    flood = HalfOpen(port, "127.0.0.1", FLOOD)
    try:
        flood.top_up()
        flood.start_refilling()
        other = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", transport=other, timeout=PATIENCE) as http:
            page = http.get("/")
            table = http.get("/api/table")
        with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=PATIENCE, source_address=("127.0.0.2", 0)) as ws:
            snapshot = json.loads(ws.recv(timeout=PATIENCE))
        flood.stop_refilling()
        assert page.status_code == 200 and "<html" in page.text.lower()
        assert table.status_code == 200 and "seq" in table.json()
        assert snapshot["type"] == "snapshot"
        assert flood.closed_by_server > 0  # those over the address's share were closed at once
        # ... and those it held, when their time to send a whole request ran out
        until(lambda: flood.reap() or flood.open == 0, "the server to drop every half-sent request")
        assert child.poll() is None
    finally:
        flood.close()


# The limits on a uvicorn in a thread, small enough to count.
SMALL = ServerLimits(max_connections=6, per_client=3, request_timeout=2.0, keep_alive_timeout=5.0)
FOREVER = 600.0  # a timeout that never runs out during a test


def _patient(max_connections: int, per_client: int) -> ServerLimits:
    """Limits on connections only: no connection is dropped for taking its time."""
    return ServerLimits(max_connections, per_client, request_timeout=FOREVER, keep_alive_timeout=FOREVER)


@pytest.fixture
def serve_with(tmp_path: Path) -> Iterator[Callable[[ServerLimits], int]]:
    """Starts a uvicorn in a thread with the given limits, as ``croupier serve`` runs it; returns its port."""
    runtime = make_runtime(tmp_path)
    servers: list[tuple[uvicorn.Server, threading.Thread]] = []

    def start(limits: ServerLimits) -> int:
        port = free_port()
        options = limits.uvicorn_options()
        server = uvicorn.Server(uvicorn.Config(create_app(runtime), port=port, log_level="warning", **options))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        servers.append((server, thread))
        until(lambda: server.started or not thread.is_alive(), "the server to start")
        assert server.started
        return port

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(timeout=PATIENCE)
    runtime.stop()
    runtime.journal.close()


def _read_what_came(sock: socket.socket, received: bytearray) -> bool:
    """Adds what the server has sent on ``sock`` to ``received``; whether the server has closed it."""
    sock.setblocking(False)
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except BlockingIOError:
        return False
    except ConnectionError:
        pass
    return True


def _closed(sock: socket.socket) -> bytes | None:
    """All the server sent from now until it closed ``sock``, or None while it is open."""
    received = bytearray()
    return bytes(received) if _read_what_came(sock, received) else None


def _wait_closed(sock: socket.socket, what: str) -> bytes:
    """All the server sent on ``sock`` until it closed it (kept across looks: the answer may come
    a moment before the close)."""
    received = bytearray()
    until(lambda: _read_what_came(sock, received), what)
    return bytes(received)


def _dial(port: int, source: str, opening: bytes = b"") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE, source_address=(source, 0))
    if opening:
        sock.sendall(opening)
    return sock


HEALTH = b"GET /api/health HTTP/1.1\r\nhost: table\r\n\r\n"


def _answered(port: int, source: str) -> socket.socket:
    """A connection that has had an answer (so the server holds it), kept open."""
    sock = _dial(port, source, HEALTH)
    answer = b""
    while b'"status"' not in answer:
        chunk = sock.recv(65536)
        assert chunk, f"closed without an answer: {answer!r}"
        answer += chunk
    assert answer.startswith(b"HTTP/1.1 200 "), answer
    return sock


def _health(port: int, source: str) -> int:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", transport=transport, timeout=PATIENCE) as http:
        return http.get("/api/health").status_code


def test_one_address_holds_at_most_its_share_of_connections(serve_with):
    port = serve_with(_patient(max_connections=6, per_client=3))
    held = [_answered(port, "127.0.0.1") for _ in range(3)]
    try:
        assert _health(port, "127.0.0.2") == 200  # another address is served
        beyond = _dial(port, "127.0.0.1", HEALTH)
        answer = _wait_closed(beyond, "the connection over the address's share to be closed")
        assert answer.startswith(b"HTTP/1.1 503 ") and b"too many connections" in answer
        assert all(_closed(sock) is None for sock in held)  # the ones within its share are kept
        held.pop().close()
        until(lambda: _health(port, "127.0.0.1") == 200, "the address to be served again once it closed one")
    finally:
        for sock in held:
            sock.close()


def test_a_refused_client_that_sent_a_large_request_at_once_still_reads_why(serve_with):
    # Its request lies unread in the server's socket when the server refuses it; a socket closed
    # with unread bytes is reset, and the reset throws away the 503 the client has not yet read.
    port = serve_with(_patient(max_connections=6, per_client=1))
    held = _answered(port, "127.0.0.1")
    try:
        body = b"x" * 200_000
        request = b"POST /api/events HTTP/1.1\r\nhost: table\r\ncontent-length: %d\r\n\r\n" % len(body)
        beyond = _dial(port, "127.0.0.1")
        beyond.settimeout(PATIENCE)
        with contextlib.suppress(ConnectionError):  # the server may have closed: its answer is still to be read
            beyond.sendall(request + body)
        answer = _wait_closed(beyond, "the refused connection to be closed")
        assert answer.startswith(b"HTTP/1.1 503 ") and b"too many connections" in answer, answer
    finally:
        held.close()


def test_all_clients_together_hold_at_most_the_server_s_connections(serve_with):
    port = serve_with(_patient(max_connections=4, per_client=3))
    held = [_answered(port, "127.0.0.1") for _ in range(3)] + [_answered(port, "127.0.0.2")]
    try:
        beyond = _dial(port, "127.0.0.3", HEALTH)
        assert _wait_closed(beyond, "the fifth connection to be closed").startswith(b"HTTP/1.1 503 ")
    finally:
        for sock in held:
            sock.close()


INCOMPLETE = {
    "nothing at all": b"",
    "half a request line": b"GET /api/health HT",
    "headers without their end": b"GET /api/health HTTP/1.1\r\nhost: table\r\n",
    # with the token, so that the table waits for the body rather than refusing it unread
    "half a body": (
        b"POST /api/calls HTTP/1.1\r\nhost: table\r\nauthorization: Bearer "
        + TOKEN.encode()
        + b'\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n{"seat": 1,'
    ),
}


@pytest.mark.parametrize("opening", INCOMPLETE.values(), ids=INCOMPLETE.keys())
def test_a_request_not_sent_whole_in_time_is_dropped(serve_with, opening):
    sock = _dial(serve_with(SMALL), "127.0.0.1", opening)
    try:
        answer = _wait_closed(sock, "the server to drop the incomplete request")
        if opening:  # it began a request: it is told why it ended
            assert answer.startswith(b"HTTP/1.1 408 ") and b"not received whole within 2 s" in answer
        else:
            assert answer == b""  # it never said a word: closed without one
    finally:
        sock.close()


def test_the_next_request_on_a_kept_alive_connection_has_its_own_time(serve_with):
    sock = _answered(serve_with(SMALL), "127.0.0.1")
    try:
        sock.sendall(b"GET /api/health HT")  # the next one, half sent: the keep-alive wait is over
        answer = _wait_closed(sock, "the server to drop the half-sent second request")
        assert answer.startswith(b"HTTP/1.1 408 ")
    finally:
        sock.close()


def test_a_websocket_outlives_the_request_timeout(serve_with):
    with connect(f"ws://127.0.0.1:{serve_with(SMALL)}/ws", open_timeout=PATIENCE) as ws:
        assert json.loads(ws.recv(timeout=PATIENCE))["type"] == "snapshot"
        opened = time.monotonic()
        until(lambda: time.monotonic() - opened > 2 * SMALL.request_timeout, "twice the request timeout to pass")
        ws.ping().wait(timeout=PATIENCE)  # still open: its request was whole long ago


def test_an_address_s_share_cannot_be_more_than_all_connections(tmp_path):
    settings = tmp_path / "croupier.toml"
    settings.write_text("[api]\nmax_connections = 20\nmax_connections_per_client = 50\n")
    with pytest.raises(SettingsError, match=r"max_connections_per_client \(50\) is more than max_connections \(20\)"):
        load_settings(settings)
