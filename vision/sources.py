"""Where frames come from: the Pi camera, an OpenCV device, a video file or a folder of images.

Every source gives BGR ``uint8`` frames through :meth:`FrameSource.read`: ``None`` when a file or
folder has no more frames; :class:`SourceError` (naming the problem) when a camera is missing or
stops delivering. Cameras are set to fixed exposure and white balance where they allow it, so that
the light the classifier sees does not drift from frame to frame. The simulator
(``simulators.camera.SimulatedCamera``) has the same ``read``/``close`` shape; the controller, the
composition root, opens it for the spec ``sim``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
_FAILED_READS = 10  # consecutive failed grabs before a live camera counts as stopped


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


class OpenCVSource:
    """A camera (``uvc:0``) or a video file (``file:clip.mp4``) through ``cv2.VideoCapture``."""

    def __init__(self, target: int | Path, size: tuple[int, int] | None = None) -> None:
        self._live = isinstance(target, int)
        if not self._live and not Path(target).is_file():
            raise SourceError(f"{target}: no such video file")
        # OpenCV logs its own warnings for a missing device; the error below says it once, clearly.
        previous = cv2.utils.logging.getLogLevel()
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
        try:
            self._capture = cv2.VideoCapture(target if self._live else str(target))
        finally:
            cv2.utils.logging.setLogLevel(previous)
        if not self._capture.isOpened():
            raise SourceError(f"camera {target} cannot be opened (is it connected, and is it free?)")
        if self._live:
            self._fix_camera(size)
        self._failures = 0

    def _fix_camera(self, size: tuple[int, int] | None) -> None:
        cap = self._capture
        if size is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        # V4L2: 1 is manual exposure. Not every camera obeys; the log says which did not.
        for prop, value, name in (
            (cv2.CAP_PROP_AUTO_EXPOSURE, 1, "exposure"),
            (cv2.CAP_PROP_AUTO_WB, 0, "white balance"),
            (cv2.CAP_PROP_AUTOFOCUS, 0, "focus"),
        ):
            if not cap.set(prop, value):
                log.warning("this camera keeps automatic %s", name)

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

    def __init__(self, size: tuple[int, int] = (1920, 1080), exposure_us: int = 8000, gain: float = 2.0) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as exc:
            raise SourceError("picamera2 is not installed (on the Pi: apt install python3-picamera2)") from exc
        try:
            self._camera: Any = Picamera2()
            config = self._camera.create_video_configuration(main={"size": size, "format": "RGB888"})
            self._camera.configure(config)
            # Fixed exposure, gain and white balance: the light must not drift between frames.
            self._camera.set_controls(
                {"AeEnable": False, "AwbEnable": False, "ExposureTime": exposure_us, "AnalogueGain": gain}
            )
            self._camera.start()
        except (RuntimeError, IndexError) as exc:
            raise SourceError(f"the Pi camera cannot be opened: {exc}") from exc

    def read(self) -> np.ndarray | None:
        try:
            frame = self._camera.capture_array("main")
        except RuntimeError as exc:
            raise SourceError(f"the Pi camera stopped delivering frames: {exc}") from exc
        return np.ascontiguousarray(frame[..., :3])  # picamera2's "RGB888" is BGR in memory

    def close(self) -> None:
        self._camera.close()


def open_source(spec: str, size: tuple[int, int] | None = None) -> FrameSource:
    """``picamera2``, ``uvc:N``, ``file:PATH`` (a video) or ``folder:PATH`` (images)."""
    kind, _, rest = spec.partition(":")
    if spec == "picamera2":
        return PiCamera(size or (1920, 1080))
    if kind == "uvc" and rest.isdigit():
        return OpenCVSource(int(rest), size)
    if kind == "file" and rest:
        return OpenCVSource(Path(rest))
    if kind == "folder" and rest:
        return ImageFolder(Path(rest))
    raise SourceError(f"unknown camera source {spec!r} (use picamera2, uvc:N, file:PATH, folder:PATH or sim)")
