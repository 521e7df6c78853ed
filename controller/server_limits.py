"""The web server's limits: what keeps one client from taking the table's server down.

Uvicorn, left to itself, keeps a connection open for as long as its request is unfinished
and accepts every connection until the process runs out of file descriptors; about a
thousand half-sent requests from one machine then stop the page, the API and the WebSocket
for everyone. ``croupier serve`` therefore runs uvicorn's HTTP protocol with three guards:

- one address may hold at most ``max_connections_per_client`` connections (WebSockets
  included); a connection beyond that is answered 503 and closed as soon as it is accepted;
- all clients together may hold at most ``max_connections``; beyond that, the same;
- a request must arrive whole (headers and body) within ``request_timeout`` seconds of the
  connection's opening, or of its first byte on a kept-alive connection; else it is answered
  ``408`` (or, if it never sent a byte, closed) and its connection dropped.

The process's soft limit on open files is raised (up to the hard limit) to fit the
connections and the files that are not connections; if the hard limit is too low, fewer
connections are allowed, and ``croupier serve`` says so.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.utils import get_remote_addr

from controller.settings import ApiSettings

log = logging.getLogger(__name__)

# Open files that are not connections: the journal and its -wal and backup, the serial port,
# the camera, the panel's pins, the vision model, pipes, logs and the listening socket.
RESERVED_FILES = 128
# Connections the kernel holds before the server accepts them. The server accepts (and refuses
# where it must) at once, so a short queue is enough; a long one only lets a flood wait longer.
LISTEN_BACKLOG = 256
# A refused connection is half-closed after its 503 and kept this long, reading and discarding
# what the client sends, before it is closed: closing a socket with unread bytes in it (the
# request the client sent at once) resets the connection, and the reset discards the 503 the
# client had not yet read, so it would see "connection reset" and not why. At most
# LINGERING_AT_MOST refused connections linger at once; past that, they are closed at once, so
# a flood of connections cannot hold the server's files this way.
LINGER_SECONDS = 0.5
LINGERING_AT_MOST = 64
_RAISE_THE_LIMIT = "raise the limit on open files: ulimit -n, or LimitNOFILE= in a systemd unit"


class TooFewOpenFiles(RuntimeError):
    """The system lets the server open too few files to serve anyone."""


@dataclass(frozen=True, slots=True)
class ServerLimits:
    max_connections: int
    per_client: int
    request_timeout: float
    keep_alive_timeout: float

    @classmethod
    def from_settings(cls, api: ApiSettings) -> ServerLimits:
        return cls(
            max_connections=api.max_connections,
            per_client=api.max_connections_per_client,
            request_timeout=api.request_timeout,
            keep_alive_timeout=api.keep_alive_timeout,
        )

    def uvicorn_options(self) -> dict[str, Any]:
        """What ``uvicorn.run`` or ``uvicorn.Config`` take to serve within these limits."""
        return {
            "http": guarded_http(self),
            # Uvicorn answers 503 once its connections or its requests in progress reach this. Its
            # count includes the connection asking, which this limit has already admitted: one more.
            # It still bounds the requests whose connection has gone while the table works on them.
            "limit_concurrency": self.max_connections + 1,
            "backlog": LISTEN_BACKLOG,
            "timeout_keep_alive": self.keep_alive_timeout,
        }


def fit_open_files(limits: ServerLimits) -> ServerLimits:
    """Raise the soft limit on open files to fit ``limits`` (up to the hard limit) and return
    the limits that fit in what it is then: fewer connections if the hard limit is too low."""
    wanted = limits.max_connections + RESERVED_FILES
    soft = _raise_soft_open_files(wanted)
    room = soft - RESERVED_FILES
    if room < 1:
        raise TooFewOpenFiles(
            f"the system lets the server open {soft} files; it needs more than {RESERVED_FILES} to serve anyone "
            f"({_RAISE_THE_LIMIT})"
        )
    if room >= limits.max_connections:
        return limits
    return replace(limits, max_connections=room, per_client=min(limits.per_client, room))


def fewer_connections_note(wanted: ServerLimits, limits: ServerLimits) -> str:
    """Why the server serves fewer connections than its settings ask, and the way out."""
    files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return (
        f"the system lets the server open {files} files: serving at most {limits.max_connections} connections, "
        f"not {wanted.max_connections} ({_RAISE_THE_LIMIT})"
    )


def _raise_soft_open_files(wanted: int) -> int:
    """The soft limit on open files after raising it towards ``wanted``, within the hard limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return wanted
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):  # a system that refuses: serve within what there is
        return soft
    return target


class ClientConnections:
    """The open connections of each client address, as their transports.

    A connection upgraded to a WebSocket is handed to another protocol, whose end this one never
    hears of; so a transport counts until it is closing, and closing ones are dropped each time
    their address is counted."""

    def __init__(self) -> None:
        self._by_host: dict[str, set[asyncio.BaseTransport]] = {}

    def count(self, host: str) -> int:
        transports = self._by_host.get(host)
        if transports is None:
            return 0
        transports.difference_update([t for t in transports if t.is_closing()])
        if not transports:
            del self._by_host[host]
        return len(transports)

    def add(self, host: str, transport: asyncio.BaseTransport) -> None:
        self._by_host.setdefault(host, set()).add(transport)

    def discard(self, host: str, transport: asyncio.BaseTransport) -> None:
        transports = self._by_host.get(host)
        if transports is not None:
            transports.discard(transport)
            if not transports:
                del self._by_host[host]


def guarded_http(limits: ServerLimits) -> type[H11Protocol]:
    """Uvicorn's h11 protocol with the limits above; one class (and one count of clients) per server."""
    return type(
        "GuardedH11Protocol",
        (GuardedH11Protocol,),
        {"limits": limits, "clients": ClientConnections(), "lingering": set()},
    )


class GuardedH11Protocol(H11Protocol):
    """Uvicorn's HTTP/1.1 protocol that refuses a connection beyond the limits and drops a request
    not received whole in time. Use a subclass made by :func:`guarded_http`."""

    limits: ClassVar[ServerLimits]
    clients: ClassVar[ClientConnections]
    lingering: ClassVar[set[asyncio.BaseTransport]]
    _refused = False
    _request_clock: asyncio.TimerHandle | None = None
    _linger_clock: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        host = _host(transport)
        if not self._room_for(host):
            log.debug("refused a connection from %s: over the limits", host)
            self._refuse(transport)
            return
        super().connection_made(transport)
        if host is not None:
            self.clients.add(host, transport)
        self._start_request_clock()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # a refused client's request: read only so that closing does not reset the connection
        if self._request_clock is None and self.conn.their_state is h11.IDLE:
            self._start_request_clock()  # the next request on a kept-alive connection begins
        super().data_received(data)

    def handle_events(self) -> None:
        super().handle_events()
        if self._request_received():
            self._stop_request_clock()

    def eof_received(self) -> bool | None:
        if self._refused:
            self.transport.close()  # the client has read the 503 and closed its side
            return None
        return super().eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_request_clock()
        if self._refused:
            self._stop_lingering()
            return
        host = _host(self.transport)
        if host is not None:
            self.clients.discard(host, self.transport)
        super().connection_lost(exc)

    def _refuse(self, transport: asyncio.Transport) -> None:
        """Answer 503 and close: lingering (see LINGER_SECONDS) while few refused connections do."""
        self._refused = True
        self.transport = transport
        transport.write(_TOO_MANY_CONNECTIONS)  # sent at once, from the socket's empty buffer
        if len(self.lingering) >= LINGERING_AT_MOST or not transport.can_write_eof():
            transport.close()
            return
        transport.write_eof()
        self.lingering.add(transport)
        self._linger_clock = self.loop.call_later(LINGER_SECONDS, transport.close)

    def _stop_lingering(self) -> None:
        if self._linger_clock is not None:
            self._linger_clock.cancel()
            self._linger_clock = None
        self.lingering.discard(self.transport)

    def _room_for(self, host: str | None) -> bool:
        if len(self.connections) >= self.limits.max_connections:
            return False
        return host is None or self.clients.count(host) < self.limits.per_client

    def _start_request_clock(self) -> None:
        self._stop_request_clock()
        self._request_clock = self.loop.call_later(self.limits.request_timeout, self._drop_incomplete_request)

    def _stop_request_clock(self) -> None:
        if self._request_clock is not None:
            self._request_clock.cancel()
            self._request_clock = None

    def _request_received(self) -> bool:
        """Whether the request in progress has arrived whole (or the connection is a WebSocket now)."""
        if self.transport.get_protocol() is not self:
            return True
        return self.conn.their_state not in (h11.IDLE, h11.SEND_BODY)

    def _drop_incomplete_request(self) -> None:
        self._request_clock = None
        if self.transport.is_closing() or self._request_received():
            return
        started = self.conn.their_state is h11.SEND_BODY or bool(self.conn.trailing_data[0])
        if started and self.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):  # nothing answered yet: say why it ends
            self.transport.write(_request_timeout_answer(self.limits.request_timeout))
        log.debug("dropped a request from %s: not received whole in %g s", self.client, self.limits.request_timeout)
        self.transport.close()


def _host(transport: asyncio.Transport) -> str | None:
    address = get_remote_addr(transport)
    return None if address is None else address[0]


def _request_timeout_answer(seconds: float) -> bytes:
    return _closing_answer("408 Request Timeout", f"the request was not received whole within {seconds:g} s")


def _closing_answer(status: str, message: str) -> bytes:
    """A whole HTTP answer, written by hand: there is no request (or no whole one) to answer through h11."""
    body = f"{message}\n".encode()
    head = (
        f"HTTP/1.1 {status}\r\n"
        "content-type: text/plain; charset=utf-8\r\n"
        "connection: close\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body


_TOO_MANY_CONNECTIONS = _closing_answer("503 Service Unavailable", "too many connections: close some and try again")
