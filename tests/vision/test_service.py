"""The camera service: frames to seat plays, the referee's refusals, and a camera that stops."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import numpy as np

from engine.cards import Card
from simulators.camera import Scene, render
from simulators.live_scene import SceneCamera, TableScene, WorldClock
from simulators.scenes import tilted_view
from vision.index_reads import IndexRead, Look
from vision.mat import MatLayout
from vision.observe import Observer
from vision.scan import default_detector
from vision.service import SeatPlay, VisionService, ZonesCleared
from vision.sources import SourceError
from vision.tracker import Tracker

LAYOUT = MatLayout.create(4, "a2")


def _scene(seed: int = 1) -> TableScene:
    view = tilted_view(np.random.default_rng(seed), (1280, 720), "felt", LAYOUT)
    return TableScene(view, LAYOUT, WorldClock(10.0), seed)


class Recorder:
    def __init__(self) -> None:
        self.events: list[object] = []
        self.health: list[tuple[bool, str]] = []
        self.changed = threading.Event()

    def event(self, e: object) -> None:
        self.events.append(e)
        self.changed.set()

    def healthy(self, ok: bool, message: str) -> None:
        self.health.append((ok, message))
        self.changed.set()

    def wait(self, check, seconds: float = 30.0) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + seconds
        while not check():
            assert time.monotonic() < deadline, f"not seen: events {self.events}, health {self.health}"
            self.changed.wait(0.1)
            self.changed.clear()


def _service(source, recorder: Recorder, stall_s: float = 3.0) -> VisionService:  # type: ignore[no-untyped-def]
    seats = [z.name for z in LAYOUT.zones if z.seat is not None]
    return VisionService(source, Observer(LAYOUT), Tracker(seats), recorder.event, recorder.healthy, stall_s)


def test_cards_put_down_become_seat_plays_and_a_refused_card_lets_the_seat_play_again():
    scene = _scene()
    recorder = Recorder()
    service = _service(SceneCamera(scene, speed=1000.0), recorder)
    service.start()
    try:
        scene.put_down(1, Card.from_str("QH"))
        recorder.wait(lambda: any(isinstance(e, SeatPlay) for e in recorder.events))
        assert recorder.events == [SeatPlay(1, Card.from_str("QH"), recorder.events[0].frame)]  # type: ignore[attr-defined]
        service.withdraw(1)  # the referee refused it: the seat picks it up and plays another
        scene.take_back(1)
        scene.clock.sleep(1.5, wall_limit_s=20)
        scene.put_down(1, Card.from_str("7D"))
        recorder.wait(lambda: len(recorder.events) >= 2)
        assert recorder.events[1] == SeatPlay(1, Card.from_str("7D"), recorder.events[1].frame)  # type: ignore[attr-defined]
        scene.gather(2)
        recorder.wait(lambda: any(isinstance(e, ZonesCleared) for e in recorder.events))
        assert [type(e) for e in recorder.events] == [SeatPlay, SeatPlay, ZonesCleared]
    finally:
        service.stop()


class HangingSource:
    """A camera whose driver stops answering: ``read`` blocks until released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.frame = np.zeros((720, 1280, 3), np.uint8)
        self.reads = 0

    def read(self) -> np.ndarray | None:
        self.reads += 1
        if self.reads > 3:
            self.release.wait()
        return self.frame

    def close(self) -> None:
        self.release.set()


def test_a_camera_that_hangs_is_noticed_by_the_watchdog_and_its_return_too():
    source = HangingSource()
    recorder = Recorder()
    service = _service(source, recorder, stall_s=0.5)
    service.start()
    try:
        recorder.wait(lambda: bool(recorder.health), seconds=10)
        ok, message = recorder.health[0]
        assert not ok and "stopped delivering frames" in message
        source.release.set()
        recorder.wait(lambda: len(recorder.health) >= 2, seconds=10)
        assert recorder.health[1][0] is True
    finally:
        service.stop()


class FailingSource:
    def __init__(self) -> None:
        self.calls = 0

    def read(self) -> np.ndarray | None:
        self.calls += 1
        raise SourceError("camera 0 was unplugged")

    def close(self) -> None:
        pass


def test_a_failing_camera_is_reported_once_with_its_reason_and_never_crashes_the_service():
    recorder = Recorder()
    source = FailingSource()
    service = _service(source, recorder)
    service.start()
    try:
        recorder.wait(lambda: bool(recorder.health))
        time.sleep(1.2)
        assert recorder.health == [(False, "the camera failed: camera 0 was unplugged")]
        assert source.calls >= 2  # it keeps trying
    finally:
        service.stop()


def test_the_simulated_camera_renders_the_same_picture_while_nothing_moves():
    scene = _scene(3)
    camera = SceneCamera(scene, speed=1000.0)
    first, second = camera.read(), camera.read()
    assert first is not None and second is not None and np.array_equal(first, second)
    scene.put_down(0, Card.from_str("AS"))
    moving = camera.read()
    assert moving is not None and not np.array_equal(moving, second)
    assert scene.scene_at(scene.clock.now()).arms  # a hand brings the card in
    assert isinstance(scene.scene_at(scene.clock.now() + 5), Scene)


class FirstLookFails:
    """A detector that finds indices but can read none of them the first time it is asked (a
    hand was leaving the card), and reads properly after that."""

    def __init__(self) -> None:
        self.inner = default_detector()
        self.calls = 0

    def detect_each(self, looks: list[Look]) -> list[list[IndexRead]]:
        self.calls += 1
        found = self.inner.detect_each(looks)
        if self.calls == 1:
            return [[replace(r, card=None, score=0.1, candidates=()) for r in reads] for reads in found]
        return found


def test_a_card_left_unread_is_read_again_on_the_next_identical_frame():
    scene = _scene(5)
    scene.put_down(2, Card.from_str("9D"))
    frame, _ = render(scene.view, scene.scene_at(10.0))
    observer = Observer(LAYOUT, FirstLookFails())  # type: ignore[arg-type]
    first = observer.observe(frame)
    again = observer.observe(frame.copy())  # a still frame: the unread card is looked at again
    assert [o.card for o in first.cards] == [None]
    assert [o.card for o in again.cards] == [Card.from_str("9D")]
    once_more = observer.observe(frame.copy())  # read now: the still frame is answered from before
    assert [o.card for o in once_more.cards] == [Card.from_str("9D")] and observer.reused == 1


def test_a_card_left_unread_under_a_hand_waits_for_the_hand_to_leave(monkeypatch):
    """A card whose zone has a hand over it is not read again until the zone is quiet (the tracker
    ignores that zone meanwhile); then it is read once the hand has left."""
    scene = _scene(5)
    scene.put_down(2, Card.from_str("9D"))
    frame, _ = render(scene.view, scene.scene_at(10.0))
    detector = FirstLookFails()
    observer = Observer(LAYOUT, detector)  # type: ignore[arg-type]
    first = observer.observe(frame)
    assert [o.card for o in first.cards] == [None] and detector.calls == 1
    zone = first.cards[0].zone
    assert zone is not None
    quiet = observer._busy_zones
    monkeypatch.setattr(observer, "_busy_zones", lambda *a: quiet(*a) | {zone})  # a hand over it
    for _ in range(5):
        held = observer.observe(frame.copy())
        assert [o.card for o in held.cards] == [None] and zone in held.busy and detector.calls == 1
    monkeypatch.setattr(observer, "_busy_zones", quiet)  # the hand has gone
    again = observer.observe(frame.copy())
    assert [o.card for o in again.cards] == [Card.from_str("9D")] and detector.calls == 2


class TurnSpy(Tracker):
    """A tracker that notes the turn order each frame was given."""

    def __init__(self, seats: list[str]) -> None:
        super().__init__(seats)
        self.turns: list[list[str]] = []

    def update(self, obs, allowed=None, turn=None):  # type: ignore[no-untyped-def]
        self.turns.append(list(turn or ()))
        return super().update(obs, allowed, turn)


def test_the_referees_turn_order_reaches_the_tracker_as_zones():
    recorder = Recorder()
    spy = TurnSpy([z.name for z in LAYOUT.zones if z.seat is not None])
    service = VisionService(SceneCamera(_scene(), speed=1000.0), Observer(LAYOUT), spy, recorder.event)
    service.set_turn([2, 3, 0, 1])
    service.start()
    try:
        recorder.wait(lambda: len(spy.turns) >= 2)
        assert spy.turns[-1] == ["seat 3", "seat 4", "seat 1", "seat 2"]
        service.set_turn(None)
        seen = len(spy.turns)
        recorder.wait(lambda: len(spy.turns) > seen + 1)
        assert spy.turns[-1] == []
    finally:
        service.stop()
