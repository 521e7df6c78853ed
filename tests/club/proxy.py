"""A table's network to the broker, which a test can silence, cut and mend: a TCP relay on a port
of its own. Silenced, it keeps the connections and loses everything sent either way (the table's
Wi-Fi fading: what the table sends in that time is never acknowledged); cut, it drops every
connection through it and refuses new ones (the Wi-Fi gone, or a firewall between the table and
the club); mended, it relays again on the same port."""

from __future__ import annotations

import contextlib
import socket
import threading

from benchmarks.club_servers import free_port


class Relay:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.connections = 0  # accepted since the start (each reconnection of the table is one)
        self.silent = False
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        self._listener: socket.socket | None = None
        self.mend()

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def silence(self) -> None:
        """Lose whatever is sent either way, keeping the connections open."""
        self.silent = True

    def mend(self) -> None:
        """Relay again (on the same port)."""
        self.silent = False
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen()
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Drop every connection and refuse new ones until :meth:`mend`."""
        listener, self._listener = self._listener, None
        if listener is not None:
            _close(listener)
        with self._lock:
            dropped, self._open = self._open, []
        for s in dropped:
            _close(s)

    close = cut

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:  # cut
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=10)
            except OSError:  # the broker is down: the table sees its connection end
                _close(client)
                continue
            upstream.settimeout(None)
            with self._lock:
                if self._listener is not listener:  # cut meanwhile
                    _close(client)
                    _close(upstream)
                    return
                self._open += [client, upstream]
                self.connections += 1
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if not self.silent:
                    sink.sendall(data)
        _close(source)
        _close(sink)


def _close(s: socket.socket) -> None:
    with contextlib.suppress(OSError):
        s.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        s.close()
