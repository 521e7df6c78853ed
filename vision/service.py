"""The camera at the table: a capture thread from frames to play events, with a watchdog.

One thread reads frames from a :class:`~vision.sources.FrameSource`, observes each on the mat
(:class:`~vision.observe.Observer`) and votes over them (:class:`~vision.tracker.Tracker`); every
event the tracker settles goes to ``on_event`` with the seat it belongs to. The table's
knowledge comes back in through :meth:`VisionService.set_allowed` (the cards each seat may still
play: the tracker's prior), :meth:`VisionService.set_turn` (the order the seats are due to play
in, for cards first seen together) and :meth:`VisionService.withdraw` (the referee refused a card).

A camera that stops delivering frames, whether its ``read`` returns nothing, fails, or hangs, is
reported to ``on_health`` once (``ok=False`` with the reason) and once more when frames come back,
so the table can pause with a clear message and go on by itself.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from engine.cards import Card
from vision.observe import Observer
from vision.sources import FrameSource, SourceError
from vision.tracker import CardPlayed, Event, Tracker, TrickCleared

log = logging.getLogger(__name__)

STALL_S = 3.0  # no frame for this long: the camera has stopped
RETRY_S = 0.5  # a source that gave nothing is asked again after this long


@dataclass(frozen=True, slots=True)
class SeatPlay:
    """A card settled in a seat's zone (``seat`` 0-based), as the table needs it."""

    seat: int
    card: Card
    frame: int


@dataclass(frozen=True, slots=True)
class ZonesCleared:
    """The trick was gathered: every seat zone is empty again."""

    frame: int
    cards: tuple[Card, ...]


TableEvent = SeatPlay | ZonesCleared


class VisionService:
    def __init__(
        self,
        source: FrameSource,
        observer: Observer,
        tracker: Tracker,
        on_event: Callable[[TableEvent], None] = lambda event: None,  # usually connected afterwards
        on_health: Callable[[bool, str], None] = lambda ok, message: None,
        stall_s: float = STALL_S,
    ) -> None:
        self.source = source
        self.observer = observer
        self.tracker = tracker
        self.on_event = on_event
        self.on_health = on_health
        self.stall_s = stall_s
        self.frames = 0
        self._zone_of_seat = {z.seat: z.name for z in observer.layout.zones if z.seat is not None}
        self._seat_of_zone = {name: seat for seat, name in self._zone_of_seat.items()}
        self._allowed: dict[str, set[Card]] | None = None
        self._turn: list[str] = []  # zones in the order their seats are due to play
        self._withdrawn: list[str] = []  # zones to withdraw, applied on the capture thread
        self._complete = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._last_frame = time.monotonic()
        self._healthy = True
        self._threads: list[threading.Thread] = []

    # --- from the table (any thread) -------------------------------------------------------

    def set_allowed(self, allowed: dict[int, set[Card]] | None, dealt: dict[int, set[Card]] | None = None) -> None:
        """The cards each seat may still play (None: no prior): the tracker ignores reads outside
        them. ``dealt``, the cards each seat had this hand (``allowed`` when not given), is the
        reader's prior for that seat's zone: a card lying there is one of them, the ones it
        played included, so a card played stays read as itself."""
        with self._lock:
            self._allowed = self._by_zone(allowed)
        # One new dict, assigned at once: the capture thread sees the old one or this one.
        self.observer.allowed = self._by_zone(allowed if dealt is None else dealt)

    def _by_zone(self, by_seat: dict[int, set[Card]] | None) -> dict[str, set[Card]] | None:
        return None if by_seat is None else {self._zone_of_seat[s]: set(c) for s, c in by_seat.items()}

    def set_turn(self, seats: Sequence[int] | None) -> None:
        """The seats in the order they are due to play, the one to play first (None: unknown)."""
        zones = [self._zone_of_seat[s] for s in seats or () if s in self._zone_of_seat]
        with self._lock:
            self._turn = zones

    def withdraw(self, seat: int) -> None:
        """The referee refused (or an undo took back) the card that seat played."""
        with self._lock:
            self._withdrawn.append(self._zone_of_seat[seat])

    def trick_complete(self) -> None:
        """The referee says the trick is complete (the tracker lets the next one begin)."""
        with self._lock:
            self._complete = True

    # --- the threads ------------------------------------------------------------------------

    def start(self) -> None:
        self._stop.clear()
        self._last_frame = time.monotonic()
        for target, name in ((self._capture, "camera-capture"), (self._watch, "camera-watchdog")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=5.0)
        self._threads.clear()
        try:
            self.source.close()
        except Exception:  # closing a broken camera must not stop the table's shutdown
            log.exception("closing the camera failed")

    def _capture(self) -> None:
        while not self._stop.is_set():
            try:
                frame = self.source.read()
            except SourceError as exc:
                self._unhealthy(f"the camera failed: {exc}")
                self._stop.wait(RETRY_S)
                continue
            except Exception as exc:  # a driver's own error: the table must not crash
                log.exception("reading a frame failed")
                self._unhealthy(f"the camera failed: {exc}")
                self._stop.wait(RETRY_S)
                continue
            if frame is None:
                self._unhealthy("the camera stopped delivering frames")
                self._stop.wait(RETRY_S)
                continue
            self._last_frame = time.monotonic()
            self._healthy_again()
            self._process(frame)

    def _process(self, frame: np.ndarray) -> None:
        try:
            observation = self.observer.observe(frame)
        except Exception:  # one bad frame (wrong shape, a driver glitch) is skipped, never fatal
            log.exception("observing a frame failed; skipped")
            return
        self.frames += 1
        with self._lock:
            allowed, turn, withdrawn, self._withdrawn = self._allowed, self._turn, self._withdrawn, []
            complete, self._complete = self._complete, False
        for zone in withdrawn:
            self.tracker.withdraw(zone)
        if complete:
            self.tracker.trick_complete()
        for event in self.tracker.update(observation, allowed, turn):
            self._emit(event)

    def _emit(self, event: Event) -> None:
        if isinstance(event, CardPlayed):
            out: TableEvent = SeatPlay(self._seat_of_zone[event.seat], event.card, event.frame)
        elif isinstance(event, TrickCleared):
            out = ZonesCleared(event.frame, event.cards)
        else:  # pragma: no cover - the tracker has no other events
            return
        try:
            self.on_event(out)
        except Exception:  # the table's handler failing must not stop the camera
            log.exception("handling %s failed", out)

    def _watch(self) -> None:
        """A read that hangs reports nothing: the watchdog notices the silence."""
        while not self._stop.wait(min(0.25, self.stall_s / 4)):
            silent = time.monotonic() - self._last_frame
            if silent > self.stall_s:
                self._unhealthy(f"the camera stopped delivering frames ({silent:.0f} s without one)")

    def _unhealthy(self, reason: str) -> None:
        with self._lock:
            was, self._healthy = self._healthy, False
        if was:
            log.warning("%s", reason)
            self.on_health(False, reason)

    def _healthy_again(self) -> None:
        with self._lock:
            was, self._healthy = self._healthy, True
        if not was:
            log.info("the camera delivers frames again")
            self.on_health(True, "the camera delivers frames again")
