"""The camera sources the table opens (vision/sources.py), each against a fake: the Pi camera
with a fake ``Picamera2`` class, a USB camera with a fake ``cv2.VideoCapture`` (the V4L2 backend,
its size, frame rate and exposure fixed), and a still image from a recorded frame. Nothing
imports picamera2 off a Pi."""

from __future__ import annotations

import subprocess
import sys
import types
from typing import ClassVar

import cv2
import numpy as np
import pytest

from vision.sources import SourceError, open_source


class FakePicamera2:
    """picamera2's camera as the source uses it; ``autofocus``: a Camera Module 3 (it has AfMode)."""

    autofocus = True
    made: ClassVar[list[FakePicamera2]] = []

    def __init__(self):
        self.camera_controls = {"ExposureTime": (1, 66_000, 20_000), "AnalogueGain": (1.0, 16.0, 1.0)}
        if self.autofocus:
            self.camera_controls["AfMode"] = (0, 2, 0)
        self.controls, self.started, self.closed, self.fail_capture = {}, False, False, False
        FakePicamera2.made.append(self)

    def create_video_configuration(self, main):
        return {"main": main}

    def configure(self, config):
        self.config = config

    def set_controls(self, controls):
        self.controls.update(controls)

    def start(self):
        self.started = True

    def capture_array(self, stream):
        if self.fail_capture:
            raise RuntimeError("Camera frontend has timed out!")
        w, h = self.config["main"]["size"]
        frame = np.zeros((h, w, 4), np.uint8)  # as libcamera lays out a 32-bit frame: B, G, R, X
        frame[..., 0], frame[..., 2] = 200, 10
        return frame

    def close(self):
        self.closed = True


@pytest.fixture
def picamera2(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    FakePicamera2.made, FakePicamera2.autofocus = [], True
    return FakePicamera2


def test_the_pi_camera_is_set_to_a_fixed_size_rate_and_exposure_with_autofocus(picamera2):
    source = open_source("picamera2", (1280, 720), fps=10.0, exposure_us=5000)
    camera = picamera2.made[0]
    assert camera.config == {"main": {"size": (1280, 720), "format": "RGB888"}} and camera.started
    assert camera.controls == {
        "AeEnable": False,
        "AwbEnable": False,
        "ExposureTime": 5000,
        "AnalogueGain": 2.0,
        "FrameDurationLimits": (100_000, 100_000),
        "AfMode": 2,  # continuous
    }
    frame = source.read()
    assert frame.shape == (720, 1280, 3) and frame.flags["C_CONTIGUOUS"]
    assert tuple(frame[0, 0]) == (200, 0, 10)  # BGR, as OpenCV and the reader take it
    assert source.describe() == (
        "picamera2, 1280x720, 10 frames a second, exposure 5000 us, gain 2, continuous autofocus"
    )
    source.close()
    assert camera.closed


def test_a_pi_camera_without_autofocus_is_not_asked_for_it(picamera2):
    picamera2.autofocus = False  # Camera Module 2, the HQ camera: focused by hand
    source = open_source("picamera2", (1280, 720))
    assert "AfMode" not in picamera2.made[0].controls
    assert "autofocus" not in source.describe()


def test_a_pi_camera_that_stops_delivering_is_a_source_error(picamera2):
    source = open_source("picamera2", (640, 480))
    picamera2.made[0].fail_capture = True
    with pytest.raises(SourceError, match="the Pi camera stopped delivering frames: Camera frontend has timed out!"):
        source.read()


def test_no_pi_camera_connected_is_a_source_error(picamera2, monkeypatch):
    def no_camera():
        raise IndexError("list index out of range")  # what Picamera2() raises with no camera attached

    monkeypatch.setattr(sys.modules["picamera2"], "Picamera2", no_camera)
    with pytest.raises(SourceError, match="the Pi camera cannot be opened: list index out of range"):
        open_source("picamera2")


class FakeCapture:
    """cv2.VideoCapture for a USB camera that takes every setting but ``refuses``."""

    opened: ClassVar[list[FakeCapture]] = []
    refuses: ClassVar[set[int]] = set()

    def __init__(self, target, backend=None):
        self.target, self.backend, self.props = target, backend, {}
        FakeCapture.opened.append(self)

    def isOpened(self):
        return True

    def set(self, prop, value):
        if prop in self.refuses:
            return False
        self.props[prop] = value
        return True

    def get(self, prop):
        return float(self.props.get(prop, 0))

    def getBackendName(self):
        return "V4L2" if self.backend == cv2.CAP_V4L2 else "ANY"

    def read(self):
        return True, np.full((720, 1280, 3), 90, np.uint8)

    def release(self):
        pass


@pytest.fixture
def usb_camera(monkeypatch):
    monkeypatch.setattr(cv2, "VideoCapture", FakeCapture)
    FakeCapture.opened, FakeCapture.refuses = [], set()
    return FakeCapture


def test_a_usb_camera_goes_through_v4l2_with_a_fixed_size_rate_and_exposure(usb_camera):
    source = open_source("uvc:0", (1280, 720), fps=10.0, exposure_us=8000)
    capture = usb_camera.opened[0]
    assert (capture.target, capture.backend) == (0, cv2.CAP_V4L2)
    assert capture.props == {
        cv2.CAP_PROP_FOURCC: cv2.VideoWriter.fourcc(*"MJPG"),
        cv2.CAP_PROP_FRAME_WIDTH: 1280,
        cv2.CAP_PROP_FRAME_HEIGHT: 720,
        cv2.CAP_PROP_FPS: 10.0,
        cv2.CAP_PROP_AUTO_EXPOSURE: 1,  # manual
        cv2.CAP_PROP_EXPOSURE: 80,  # V4L2 counts hundreds of microseconds
        cv2.CAP_PROP_AUTO_WB: 0,
        cv2.CAP_PROP_AUTOFOCUS: 0,
    }
    assert source.read().shape == (720, 1280, 3)
    assert source.describe() == "V4L2, 1280x720, 10 frames a second; fixed exposure"


def test_a_usb_camera_that_keeps_its_autofocus_says_so(usb_camera):
    usb_camera.refuses = {cv2.CAP_PROP_AUTOFOCUS}
    source = open_source("uvc:2", (1280, 720), fps=10.0, exposure_us=8000)
    assert source.describe().endswith("; it keeps automatic focus")


def test_a_still_image_is_given_again_and_again(tmp_path):
    frame = np.random.default_rng(0).integers(0, 255, (72, 128, 3), np.uint8)
    cv2.imwrite(str(tmp_path / "table.png"), frame)
    source = open_source(f"still:{tmp_path / 'table.png'}")
    first = source.read()
    first[:] = 0  # a reader that draws on its frame does not change the next one
    assert all(np.array_equal(source.read(), frame) for _ in range(3))
    assert source.describe() == "one still image, 128x72"


@pytest.mark.parametrize(
    ("name", "content", "message"), [("gone.png", None, "no such image"), ("bad.png", b"x", "not an image")]
)
def test_a_still_image_that_cannot_be_read_is_named(tmp_path, name, content, message):
    if content is not None:
        (tmp_path / name).write_bytes(content)
    with pytest.raises(SourceError, match=f"{name}: {message}"):
        open_source(f"still:{tmp_path / name}")


def test_nothing_imports_picamera2_off_a_pi(tmp_path):
    cv2.imwrite(str(tmp_path / "table.png"), np.zeros((8, 8, 3), np.uint8))
    program = (
        "import sys, controller.cli, controller.devices, controller.doctor.examine, vision.sources\n"
        f"vision.sources.open_source('still:{tmp_path / 'table.png'}').read()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('picamera2', 'libcamera')))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"
