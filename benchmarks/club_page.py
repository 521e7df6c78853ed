"""The club's page at live pace (``croupier bench club``, ``benchmarks/club_tables.py``): every
table plays one event every ``pace_s`` seconds, each from a random moment, while the club's API is
polled as a page polls it; each event's delay is from its journal time (the table's clock, as
journaled) to the first answer that shows it.

A page watching a table asks for its match's record (``GET /api/tables/<t>/matches/<m>``): the
hands revealed and the hand in play's public events (``in_play``) show every event the club has
stored. The poller asks only about tables with an event the club has not shown yet (a page asking
about the others would learn nothing new), each no more often than every ``POLL_S``, with
``POLLERS`` requests at a time; the delay measured includes that wait, up to ``POLL_S``."""

from __future__ import annotations

import heapq
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    from benchmarks.club_tables import Played, Table

POLLERS = 4  # requests at a time
POLL_S = 0.05  # the shortest time between two requests about one table
SHOW_S = 120.0  # how long the club may take to show the last events before they count as lost


@dataclass
class Watched:
    """A table's live match as the poller sees it."""

    table: Table
    match: Played
    quota: int  # the events it plays
    submitted: int = 0
    shown: int = 0  # events the club's API has shown
    seen_at: list[float] = field(default_factory=list)  # when each event was first shown (epoch s)
    busy: bool = False
    last_poll: float = 0.0


@dataclass
class Live:
    watched: list[Watched]
    polls_per_s: float
    request_ms: list[float]  # how long each answer took, sorted


class Poller:
    def __init__(self, url: str, watched: list[Watched]) -> None:
        self.url, self.watched = url, watched
        self.lock = threading.Lock()
        self.request_ms: list[float] = []
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(POLLERS)]

    def __enter__(self) -> Poller:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        for t in self.threads:
            t.join(30)

    def _next(self) -> Watched | None:
        now = time.monotonic()
        with self.lock:
            due = [w for w in self.watched if w.submitted > w.shown and not w.busy and now - w.last_poll >= POLL_S]
            if not due:
                return None
            chosen = min(due, key=lambda w: w.last_poll)
            chosen.busy, chosen.last_poll = True, now
            return chosen

    def _run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=60) as client:
            while not self.stopping.is_set():
                watched = self._next()
                if watched is None:
                    time.sleep(0.005)
                    continue
                asked = time.monotonic()
                try:
                    answer = client.get(f"/api/tables/{watched.table.name}/matches/{watched.table.match}")
                    self._take(watched, answer, time.time())
                finally:
                    with self.lock:
                        watched.busy = False
                        self.request_ms.append((time.monotonic() - asked) * 1000)

    def _take(self, watched: Watched, answer: httpx.Response, seen: float) -> None:
        if answer.status_code == 404:  # the match's first message is not stored yet
            return
        answer.raise_for_status()
        body = answer.json()
        shown = watched.match.ends[body["hands"]] + len(body["in_play"])
        with self.lock:
            while watched.shown < shown:
                watched.seen_at.append(seen)
                watched.shown += 1


def live(tables: Sequence[Table], matches: Sequence[Played], url: str, pace_s: float, live_s: float,
         progress: Callable[[str], None], wait_s: float) -> Live:  # fmt: skip
    """Every table plays one event every ``pace_s`` for ``live_s``, each from a random moment."""
    per_table = max(1, int(live_s / pace_s))
    for table, match in zip(tables, matches, strict=True):
        table.start_match(match)
    watched = [Watched(t, m, min(per_table, len(m.log["events"]))) for t, m in zip(tables, matches, strict=True)]
    total = sum(w.quota for w in watched)
    rng = random.Random(1)
    start = time.monotonic() + 1.0
    due = [(start + rng.uniform(0, pace_s), i) for i in range(len(watched))]
    heapq.heapify(due)
    with Poller(url, watched) as poller:
        futures = []
        while due:
            at, i = heapq.heappop(due)
            time.sleep(max(0.0, at - time.monotonic()))
            w = watched[i]
            futures.append(w.table.submit(w.match.log["events"][w.submitted]))
            with poller.lock:
                w.submitted += 1
            if w.submitted < w.quota:
                heapq.heappush(due, (at + pace_s, i))
            if len(futures) % 100 == 0:
                progress(f"live pace: {len(futures)} of {total} events played, {_shown(watched)} shown by the club")
        for future in futures:
            result = future.result(wait_s)
            assert result.outcome.accepted, result.outcome.reason
        progress("live pace: waiting for the club to show the last events...")
        deadline = time.monotonic() + SHOW_S
        while _shown(watched) < total and time.monotonic() < deadline:  # what is never shown counts as lost
            time.sleep(0.05)
        elapsed = time.monotonic() - start
    return Live(watched, len(poller.request_ms) / elapsed, sorted(poller.request_ms))


def _shown(watched: list[Watched]) -> int:
    return sum(w.shown for w in watched)


def delays_ms(watched: list[Watched], timed: dict[str, list[tuple[str, Any]]]) -> list[float]:
    """Each shown event's delay from its journal time to the answer that first showed it, sorted."""
    delays = []
    for w in watched:
        for (at, _), seen in zip(timed[w.table.name], w.seen_at, strict=False):
            delays.append((seen - journal_time(at)) * 1000)
    return sorted(delays)


def journal_time(at: str) -> float:
    """The journal's time (UTC, ``...Z``) as seconds since the epoch."""
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()
