"""The mat: found under perspective from its markers, and every zone point maps to its seat."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.conftest import run_croupier
from vision.mat import MatError, MatLayout, find_mat, zone_of
from vision.mat_print import render_mat

PX_PER_MM = 3.0


def random_view(rng: np.random.Generator, layout: MatLayout, size=(1280, 720)) -> np.ndarray:
    """A homography from mat millimetres to a frame: the mat seen from a tilted, shifted camera."""
    w, h = size
    sheet = np.array([[0, 0], [layout.width_mm, 0], [layout.width_mm, layout.height_mm], [0, layout.height_mm]])
    scale = 0.65 * min(w / layout.width_mm, h / layout.height_mm)
    centre = np.array([w / 2, h / 2]) + rng.uniform(-0.05, 0.05, 2) * (w, h)
    target = (sheet - sheet.mean(axis=0)) * scale
    angle = rng.uniform(-0.25, 0.25)
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    target = target @ rotation.T + centre + rng.uniform(-0.06, 0.06, (4, 2)) * scale * layout.height_mm
    return cv2.getPerspectiveTransform(sheet.astype(np.float32), target.astype(np.float32))


def seen(layout: MatLayout, mat_to_frame: np.ndarray, size=(1280, 720)) -> np.ndarray:
    sheet = render_mat(layout, PX_PER_MM)
    px_to_mm = np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0])
    frame = np.full((size[1], size[0], 3), (60, 90, 130), np.uint8)  # a wooden table around the mat
    return cv2.warpPerspective(sheet, mat_to_frame @ px_to_mm, size, dst=frame, borderMode=cv2.BORDER_TRANSPARENT)


def zone_points(layout: MatLayout, per_side: int = 6):
    for zone in layout.zones:
        x0, y0, x1, y1 = zone.box_mm
        for x in np.linspace(x0 + 1, x1 - 1, per_side):
            for y in np.linspace(y0 + 1, y1 - 1, per_side):
                yield zone, np.array([x, y])


@pytest.mark.parametrize(("seats", "sheet", "seed"), [(4, "a2", 1), (6, "a2", 2), (4, "a3", 3), (6, "a3", 4)])
def test_markers_found_under_perspective_and_every_zone_point_maps_to_its_seat(seats, sheet, seed):
    rng = np.random.default_rng(seed)
    layout = MatLayout.create(seats, sheet)
    for _ in range(3):
        mat_to_frame = random_view(rng, layout)
        pose = find_mat(seen(layout, mat_to_frame), layout)
        assert pose is not None and pose.markers_seen == 4
        for zone, point in zone_points(layout):
            frame_point = cv2.perspectiveTransform(point.reshape(1, 1, 2), mat_to_frame)[0, 0]
            assert zone_of(pose, layout, tuple(frame_point)) == zone


def test_two_markers_are_enough_when_a_hand_covers_the_others():
    rng = np.random.default_rng(7)
    layout = MatLayout.create(4, "a2")
    mat_to_frame = random_view(rng, layout)
    frame = seen(layout, mat_to_frame)
    corners = cv2.perspectiveTransform(np.array([layout.marker_corners_mm()[i] for i in (1, 2)]), mat_to_frame)
    for quad in corners:  # cover the right-hand markers
        cv2.fillConvexPoly(frame, cv2.convexHull(quad.astype(np.int32)), (90, 140, 200))
    pose = find_mat(frame, layout)
    assert pose is not None and pose.markers_seen == 2
    centre = layout.zones[-1]
    x0, y0, x1, y1 = centre.box_mm
    point = cv2.perspectiveTransform(np.array([[[(x0 + x1) / 2, (y0 + y1) / 2]]]), mat_to_frame)[0, 0]
    assert zone_of(pose, layout, tuple(point)) == centre


def test_no_mat_in_an_empty_frame():
    assert find_mat(np.full((720, 1280, 3), 80, np.uint8), MatLayout.create(4)) is None


def test_points_between_zones_and_off_the_mat_belong_to_no_zone():
    layout = MatLayout.create(4, "a2")
    assert layout.zone_at(5.0, 5.0) is None
    assert layout.zone_at(-10.0, 200.0) is None
    assert layout.zone_at(layout.width_mm * 0.33, layout.height_mm * 0.5) is None


@pytest.mark.parametrize("seats", [4, 6])
def test_many_points_at_once_land_in_the_zones_one_point_does(seats):
    layout = MatLayout.create(seats, "a2")
    rng = np.random.default_rng(seats)
    points = rng.uniform((-20, -20), (layout.width_mm + 20, layout.height_mm + 20), (500, 2))
    edges = np.array([[z.box_mm[0], z.box_mm[1]] for z in layout.zones])  # on a zone's edge: inside
    points = np.vstack([points, edges])
    assert layout.zones_at(points) == [layout.zone_at(float(x), float(y)) for x, y in points]
    assert {z.name for z in layout.zones_at(points) if z is not None} == {z.name for z in layout.zones}


def test_unsupported_mats_are_refused():
    with pytest.raises(MatError, match="4 or 6 seats"):
        MatLayout.create(5)
    with pytest.raises(MatError, match="a2 or a3"):
        MatLayout.create(4, "a4")


def test_croupier_mat_writes_a_png_and_a_pdf(tmp_path):
    png, pdf = tmp_path / "mat.png", tmp_path / "mat.pdf"
    done = run_croupier("mat", "--seats", "6", "--size", "a3", "--out", str(png))
    assert done.returncode == 0, done.stderr
    image = cv2.imread(str(png))
    assert image is not None and find_mat(image, MatLayout.create(6, "a3")) is not None
    done = run_croupier("mat", "--out", str(pdf), "--dpi", "60")
    assert done.returncode == 0, done.stderr
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    xref = int(data.rsplit(b"startxref", 1)[1].split()[0])
    assert data[xref:].startswith(b"xref")
    assert b"/MediaBox [0 0 1683.78 1190.55]" in data  # A2 landscape in points


def test_croupier_mat_refuses_bad_input_in_one_line(tmp_path):
    for args in (["--seats", "5"], ["--size", "a5"]):
        done = run_croupier("mat", "--out", str(tmp_path / "m.png"), *args)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    done = run_croupier("mat", "--out", str(tmp_path / "m.svg"))
    assert done.returncode == 2 and ".png or .pdf" in done.stderr
