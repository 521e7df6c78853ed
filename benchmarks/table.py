"""The live table's own figures (``croupier bench table``).

**Latency**: from a card lying still in its zone of the simulated table top (the first frame in
which the hand that put it down has let go of it) to the play's message arriving on the page's
WebSocket, at each of ``clients`` connected WebSocket clients. The table runs in real time (the
camera at 10 frames per second of table time), with simulated people playing a hand of Poley
through the real dealer, vision, controller, journal and web server. The latency includes what
the table waits for on purpose: the hand leaving the zone, then ``stable_frames`` identical still
frames before the tracker counts the card (a card is never judged on one frame).

**CPU share**: the process's CPU time while that table plays, per thread (Linux
``/proc/self/task``), with the simulator's share taken out: the firmware simulator's thread, the
people, the WebSocket clients, and the time the simulated camera spends *drawing* frames. What
remains is the table's own work: reading frames, the controller, the journal, the web server and
the link to the machine. It is reported as a share of one core and of the four cores of a
Raspberry Pi (which is about 2-3 times slower per core than this machine's).
"""

from __future__ import annotations

import itertools
import json
import os
import statistics
import threading
import time
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from controller.cli_common import free_port
from controller.sim_table import SimOptions, SimulatedTableRig

SIMULATOR_THREADS = ("dealer-firmware", "ws-client", "people", "MainThread")


@dataclass
class LatencyFigure:
    clients: int
    cards: int
    messages: int
    median_ms: float
    p95_ms: float
    max_ms: float
    frame_interval_ms: float  # wall time between camera frames (the camera's real rate)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class CpuFigure:
    wall_s: float
    table_cpu_s: float
    simulator_cpu_s: float
    table_share_of_one_core: float
    table_share_of_a_pi: float  # of 4 cores, were a Pi core as fast as this machine's
    threads: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class _Clients:
    """WebSocket clients, each on its own thread, noting when each play's message arrives."""

    def __init__(self, url: str, count: int) -> None:
        from websockets.sync.client import connect

        self.arrivals: list[dict[tuple[int, str], float]] = [{} for _ in range(count)]
        self._open = ExitStack()  # websockets wants its sync connections used as context managers
        self._sockets = [self._open.enter_context(connect(url, open_timeout=20)) for _ in range(count)]
        self._threads = [
            threading.Thread(target=self._listen, args=(i,), name=f"ws-client-{i}", daemon=True) for i in range(count)
        ]
        for thread in self._threads:
            thread.start()

    def _listen(self, i: int) -> None:
        socket = self._sockets[i]
        try:
            for text in socket:
                now = time.monotonic()
                message = json.loads(text)
                event = message.get("event") or {}
                if event.get("type") == "play":
                    self.arrivals[i].setdefault((event["seat"], event["card"]), now)
        except Exception:  # closed at the end of the run
            return

    def close(self) -> None:
        self._open.close()
        for thread in self._threads:
            thread.join(timeout=5)


def run_table(clients: int, cards: int, seed: int = 1, game: str = "poley") -> tuple[LatencyFigure, CpuFigure]:
    """Play in real time until ``cards`` cards have been played; the latency and CPU figures."""
    rig = SimulatedTableRig(SimOptions(game=game, speed=1.0, seed=seed, port=free_port()))
    placed: list[tuple[int, str, float]] = []  # seat, card, table time it lies in place
    rig.start()
    original = rig.scene.put_down

    def put_down(seat: int, card: Any) -> float:
        at = original(seat, card)
        placed.append((seat, str(card), at))
        return at

    rig.scene.put_down = put_down  # type: ignore[method-assign]
    ws = _Clients(f"ws://{rig.options.host}:{rig.options.port}/ws", clients)
    try:
        rig.start_match()
        cpu_before, wall_before, render_before = _thread_cpu(), time.monotonic(), rig.camera.render_cpu_s
        people = threading.Thread(target=_play_until, args=(rig, cards), name="people", daemon=True)
        people.start()
        people.join()
        wall = time.monotonic() - wall_before
        cpu = _cpu_figure(_thread_cpu(), cpu_before, wall, rig.camera.render_cpu_s - render_before)
        time.sleep(1.0)  # the last messages arrive
        latency = _latency(clients, placed, rig.camera.delivered, ws.arrivals)
    finally:
        ws.close()
        rig.close()
    return latency, cpu


def _play_until(rig: SimulatedTableRig, cards: int) -> None:
    people = rig.people
    assert people is not None

    def enough() -> None:
        while people.stats.plays < cards and not people.stopped:
            time.sleep(0.1)
        people.stop()

    threading.Thread(target=enough, daemon=True).start()
    try:
        people.play(None)
    except Exception:  # stopped in the middle of waiting: the figures so far stand
        if people.stats.plays < cards:
            raise


def _latency(
    clients: int,
    placed: list[tuple[int, str, float]],
    delivered: Any,
    arrivals: list[dict[tuple[int, str], float]],
) -> LatencyFigure:
    frames = list(delivered)
    samples = []
    for seat, card, at in placed:
        still = next((wall for t, wall in frames if t >= at), None)
        if still is None:
            continue
        for client in arrivals:
            arrived = client.get((seat, card))
            if arrived is not None and arrived >= still:
                samples.append((arrived - still) * 1000)
    gaps = [b[1] - a[1] for a, b in itertools.pairwise(frames)]
    if not samples:
        raise RuntimeError("no play reached the WebSocket clients")
    samples.sort()
    return LatencyFigure(
        clients=clients,
        cards=len({(s, c) for s, c, _ in placed}),
        messages=len(samples),
        median_ms=round(statistics.median(samples), 1),
        p95_ms=round(samples[min(len(samples) - 1, int(0.95 * len(samples)))], 1),
        max_ms=round(samples[-1], 1),
        frame_interval_ms=round(statistics.median(gaps) * 1000, 1) if gaps else 0.0,
    )


def _thread_cpu() -> dict[int, tuple[str, float]]:
    """CPU seconds (user + system) of each thread of this process, by native id, with its name."""
    tick = os.sysconf("SC_CLK_TCK")
    names = {t.native_id: t.name for t in threading.enumerate()}
    out = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread ended
        tid = int(task.name)
        out[tid] = (names.get(tid, "other"), (int(fields[11]) + int(fields[12])) / tick)
    return out


def _cpu_figure(
    after: dict[int, tuple[str, float]], before: dict[int, tuple[str, float]], wall: float, render: float
) -> CpuFigure:
    by_name: dict[str, float] = {}
    for tid, (name, cpu) in after.items():
        spent = cpu - before.get(tid, (name, 0.0))[1]
        # The WebSocket clients' library runs a receiving and a keep-alive thread per client.
        page_side = name.startswith("ws-client") or name.endswith(("(recv_events)", "(keepalive)"))
        key = "ws-client" if page_side else name
        by_name[key] = by_name.get(key, 0.0) + spent
    simulator = sum(v for k, v in by_name.items() if k in SIMULATOR_THREADS) + render
    table = max(0.0, sum(by_name.values()) - simulator)
    by_name["camera drawing (simulator)"] = render
    return CpuFigure(
        wall_s=round(wall, 1),
        table_cpu_s=round(table, 2),
        simulator_cpu_s=round(simulator, 2),
        table_share_of_one_core=round(table / wall, 3),
        table_share_of_a_pi=round(table / wall / 4, 3),
        threads={k: round(v, 2) for k, v in sorted(by_name.items(), key=lambda kv: -kv[1])},
    )
