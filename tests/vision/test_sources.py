"""Frame sources: files and folders end with None, a missing camera fails with a clear error."""

from __future__ import annotations

import sys

import cv2
import numpy as np
import pytest

from engine.cards import card
from simulators.camera import PlacedCard, Scene, SimulatedCamera
from simulators.scenes import tilted_view
from vision.sources import FrameSource, ImageFolder, OpenCVSource, SourceError, open_source


def frames(n: int) -> list[np.ndarray]:
    return [np.full((72, 128, 3), 40 * i, np.uint8) for i in range(n)]


def drain(source: FrameSource) -> list[np.ndarray]:
    out = []
    while (frame := source.read()) is not None:
        out.append(frame)
    source.close()
    return out


def test_an_image_folder_gives_its_images_in_name_order_then_none(tmp_path):
    for i, frame in enumerate(frames(3)):
        cv2.imwrite(str(tmp_path / f"f{i:02d}.png"), frame)
    (tmp_path / "notes.txt").write_text("skipped: not an image suffix")
    got = drain(open_source(f"folder:{tmp_path}"))
    assert [int(f[0, 0, 0]) for f in got] == [0, 40, 80]


def test_a_broken_image_in_a_folder_is_named(tmp_path):
    (tmp_path / "a.png").write_bytes(b"not a png")
    with pytest.raises(SourceError, match=r"a\.png: not an image"):
        ImageFolder(tmp_path).read()


def test_a_video_file_gives_its_frames_then_none(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (128, 72))
    for frame in frames(4):
        writer.write(frame)
    writer.release()
    got = drain(open_source(f"file:{path}"))
    assert len(got) == 4 and got[0].shape == (72, 128, 3)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("file:/no/such/clip.mp4", "no such video file"),
        ("folder:/no/such/folder", "no such folder"),
        ("webcam", "unknown camera source"),
        ("uvc:63", "cannot be opened"),
    ],
)
def test_sources_that_cannot_open_say_why(spec, message):
    with pytest.raises(SourceError, match=message):
        open_source(spec)


@pytest.mark.skipif("picamera2" in sys.modules, reason="a real Pi camera stack is present")
def test_the_pi_camera_without_picamera2_is_a_clear_error():
    try:
        import picamera2  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        with pytest.raises(SourceError, match="picamera2 is not installed"):
            open_source("picamera2")
    else:
        pytest.skip("picamera2 is installed here")


def test_a_live_camera_that_stops_delivering_is_an_error():
    source = OpenCVSource.__new__(OpenCVSource)  # a camera whose grabs all fail, without hardware

    class DeadCapture:
        def read(self):
            return False, None

        def release(self):
            pass

    source._capture, source._live, source._failures = DeadCapture(), True, 0
    with pytest.raises(SourceError, match="stopped delivering frames"):
        source.read()


def test_the_simulated_camera_is_a_frame_source():
    view = tilted_view(np.random.default_rng(1), (320, 180), "felt", None)
    source: FrameSource = SimulatedCamera(view, [Scene(cards=(PlacedCard(card("AS"), (297, 210)),))] * 2)
    assert len(drain(source)) == 2
