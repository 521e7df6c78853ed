"""Where frames come from: the Pi camera, an OpenCV device, a video file, a folder of images or one
still image.

Every source gives BGR ``uint8`` frames through :meth:`FrameSource.read`: ``None`` when a file or
folder has no more frames; :class:`SourceError` (naming the problem) when a camera is missing or
stops delivering. Cameras are set to a fixed size, frame rate, exposure and white balance where
they allow it, so that the light the classifier sees does not drift from frame to frame; each
says what it was set to (``describe``). The simulator
(``simulators.camera.SimulatedCamera``) has the same ``read``/``close`` shape; the controller, the
composition root, opens it for the spec ``sim``.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
_FAILED_READS = 10  # consecutive failed grabs before a live camera counts as stopped
_V4L2_EXPOSURE_UNIT_US = 100  # V4L2's absolute exposure counts hundreds of microseconds
_AF_CONTINUOUS = 2  # libcamera's AfModeEnum.Continuous (Camera Module 3), without importing libcamera


class SourceError(RuntimeError):
    """A frame source that cannot be opened or has stopped delivering frames."""


class FrameSource(Protocol):
    def read(self) -> np.ndarray | None: ...

    def close(self) -> None: ...


class ImageFolder:
    """The images of a folder, in name order."""

    def __init__(self, folder: Path) -> None:
        if not folder.is_dir():
            raise SourceError(f"{folder}: no such folder")
        self._paths = iter(sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES))

    def read(self) -> np.ndarray | None:
        path = next(self._paths, None)
        if path is None:
            return None
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise SourceError(f"{path}: not an image")
        return frame

    def close(self) -> None:
        self._paths = iter(())


class StillImage:
    """One image, again and again at ``fps`` (a camera's stand-in: a test, a demonstration)."""

    def __init__(self, path: Path, fps: float | None = None) -> None:
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
        if frame is None:
            raise SourceError(f"{path}: no such image" if not path.is_file() else f"{path}: not an image")
        self._frame, self._every_s, self._due = frame, 1.0 / fps if fps else 0.0, time.monotonic()

    def read(self) -> np.ndarray | None:
        delay = self._due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        self._due = max(self._due, time.monotonic() - self._every_s) + self._every_s
        return self._frame.copy()

    def close(self) -> None:
        pass

    def describe(self) -> str:
        h, w = self._frame.shape[:2]
        return f"one still image, {w}x{h}" + (f", {1 / self._every_s:g} frames a second" if self._every_s else "")


class OpenCVSource:
    """A camera (``uvc:0``, through V4L2 on Linux) or a video file (``file:clip.mp4``) through
    ``cv2.VideoCapture``."""

    def __init__(
        self,
        target: int | Path,
        size: tuple[int, int] | None = None,
        fps: float | None = None,
        exposure_us: int | None = None,
    ) -> None:
        self._live = isinstance(target, int)
        if not self._live and not Path(target).is_file():
            raise SourceError(f"{target}: no such video file")
        # OpenCV logs its own warnings for a missing device; the error below says it once, clearly.
        previous = cv2.utils.logging.getLogLevel()
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
        try:
            self._capture = cv2.VideoCapture(target, _camera_backend()) if self._live else cv2.VideoCapture(str(target))
        finally:
            cv2.utils.logging.setLogLevel(previous)
        if not self._capture.isOpened():
            raise SourceError(f"camera {target} cannot be opened (is it connected, and is it free?)")
        self._kept: list[str] = []
        if self._live:
            self._fix_camera(size, fps, exposure_us)
        self._failures = 0

    def _fix_camera(self, size: tuple[int, int] | None, fps: float | None, exposure_us: int | None) -> None:
        cap = self._capture
        # MJPG first: most USB cameras give 720p at full rate only compressed (USB 2's bandwidth).
        cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*"MJPG"))
        if size is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        if fps is not None:
            cap.set(cv2.CAP_PROP_FPS, fps)
        # V4L2: 1 is manual exposure. Not every camera obeys; the log (and describe) say which did not.
        fixed = [(cv2.CAP_PROP_AUTO_EXPOSURE, 1, "exposure")]
        if exposure_us is not None:
            fixed.append((cv2.CAP_PROP_EXPOSURE, max(1, round(exposure_us / _V4L2_EXPOSURE_UNIT_US)), "exposure time"))
        fixed += [(cv2.CAP_PROP_AUTO_WB, 0, "white balance"), (cv2.CAP_PROP_AUTOFOCUS, 0, "focus")]
        for prop, value, name in fixed:
            if not cap.set(prop, value):
                log.warning("this camera keeps automatic %s", name)
                self._kept.append(name)

    def describe(self) -> str:
        cap = self._capture
        if not self._live:
            return "a video file"
        size = f"{int(cap.get(cv2.CAP_PROP_FRAME_WIDTH))}x{int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))}"
        text = f"{cap.getBackendName()}, {size}, {cap.get(cv2.CAP_PROP_FPS):g} frames a second"
        return text + (f"; it keeps automatic {', '.join(self._kept)}" if self._kept else "; fixed exposure")

    def read(self) -> np.ndarray | None:
        ok, frame = self._capture.read()
        if ok and frame is not None:
            self._failures = 0
            return frame
        if not self._live:
            return None  # the end of the file
        self._failures += 1
        if self._failures >= _FAILED_READS:
            raise SourceError(f"the camera stopped delivering frames ({self._failures} failed reads)")
        return self.read()

    def close(self) -> None:
        self._capture.release()


class PiCamera:
    """The Raspberry Pi camera through picamera2 (from apt on the Pi; imported only when used)."""

    def __init__(
        self, size: tuple[int, int] = (1920, 1080), exposure_us: int = 8000, gain: float = 2.0, fps: float = 10.0
    ) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as exc:
            raise SourceError("picamera2 is not installed (on the Pi: apt install python3-picamera2)") from exc
        try:
            self._camera: Any = Picamera2()
            config = self._camera.create_video_configuration(main={"size": size, "format": "RGB888"})
            self._camera.configure(config)
            # Fixed exposure, gain, white balance and frame rate: the light must not drift between frames.
            frame_us = round(1_000_000 / fps)
            controls = {
                "AeEnable": False,
                "AwbEnable": False,
                "ExposureTime": exposure_us,
                "AnalogueGain": gain,
                "FrameDurationLimits": (frame_us, frame_us),
            }
            self._autofocus = "AfMode" in self._camera.camera_controls  # Camera Module 3 focuses itself
            if self._autofocus:
                controls["AfMode"] = _AF_CONTINUOUS
            self._camera.set_controls(controls)
            self._camera.start()
        except (RuntimeError, IndexError) as exc:
            raise SourceError(f"the Pi camera cannot be opened: {exc}") from exc
        self._settings = f"{size[0]}x{size[1]}, {fps:g} frames a second, exposure {exposure_us} us, gain {gain:g}"

    def read(self) -> np.ndarray | None:
        try:
            frame = self._camera.capture_array("main")
        except RuntimeError as exc:
            raise SourceError(f"the Pi camera stopped delivering frames: {exc}") from exc
        return np.ascontiguousarray(frame[..., :3])  # picamera2's "RGB888" is BGR in memory

    def close(self) -> None:
        self._camera.close()

    def describe(self) -> str:
        return f"picamera2, {self._settings}" + (", continuous autofocus" if self._autofocus else "")


def _camera_backend() -> int:
    """OpenCV's V4L2 backend on Linux (it obeys the settings above; GStreamer's may not), else its choice."""
    return int(cv2.CAP_V4L2) if sys.platform.startswith("linux") else int(cv2.CAP_ANY)


def open_source(
    spec: str, size: tuple[int, int] | None = None, fps: float | None = None, exposure_us: int | None = None
) -> FrameSource:
    """``picamera2``, ``uvc:N``, ``file:PATH`` (a video), ``folder:PATH`` (images) or ``still:PATH``
    (one image, again and again); ``size``, ``fps`` and ``exposure_us`` fix a camera's settings."""
    kind, _, rest = spec.partition(":")
    if spec == "picamera2":
        return PiCamera(size or (1920, 1080), exposure_us or 8000, fps=fps or 10.0)
    if kind == "uvc" and rest.isdigit():
        return OpenCVSource(int(rest), size, fps, exposure_us)
    if kind == "file" and rest:
        return OpenCVSource(Path(rest))
    if kind == "folder" and rest:
        return ImageFolder(Path(rest))
    if kind == "still" and rest:
        return StillImage(Path(rest), fps)
    raise SourceError(
        f"unknown camera source {spec!r} (use picamera2, uvc:N, file:PATH, folder:PATH, still:PATH or sim)"
    )
