"""The camera: it opens and delivers frames of the size asked for, fast enough; the picture is
neither dark nor blurred; the mat's four markers are in view and every seat's zone lies inside
the frame, with cards large enough to read; a card put in each seat's zone is read.

The checks use the vision code the table runs (:mod:`vision.mat`, :mod:`vision.observe`), on
the frames of the camera the settings name; a check that fails stops the ones that need it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from controller.doctor.findings import Finding, Status, failed, passed, skipped
from controller.doctor.person import CardPlacer
from vision.indices import IndexDetector
from vision.mat import MatLayout, MatPose, find_mat
from vision.networks import ModelError
from vision.observe import CARD_MM, FrameObservation, Observer
from vision.scan import SMALL_INDEX_SHARE
from vision.sources import FrameSource, SourceError

GROUP = "camera"
FIRST_FRAMES = 12  # read to measure the frame rate (the first two are left out: a camera warms up)
MIN_FPS = 5.0  # the tracker wants a card still for a few frames: slower, and plays are missed
DARK, BRIGHT = 25.0, 230.0  # mean grey level (0-255) outside which the index reader fails
BLURRED = 10.0  # variance of the Laplacian at 960 px wide: a sharp mat gives hundreds
MIN_INDEX_PX = 10.0  # an index shorter than this in the frame cannot be read
EDGE_PX = 2.0  # a zone this close to the frame's edge is cut by it


@dataclass(frozen=True)
class CameraRig:
    spec: str  # as the settings name it: picamera2, uvc:0, folder:PATH, sim
    size: tuple[int, int]  # the size asked for (camera.width, camera.height)
    layout: MatLayout
    open: Callable[[], FrameSource]
    detector: Callable[[], IndexDetector]
    live: bool  # a camera, whose size and frame rate are its own (not recorded frames)


def check_camera(rig: CameraRig, person: CardPlacer, wait_s: float) -> Iterator[Finding]:
    try:
        source = rig.open()
    except SourceError as exc:
        yield failed(GROUP, "opens", f"{rig.spec}: {exc}", _open_fix(rig.spec))
        return
    try:
        yield passed(GROUP, "opens", _described(rig.spec, source))
        yield from _look(rig, source, person, wait_s)
    finally:
        source.close()


def _look(rig: CameraRig, source: FrameSource, person: CardPlacer, wait_s: float) -> Iterator[Finding]:
    try:
        frames, fps = _first_frames(source)
    except SourceError as exc:
        yield failed(GROUP, "delivers frames", str(exc), "check the camera's cable; restart it (unplug it, or reboot)")
        return
    if not frames:
        yield failed(
            GROUP, "delivers frames", f"{rig.spec} gave no frame", "give it a camera or frames that show the mat"
        )
        return
    frame = frames[-1]
    yield _size(rig, frame)
    yield _rate(rig, fps)
    light = _exposure(frame)
    yield light
    if light.status is Status.FAIL:
        return
    yield _focus(frame)
    pose = find_mat(frame, rig.layout)
    yield _markers(pose)
    if pose is None or pose.markers_seen < len(rig.layout.marker_corners_mm()):
        return
    zones = _zones_fit(rig.layout, pose, frame.shape)
    yield zones
    if zones.status is not Status.FAIL:
        yield from _cards_read(rig, _frames(frame, source, wait_s), person)


def _described(spec: str, source: FrameSource) -> str:
    describe = getattr(source, "describe", None)  # the cameras say what they were set to
    return f"{spec}: {describe()}" if callable(describe) else spec


def _open_fix(spec: str) -> str:
    if spec == "picamera2":
        return (
            "check the ribbon cable at both ends (contacts towards the board); `rpicam-hello --list-cameras` lists it"
        )
    if spec.startswith("uvc:"):
        return "plug the camera in; `v4l2-ctl --list-devices` lists it; the croupier user must be in the video group"
    return "set camera.source to picamera2, uvc:N, file:PATH or folder:PATH (or sim)"


def _first_frames(source: FrameSource) -> tuple[list[np.ndarray], float | None]:
    """Up to FIRST_FRAMES frames, and the rate the later ones came at (None: too few to tell)."""
    frames: list[np.ndarray] = []
    started = 0.0
    while len(frames) < FIRST_FRAMES:
        frame = source.read()
        if frame is None:
            break
        frames.append(frame)
        if len(frames) == 2:
            started = time.monotonic()
    counted = len(frames) - 2
    elapsed = time.monotonic() - started
    return frames, (counted / elapsed if counted > 0 and elapsed > 0 else None)


def _size(rig: CameraRig, frame: np.ndarray) -> Finding:
    h, w = frame.shape[:2]
    if rig.live and (w, h) != rig.size:
        return failed(
            GROUP,
            "resolution",
            f"frames are {w}x{h}, not the {rig.size[0]}x{rig.size[1]} asked for",
            "set camera.width and camera.height to a size the camera offers (`v4l2-ctl --list-formats-ext`)",
        )
    return passed(GROUP, "resolution", f"{w}x{h}")


def _rate(rig: CameraRig, fps: float | None) -> Finding:
    if fps is None:
        return skipped(GROUP, "frame rate", "too few frames to measure it")
    if rig.live and fps < MIN_FPS:
        return failed(
            GROUP,
            "frame rate",
            f"{fps:.1f} frames a second (at least {MIN_FPS:g} are needed)",
            "lower the resolution or the exposure time; a USB camera wants a USB 3 port (blue) to itself",
        )
    return passed(
        GROUP, "frame rate", f"{fps:.1f} frames a second" + ("" if rig.live else " (as fast as they are read)")
    )


def _exposure(frame: np.ndarray) -> Finding:
    grey = _grey(frame)
    mean = float(grey.mean())
    if float(grey.max()) < DARK:
        return failed(
            GROUP,
            "exposure",
            f"the frames are black (brightest pixel {int(grey.max())} of 255)",
            "take the lens cap off, light the table, or lengthen the exposure (camera.exposure_us)",
        )
    if mean < DARK:
        return failed(
            GROUP, "exposure", f"too dark (mean {mean:.0f} of 255)", "light the table, or lengthen camera.exposure_us"
        )
    if mean > BRIGHT:
        return failed(
            GROUP,
            "exposure",
            f"too bright (mean {mean:.0f} of 255)",
            "shorten camera.exposure_us, or keep direct light off the mat",
        )
    return passed(GROUP, "exposure", f"mean brightness {mean:.0f} of 255")


def _focus(frame: np.ndarray) -> Finding:
    sharpness = float(cv2.Laplacian(_grey(frame), cv2.CV_64F).var())
    if sharpness < BLURRED:
        return Finding(
            GROUP,
            "focus",
            Status.WARN,
            f"the picture looks blurred (sharpness {sharpness:.0f}; a focused mat gives hundreds)",
            "turn the lens's focus ring until the mat's markers are crisp; Camera Module 3 focuses by itself",
        )
    return passed(GROUP, "focus", f"sharpness {sharpness:.0f}")


def _grey(frame: np.ndarray) -> np.ndarray:
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    scale = min(1.0, 960 / grey.shape[1])
    return cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else grey


def _markers(pose: MatPose | None) -> Finding:
    if pose is None:
        return failed(
            GROUP,
            "mat in view",
            "the mat is not in view (fewer than two of its corner markers are seen)",
            "lay the printed mat (`croupier mat`) under the camera, flat, its four corner markers uncovered",
        )
    seen = pose.markers_seen
    if seen < 4:
        return failed(
            GROUP,
            "mat in view",
            f"{seen} of the mat's 4 corner markers are in view",
            "move or raise the camera until the whole mat is in the frame, and uncover its corners",
        )
    return passed(GROUP, "mat in view", "all 4 corner markers")


def _zones_fit(layout: MatLayout, pose: MatPose, shape: tuple[int, ...]) -> Finding:
    h, w = shape[:2]
    cut = []
    for zone in layout.zones:
        x0, y0, x1, y1 = zone.box_mm
        corners = pose.to_frame(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
        if (corners < EDGE_PX).any() or (corners[:, 0] > w - EDGE_PX).any() or (corners[:, 1] > h - EDGE_PX).any():
            cut.append(zone.name)
    if cut:
        return failed(
            GROUP, "zones fit", f"the frame cuts {', '.join(cut)}", "centre the camera over the mat, or raise it"
        )
    index_px = SMALL_INDEX_SHARE * CARD_MM[1]  # a deck of small indices * pose.px_per_mm((w / 2, h / 2))
    if index_px < MIN_INDEX_PX:
        return failed(
            GROUP,
            "zones fit",
            f"a small card index is {index_px:.0f} pixels tall in the frame (at least {MIN_INDEX_PX:g} are needed)",
            "lower the camera, or raise camera.width and camera.height",
        )
    return passed(GROUP, "zones fit", f"every zone is in the frame; a small card index is {index_px:.0f} pixels tall")


def _frames(last: np.ndarray, source: FrameSource, wait_s: float) -> Iterator[np.ndarray]:
    """The last frame read, then the camera's next ones until there are no more or the time is up
    (recorded frames end: those already read for the other checks are not lost)."""
    yield last
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and (frame := source.read()) is not None:
        yield frame


def _cards_read(rig: CameraRig, frames: Iterator[np.ndarray], person: CardPlacer) -> Iterator[Finding]:
    seats = [z.name for z in rig.layout.zones if z.seat is not None]
    if person.place_cards(seats) is None:
        yield skipped(GROUP, "cards read", "nobody at the table to put cards down (run it in a terminal there)")
        return
    try:
        observer = Observer(rig.layout, rig.detector())
    except ModelError as exc:
        yield failed(GROUP, "cards read", f"the card reader cannot be loaded: {exc}", "reinstall croupier")
        return
    best = _watch_zones(frames, observer, seats)
    unread = [zone for zone in seats if best.get(zone, (None, 0.0))[0] is None]
    if not unread:
        yield _judged({zone: str(best[zone][0]) for zone in seats}, person)
        return
    yield failed(
        GROUP,
        "cards read",
        "; ".join(_unread(zone, best.get(zone)) for zone in unread),
        "put each card face up, whole, inside its zone; light the mat evenly, without glare on the cards",
    )


def _judged(reads: dict[str, str], person: CardPlacer) -> Finding:
    """Every zone read: right, unless the person who put the cards down says otherwise."""
    text = ", ".join(f"{zone}: {card}" for zone, card in reads.items())
    if person.read_right(reads) is False:
        return failed(
            GROUP,
            "cards read",
            f"read {text}, which are not the cards put down",
            "light the mat evenly, without glare; focus the camera; lower it if the indices are small",
        )
    return passed(GROUP, "cards read", text)


def _watch_zones(
    frames: Iterator[np.ndarray], observer: Observer, seats: list[str]
) -> dict[str, tuple[str | None, float]]:
    """Observe frames until every seat's zone holds a card read or the frames end: for each zone,
    the card read there (None: seen, not read) and how sure the reader was."""
    best: dict[str, tuple[str | None, float]] = {}
    for frame in frames:
        _keep_best(best, observer.observe(frame), seats)
        if all(best.get(zone, (None, 0.0))[0] is not None for zone in seats):
            break
    return best


def _keep_best(best: dict[str, tuple[str | None, float]], seen: FrameObservation, seats: list[str]) -> None:
    for card in seen.cards:
        if card.zone not in seats or card.zone in seen.busy:
            continue
        name = None if card.card is None else str(card.card)
        held = best.get(card.zone)
        if held is None or (held[0] is None and (name is not None or card.confidence > held[1])):
            best[card.zone] = (name, card.confidence)


def _unread(zone: str, best: tuple[str | None, float] | None) -> str:
    if best is None:
        return f"{zone}: no card seen"
    return f"{zone}: a card is there but its index was not read (reader's confidence {best[1]:.2f})"
