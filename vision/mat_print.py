"""Drawing the play mat as an image, and writing it as a PNG or a one-page PDF for printing.

The mat is printed dark felt green so that white card faces stand out from it in any light;
the markers sit on white squares (their quiet zone) and the zones are outlined and labelled
in a pale, saturated yellow that the card segmentation (bright *and* unsaturated) ignores.
The PDF is written by hand (one page, the raster embedded as JPEG) to avoid a PDF dependency.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.mat import MARKER_DICTIONARY, MatLayout

FELT = (48, 96, 38)
LINE = (120, 205, 225)
PAPER = (250, 250, 250)
MM_PER_INCH = 25.4
POINTS_PER_MM = 72 / MM_PER_INCH


class MatOutputError(ValueError):
    """The mat cannot be written where or how it was asked."""


def render_mat(layout: MatLayout, px_per_mm: float, seat_labels: Sequence[str] | None = None) -> np.ndarray:
    """The whole sheet as a BGR image at ``px_per_mm``. ``seat_labels`` (one per seat, from seat 0)
    are printed in the seats' zones: the names every screen at the table gives the seats
    (``croupier mat`` passes the compass points); without them, each zone's own name."""
    w, h = round(layout.width_mm * px_per_mm), round(layout.height_mm * px_per_mm)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = FELT
    thickness = max(1, round(1.2 * px_per_mm))
    for zone in layout.zones:
        x0, y0, x1, y1 = (round(v * px_per_mm) for v in zone.box_mm)
        cv2.rectangle(img, (x0, y0), (x1, y1), LINE, thickness, cv2.LINE_AA)
        scale = 0.3 * px_per_mm
        label = seat_labels[zone.seat] if seat_labels is not None and zone.seat is not None else zone.name
        cv2.putText(
            img,
            label.upper(),
            (x0 + round(3 * px_per_mm), y1 - round(3 * px_per_mm)),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            LINE,
            max(1, round(scale * 2)),
            cv2.LINE_AA,
        )
    _draw_markers(img, layout, px_per_mm)
    return img


def _draw_markers(img: np.ndarray, layout: MatLayout, px_per_mm: float) -> None:
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICTIONARY)
    side_px = round(layout.marker_side_mm * px_per_mm)
    quiet = max(2, side_px // 6)  # one module of white around the 6-module marker
    for marker_id, corners in layout.marker_corners_mm().items():
        x, y = (round(v * px_per_mm) for v in corners[0])
        cv2.rectangle(img, (x - quiet, y - quiet), (x + side_px + quiet, y + side_px + quiet), PAPER, -1)
        marker = cv2.aruco.generateImageMarker(dictionary, marker_id, side_px)
        img[y : y + side_px, x : x + side_px] = marker[..., None]


def pdf_with_image(jpeg: bytes, width_px: int, height_px: int, width_pt: float, height_pt: float) -> bytes:
    """A minimal valid one-page PDF showing one JPEG image over the whole page."""
    content = f"q {width_pt:.2f} 0 0 {height_pt:.2f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width_pt:.2f} {height_pt:.2f}] "
            "/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>"
        ).encode(),
        (
            f"<< /Type /XObject /Subtype /Image /Width {width_px} /Height {height_px} /ColorSpace /DeviceRGB "
            f"/BitsPerComponent 8 /Filter /DCTDecode /Length {len(jpeg)} >>\nstream\n"
        ).encode()
        + jpeg
        + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def write_mat(layout: MatLayout, path: Path, dpi: int = 150, seat_labels: Sequence[str] | None = None) -> None:
    """Write the mat as ``.png`` (at ``dpi``) or ``.pdf`` (page the size of the sheet)."""
    suffix = path.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise MatOutputError(f"{path}: the mat is written as .png or .pdf, not {suffix or 'no extension'}")
    img = render_mat(layout, dpi / MM_PER_INCH, seat_labels)
    if suffix == ".png":
        ok, data = cv2.imencode(".png", img)
    else:
        ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])
    if not ok:
        raise MatOutputError(f"{path}: the image could not be encoded")
    payload = data.tobytes()
    if suffix == ".pdf":
        h, w = img.shape[:2]
        payload = pdf_with_image(payload, w, h, layout.width_mm * POINTS_PER_MM, layout.height_mm * POINTS_PER_MM)
    try:
        path.write_bytes(payload)
    except OSError as exc:
        raise MatOutputError(f"cannot write {path}: {exc.strerror}") from exc
