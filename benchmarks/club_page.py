"""The club's page at live pace (``croupier bench club``, ``benchmarks/club_tables.py``): every
table plays one event every ``pace_s`` seconds, each from a random moment, while a page watches
the club's live updates (``/api/live``, a real WebSocket client in this process); each event's
delay is from its journal time (the table's clock, as journaled) to the first update that names
its table with its message's seq (or a later one of that match): when a page watching shows it.

Which message carries which event is read from the club's database once the run is over (the
event messages' ``seq`` and journal time ``at``); the updates are only recorded as they come."""

from __future__ import annotations

import heapq
import json
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

if TYPE_CHECKING:
    from benchmarks.club_tables import Played, Table

SHOW_S = 120.0  # how long the club may take to show the last events before they count as lost


@dataclass
class Seen:
    """The updates a page received: for each table, when each newer (match, seq) first came."""

    by_table: dict[str, list[tuple[float, int, int]]] = field(default_factory=dict)  # (epoch s, match, seq)
    updates: int = 0

    def latest(self, table: str) -> tuple[int, int]:
        arrivals = self.by_table.get(table)
        return (arrivals[-1][1], arrivals[-1][2]) if arrivals else (0, 0)

    def shown_at(self, table: str, match: int, seq: int) -> float | None:
        """When an update first named this message of the table (or a later one of its match)."""
        for at, m, s in self.by_table.get(table, []):
            if m == match and s >= seq:
                return at
        return None


class Watcher:
    """A page on the club's live updates, in a thread of its own."""

    def __init__(self, url: str) -> None:
        self.url = url.replace("http://", "ws://", 1) + "/api/live"
        self.seen = Seen()
        self.lock = threading.Lock()
        self.error: BaseException | None = None
        self._socket = connect(self.url, open_timeout=60, max_size=None)
        self._thread = threading.Thread(target=self._run, name="club-page-watcher", daemon=True)

    def __enter__(self) -> Watcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._socket.close()
        self._thread.join(30)

    def _run(self) -> None:
        try:
            for text in self._socket:
                self._take(json.loads(text), time.time())
        except ConnectionClosed:
            pass
        except BaseException as exc:  # said by the run, not lost in a thread
            self.error = exc

    def _take(self, update: dict, at: float) -> None:
        with self.lock:
            self.seen.updates += 1
            for table in update["tables"]:
                latest = table.get("latest")
                if latest is None:  # a status: no message of a match
                    continue
                key = (latest["match"], latest["seq"])
                if key > self.seen.latest(table["table"]):
                    self.seen.by_table.setdefault(table["table"], []).append((at, *key))


@dataclass(frozen=True)
class Stored:
    events: int  # event messages of the live matches stored
    last_seq: dict[str, int]  # each table's last message of its live match stored


@dataclass
class Live:
    played: int  # events journaled at live pace
    seen: Seen
    elapsed_s: float


def live(tables: Sequence[Table], matches: Sequence[Played], url: str, pace_s: float, live_s: float,
         progress: Callable[[str], None], wait_s: float, stored: Callable[[], Stored]) -> Live:  # fmt: skip
    """Every table plays one event every ``pace_s`` for ``live_s``, each from a random moment.

    ``stored`` reads what the club's database holds of the live matches."""
    per_table = max(1, int(live_s / pace_s))
    for table, match in zip(tables, matches, strict=True):
        table.start_match(match)
    quotas = [min(per_table, len(m.log["events"])) for m in matches]
    total = sum(quotas)
    rng = random.Random(1)
    with Watcher(url) as watcher:
        start = time.monotonic() + 1.0
        due = [(start + rng.uniform(0, pace_s), i) for i in range(len(tables))]
        heapq.heapify(due)
        submitted = [0] * len(tables)
        futures = []
        while due:
            at, i = heapq.heappop(due)
            time.sleep(max(0.0, at - time.monotonic()))
            futures.append(tables[i].submit(matches[i].log["events"][submitted[i]]))
            submitted[i] += 1
            if submitted[i] < quotas[i]:
                heapq.heappush(due, (at + pace_s, i))
            if len(futures) % 100 == 0:
                progress(f"live pace: {len(futures)} of {total} events played, {watcher.seen.updates} updates pushed")
        for future in futures:
            result = future.result(wait_s)
            assert result.outcome.accepted, result.outcome.reason
        progress("live pace: waiting for the club to push the last events...")
        deadline = time.monotonic() + SHOW_S
        while time.monotonic() < deadline and not _all_shown(watcher, tables, total, stored()):
            time.sleep(0.1)
        elapsed = time.monotonic() - start
        if watcher.error is not None:
            raise watcher.error
    return Live(total, watcher.seen, elapsed)


def _all_shown(watcher: Watcher, tables: Sequence[Table], total: int, stored: Stored) -> bool:
    """Every event stored, and an update naming each table's last message stored."""
    if stored.events < total:
        return False
    with watcher.lock:
        return all(watcher.seen.latest(t.name) >= (t.match, stored.last_seq.get(t.name, 1)) for t in tables)


def delays_ms(seen: Seen, events: list[tuple[str, int, int, float]]) -> tuple[list[float], int]:
    """Each event message's delay (table, match, seq, journal time in epoch s) from its journal
    time to the first update naming it, sorted; and how many no update named."""
    delays, lost = [], 0
    for table, match, seq, at in events:
        shown = seen.shown_at(table, match, seq)
        if shown is None:
            lost += 1
        else:
            delays.append((shown - at) * 1000)
    return sorted(delays), lost
